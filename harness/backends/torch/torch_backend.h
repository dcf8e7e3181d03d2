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
  /// The components the worker saw the batched run go through ("record_ops"): the higher-order
  /// ops with a vmap rule in this torch ("hop:NAME"), the torch functions called on batched
  /// tensors ("op:NAME") and vmap's front end ("vmap:front-end"); empty when the run fails to
  /// record or this worker cannot swap.
  std::vector<std::string> components(const Case &c, const std::vector<at::Tensor> &inputs) override;
  void swap(std::vector<std::string> names) override { swapped_ = std::move(names); }

  /// Asks the worker for its torch version; throws std::runtime_error with a readable reason
  /// when python or torch is unusable.
  nlohmann::json hello();
  int restarts() const { return worker_->restarts(); }
  const ExecConfig &exec() const { return exec_; }

private:
  /// One run request; `extra` adds fields to the request (e.g. "record_ops"), and the reply's
  /// header is left in `header` when given.
  Outcome request(const Case &c, const std::vector<const std::vector<at::Tensor> *> &calls, RunMode mode,
                  const nlohmann::json &extra = nullptr, nlohmann::json *header = nullptr);

  std::shared_ptr<WorkerProcess> worker_;
  ExecConfig exec_;
  std::string deviceLabel_ = "cpu";
  int64_t nextId_ = 1;
  std::vector<std::string> swapped_; ///< swapped in batched runs (Backend::swap)
};

/// Where vmapfuzz_worker.py lives: $VMAPFUZZ_WORKER, else the source tree it was built from.
std::string defaultWorkerScript();

} // namespace vf
