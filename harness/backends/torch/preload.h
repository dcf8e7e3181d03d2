#pragma once
/// Python files the torch worker runs at start-up, before any case (`--preload FILE.py`): e.g. a
/// batching rule that torch does not have yet. Each is recorded by path and SHA-256 (computed by
/// the worker from the bytes it ran), in every report's environment and in its repro.py.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vf {

/// One preloaded file as the worker ran it.
struct Preload {
  std::string path;   ///< absolute
  std::string sha256; ///< hex, of the file's bytes when the worker started
};

/// The worker's hello "preloads" list (or an environment's "preload" entry); [] for none.
std::vector<Preload> preloadsFromJson(const nlohmann::json &list);
/// The "preload" entry of a run's environment (Systems::environment, a report's meta.json);
/// [] when there is none or `environment` is not an object.
std::vector<Preload> preloadsOf(const nlohmann::json &environment);
/// [{"path", "sha256"}, ...]: the form of preloadsFromJson's input.
nlohmann::json preloadsToJson(const std::vector<Preload> &preloads);
/// The name each file gets in a report's `preload/` folder: its own name, prefixed with its
/// position when two preloads share one.
std::vector<std::string> preloadFileNames(const std::vector<Preload> &preloads);

} // namespace vf
