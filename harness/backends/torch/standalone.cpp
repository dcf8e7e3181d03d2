#include "harness/backends/torch/standalone.h"

#include <chrono>
#include <filesystem>

#include "harness/backends/repro.h"
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
  if (left < 1) return standaloneVerdict(0, true, seconds);
  const WorkerReply rep = server_.request(
      {{"v", kProtocolVersion}, {"op", "confirm"}, {"dir", dir}, {"script", script}, {"seconds", left}}, {});
  if (rep.kind != WorkerReply::Kind::Ok) {
    broken_ = true;
    server_.stop();
    return std::nullopt;
  }
  const std::string status = rep.header.value("status", "");
  if (status != "exited" && status != "timeout") return "not checked"; // killed by a signal
  return standaloneVerdict(rep.header.value("code", -1), status == "timeout", seconds);
}

} // namespace vf
