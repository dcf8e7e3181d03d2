#pragma once
/// The systems under test of a run: `jobs` long-lived torch workers, and on each a backend and
/// a runner per (mode, device). Checks python, torch and the devices before anything runs.
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/backends/exec_config.h"
#include "harness/backends/repro.h"
#include "harness/run/runner.h"
#include "harness/backends/torch/torch_backend.h"

namespace vf {

struct SystemsConfig {
  WorkerConfig worker;
  std::vector<ExecConfig> modes = {ExecConfig{}}; ///< device fields ignored: see devices
  std::vector<std::string> devices = {"cpu"};     ///< "cpu", "cuda"
  int jobs = 1;
  RunnerOptions runner;
  bool torch = true;     ///< the torch backend: python workers, every mode and device
  bool libtorch = false; ///< the libtorch backend: functorch's C++ vmap in process (CPU)
};

/// The filing hook of `system`'s backend kind (harness/backends/repro.h): what its findings'
/// folders get. A new backend kind adds its writer here.
const ReproWriter &reproWriterFor(const SystemId &system);

/// Python, torch or the worker are unusable: the driver exits with its environment code.
struct EnvironmentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Systems {
public:
  /// Starts one worker and asks it for its torch (>= 2.5) and devices. A requested device that
  /// is absent is dropped with a "skipped: no cuda device" line in `skipped()`.
  Systems(const SystemsConfig &cfg, std::ostream &log);
  /// False when every requested device was skipped: nothing can run.
  bool empty() const { return sets_.empty() || sets_.front().empty(); }
  const std::vector<RunnerSet> &jobs() const { return sets_; }
  /// The runners of the first job, one per (mode, device).
  const RunnerSet &runners() const { return sets_.front(); }
  /// torch, python, cuda/hip, modes and devices, and "preload" ([{"path", "sha256"}]) when
  /// files were preloaded: for reports and meta.json.
  const nlohmann::json &environment() const { return env_; }
  const std::vector<std::string> &skipped() const { return skipped_; }
  /// The worker's coverage table (--coverage): per target file, its functions' lines and branches.
  const nlohmann::json &coverageTable() const { return coverageTable_; }

private:
  std::vector<std::shared_ptr<WorkerProcess>> workers_;
  std::vector<std::unique_ptr<Backend>> backends_;
  std::vector<std::unique_ptr<Runner>> runners_;
  std::vector<RunnerSet> sets_;
  nlohmann::json env_;
  std::vector<std::string> skipped_;
  nlohmann::json coverageTable_;
};

} // namespace vf
