#pragma once
/// The interface every system under test implements: run a case, say what happened.
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "harness/backends/exec_config.h"
#include "harness/backends/system_id.h"
#include "ir/program.h"

namespace vf {

/// `Batched`: the vmapped program. `PerExample`: each example alone on the same system, to tell
/// a batching bug from a program the system rejects anyway. `PerExampleFunc` (gradient modes
/// only): each example alone through the mode's function transform (torch.func.vjp or
/// torch.func.jvp without vmap), to tell a batching bug from a transform that cannot handle the program at all.
/// `BatchedForward` (gradient modes only): the vmapped program's forward values, no derivative
/// (inputs without the (co)tangents), to tell a forward bug met on the way from a derivative bug.
enum class RunMode { Batched, PerExample, PerExampleFunc, BatchedForward };

struct Outcome {
  /// HarnessError: the harness's own code around the system failed (e.g. the worker's
  /// serialisation), not the system under test.
  enum class Status { Ok, Error, Crash, Hang, Oom, HarnessError };
  Status status = Status::Ok;
  std::vector<at::Tensor> outputs;
  std::string errorType;    ///< exception type, e.g. "RuntimeError"
  std::string errorMessage; ///< its message; for a crash, how the process ended
  std::string traceback;    ///< Python traceback, or the tail of a dead worker's stderr
  /// A gradient mode's error: which pass raised, "forward", "backward" or "tangent" (the
  /// forward-mode pass, torch.func.jvp), found by the worker from the exception's own frames
  /// (the innermost pass frame) before its traceback is cut; "" outside the passes.
  std::string raisingPass;
  double systemSeconds = 0; ///< time spent inside the system under test
  std::vector<at::Tensor> againOutputs; ///< runTwice: the outputs of the second call
  int failedCall = 0;       ///< runTwice: which call raised (0 or 1)
  /// A precompile mode: the error came from the fresh process that loaded the saved artifact
  /// (or from saving it), after the same torch compiled and ran the program in process.
  bool afterSaveLoad = false;
  /// The program needs what this torch does not have: importing the program's module failed
  /// (an op of a later release, e.g. torch._higher_order_ops.switch before 2.8). Not a batching
  /// bug, not the harness's: the construct is unsupported by this torch.
  bool torchLacks = false;
  // The harness's own share of a run (phase timing; 0 where a backend does not measure it):
  double emitSeconds = 0;      ///< turning the case into the system's input (e.g. Python source)
  double transportSeconds = 0; ///< moving the request and reply (pipes, framing)
  double workerSeconds = 0;    ///< the worker's own handling besides the system's time
  int64_t workerRssKb = 0;     ///< peak resident memory of the process that ran it
  /// Python coverage of the batched run (--coverage): "L file:line" and "B file:branch:side" keys.
  std::vector<std::string> pyCoverage;
};

class Backend {
public:
  virtual ~Backend() = default;
  /// Which system this is: its kind, mode and device (`id().str()`, "eager|cpu", starts every
  /// signature).
  virtual SystemId id() const = 0;
  /// In a gradient mode (grad()), `inputs` are the physical inputs followed by the cotangents,
  /// and the outputs are the gradients of the floating inputs (ir/differentiable.h); in a
  /// forward-mode one (Grad::Jvp) the tangents follow, and the outputs are the tangents of the
  /// floating outputs.
  virtual Outcome run(const Case &c, const std::vector<at::Tensor> &inputs, RunMode mode) = 0;
  /// What the outputs are: forward values (Grad::None) or gradients.
  virtual Grad grad() const { return Grad::None; }
  /// True when the system keeps compiled state that must stay right when called again at
  /// another batch size (torch.compile's guards): the runner then uses runTwice.
  virtual bool checksRecompiles() const { return false; }
  /// The batched program on `inputs`, then, with the same compiled function, on `againInputs`
  /// (the case `again`: the same program at another batch size).
  virtual Outcome runTwice(const Case &c, const std::vector<at::Tensor> &inputs, const Case &again,
                           const std::vector<at::Tensor> &againInputs) {
    return run(c, inputs, RunMode::Batched);
  }

  // Culprit localisation (harness/report/culprit.h): a system made of components that can each be
  // replaced by a trivially correct per-example loop at its level ("hop:cond", the vmap rule of
  // torch.cond; "op:where", the batching of torch.where; "vmap:front-end", vmap's own handling of
  // in_dims, out_dims, batch sizes and chunks) names them, and swaps them on request.

  /// The components the batched run of `c` on `inputs` goes through, each one swappable; empty
  /// when this system cannot swap any (the default).
  virtual std::vector<std::string> components(const Case &c, const std::vector<at::Tensor> &inputs) { return {}; }
  /// Later batched runs swap `names` (from components()) for per-example loops; {} swaps none.
  virtual void swap(std::vector<std::string> names) {}
};

/// Swaps components of `b` while it lives (Backend::swap), and none afterwards.
class SwapScope {
public:
  SwapScope(Backend &b, std::vector<std::string> names) : b_(b) { b_.swap(std::move(names)); }
  ~SwapScope() { b_.swap({}); }
  SwapScope(const SwapScope &) = delete;
  SwapScope &operator=(const SwapScope &) = delete;

private:
  Backend &b_;
};

} // namespace vf
