#pragma once
/// Runs a new finding's repro.py alone, as FindingStore's confirmation does, in a fork of the
/// worker's start-up image (worker/vmapfuzz_confirm.py, vmapfuzz_zygote.py) instead of a fresh
/// `python3`: the same script, folder and exit-code meaning, without a fresh `import torch` per
/// finding (seconds of CPU each, taken from the campaign on a machine of two cores).
#include <mutex>
#include <optional>
#include <string>

#include "harness/backends/torch/worker_process.h"

namespace vf {

class StandaloneRunner {
public:
  /// `python`: the one the workers run (--python).
  explicit StandaloneRunner(const std::string &python);

  /// Runs `script` in `dir` for at most `seconds`: "confirmed" (it exited 1: the bug shows),
  /// "not reproduced" (0), or "not checked (...)". nullopt when the runner itself cannot start or
  /// died (the caller then runs a fresh python). Thread-safe: one script at a time.
  std::optional<std::string> operator()(const std::string &script, const std::string &dir, int seconds);

private:
  std::mutex mu_;
  WorkerProcess server_;
  bool broken_ = false; ///< it failed once: every later call says nullopt
};

/// The path of worker/vmapfuzz_confirm.py (beside the worker script: VMAPFUZZ_WORKER's folder).
std::string standaloneRunnerScript();

} // namespace vf
