#include "harness/backends/torch/standalone.h"

#include <chrono>
#include <filesystem>

#include "harness/backends/torch/torch_backend.h"

namespace vf {

namespace {

WorkerConfig runnerConfig(const std::string &python) {
  WorkerConfig cfg;
  cfg.python = python;
  cfg.script = standaloneRunnerScript();
  cfg.memoryLimitMb = 0;                           // a fresh python has none either
  cfg.timeout = std::chrono::milliseconds(660000); // the script's own limit (at most 600 s) is the runner's
  return cfg;
}

} // namespace

std::string standaloneRunnerScript() {
  return (std::filesystem::path(defaultWorkerScript()).parent_path() / "vmapfuzz_confirm.py").string();
}

StandaloneRunner::StandaloneRunner(const std::string &python) : server_(runnerConfig(python)) {}

std::optional<std::string> StandaloneRunner::operator()(const std::string &script, const std::string &dir, int seconds) {
  const auto asked = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> g(mu_);
  if (broken_) return std::nullopt;
  // The wait for the one before counts against this script's limit.
  const int waited = static_cast<int>(std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count());
  const int left = seconds - waited;
  if (left < 1) return "not checked (repro.py still ran after " + std::to_string(seconds) + " s)";
  const WorkerReply rep = server_.request(
      {{"v", kProtocolVersion}, {"op", "confirm"}, {"dir", dir}, {"script", script}, {"seconds", left}}, {});
  if (rep.kind != WorkerReply::Kind::Ok) {
    broken_ = true;
    server_.stop();
    return std::nullopt;
  }
  const std::string status = rep.header.value("status", "");
  if (status == "timeout") return "not checked (repro.py still ran after " + std::to_string(seconds) + " s)";
  if (status != "exited") return "not checked";
  const int code = rep.header.value("code", -1);
  return code == 1 ? "confirmed" : code == 0 ? "not reproduced" : "not checked (repro.py exited " + std::to_string(code) + ")";
}

} // namespace vf
