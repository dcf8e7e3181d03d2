#pragma once
/// The torch backend: emits the case as Python and runs it in a long-lived worker process, in
/// one execution mode (eager or torch.compile) on one device. Several backends (one per mode)
/// may share a worker.
#include <memory>

#include "harness/backends/backend.h"
#include "harness/backends/exec_config.h"
#include "harness/backends/torch/worker_process.h"

namespace vf {

class TorchBackend : public Backend {
public:
  /// Eager on the CPU, with a worker of its own.
  explicit TorchBackend(WorkerConfig cfg);
  /// `deviceLabel`: "cpu", "cuda" or "rocm" (a ROCm torch runs through the cuda device).
  TorchBackend(std::shared_ptr<WorkerProcess> worker, ExecConfig exec, std::string deviceLabel);
  SystemId id() const override { return SystemId::torch(exec_, deviceLabel_); }
  Outcome run(const Case &c, const std::vector<at::Tensor> &inputs, RunMode mode) override;
  bool checksRecompiles() const override { return exec_.compiled(); }
  Grad grad() const override { return exec_.grad; }
  Outcome runTwice(const Case &c, const std::vector<at::Tensor> &inputs, const Case &again,
                   const std::vector<at::Tensor> &againInputs) override;

  /// Asks the worker for its torch version; throws std::runtime_error with a readable reason
  /// when python or torch is unusable.
  nlohmann::json hello();
  int restarts() const { return worker_->restarts(); }
  const ExecConfig &exec() const { return exec_; }

private:
  Outcome request(const Case &c, const std::vector<const std::vector<at::Tensor> *> &calls, RunMode mode);

  std::shared_ptr<WorkerProcess> worker_;
  ExecConfig exec_;
  std::string deviceLabel_ = "cpu";
  int64_t nextId_ = 1;
};

/// Where vmapfuzz_worker.py lives: $VMAPFUZZ_WORKER, else the source tree it was built from.
std::string defaultWorkerScript();

} // namespace vf
