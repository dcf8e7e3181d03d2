#pragma once
/// The torch backend: emits the case as Python and runs it in a long-lived worker process.
#include <memory>

#include "harness/backend.h"
#include "harness/worker_process.h"

namespace vf {

class TorchBackend : public Backend {
public:
  explicit TorchBackend(WorkerConfig cfg);
  std::string name() const override { return "torch-eager-cpu"; }
  Outcome run(const Case &c, const std::vector<at::Tensor> &inputs, RunMode mode) override;

  /// Asks the worker for its torch version; throws std::runtime_error with a readable reason
  /// when python or torch is unusable.
  nlohmann::json hello();
  int restarts() const { return worker_.restarts(); }

private:
  WorkerProcess worker_;
  int64_t nextId_ = 1;
};

/// Where vmapfuzz_worker.py lives: $VMAPFUZZ_WORKER, else the source tree it was built from.
std::string defaultWorkerScript();

} // namespace vf
