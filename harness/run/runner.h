#pragma once
#include <optional>
/// Runs one case on the reference and on a backend, and classifies the result. The only place
/// that executes a case and decides its verdict.
#include "harness/backends/backend.h"
#include "harness/run/verdict.h"
#include "ir/program.h"
#include "oracles/reference.h"
#include "oracles/reference_grad.h"

namespace vf {

struct RunnerOptions {
  bool float64Reference = false;
};

/// A case's inputs and reference result: computed once, shared by the runners of every mode.
struct Prepared : Evaluated {
  /// Gradient modes: the cotangents (generators/data.h makeCotangents) and the reference's VJP
  /// with them. Filled by a gradient mode's prepare, or by its run when another mode prepared.
  std::vector<at::Tensor> cotangents;
  std::optional<RefVjp> vjp;
  /// Forward-mode ("+jvp") modes: the tangents (generators/data.h makeTangents) and the
  /// reference's JVP with them (output tangents), filled the same way.
  std::vector<at::Tensor> tangents;
  std::optional<RefJvp> jvp;

  /// The reference's derivatives a gradient mode `g` compares with (vjp or jvp; null before
  /// addGradients).
  const RefVjp *derivatives(Grad g) const {
    const auto &d = forwardMode(g) ? jvp : vjp;
    return d ? &*d : nullptr;
  }
  /// What a gradient mode's system takes after the inputs: the cotangents or the tangents.
  const std::vector<at::Tensor> &directions(Grad g) const { return forwardMode(g) ? tangents : cotangents; }
};

/// `p` with the directions and the reference's derivatives gradient mode `g` needs (cotangents
/// and VJP, or tangents and JVP; unchanged when it has them already).
void addGradients(const Case &c, Prepared &p, const RunnerOptions &opt, Grad g);

/// What a finding says of the pass of a gradient mode's run that raised, from the worker's
/// `raisingPass` ("forward", "backward", "tangent"): "the forward pass raises" (the batched
/// program itself: a forward bug, which the forward modes meet too), "the backward pass raises",
/// "the forward-mode pass (torch.func.jvp) raises" (+jvp), or "" for any other (not in a pass).
std::string passPhrase(const std::string &raisingPass);
inline constexpr const char *kForwardPassRaises = "the forward pass raises";
inline constexpr const char *kBackwardPassRaises = "the backward pass raises";
inline constexpr const char *kTangentPassRaises = "the forward-mode pass (torch.func.jvp) raises";

/// The mode a finding is filed and matched as: `r.system`, except that a gradient mode's finding
/// that is a forward bug met on the way (its forward values already differ, or it raised in the
/// forward pass) is the forward mode's, so a known forward bug is not filed again.
SystemId findingSystem(const CaseResult &r);

/// A gradient comparison's detail with "output K" named as what it is, the gradient of input xN
/// (the K-th floating input of `c`), and the examples of the outer vmap level whose gradient
/// differs. In a forward-mode (`jvp`) comparison, "output K" is the tangent of the program's
/// output J (the K-th floating output), and the examples are those along its outer batch dim.
std::string gradientDetail(const Case &c, const std::string &detail, const std::vector<at::Tensor> &expected,
                           const std::vector<at::Tensor> &actual, bool jvp = false);

/// Whether an error message is torch's words for vmap's in-place rule (an in-place op whose other
/// operand is batched where its self is not): functorch's own check, and the broadcast check
/// add_ and mul_ meet first ("[2]" or "[1, 1]" run eagerly, "torch.Size([2])" under dynamo's
/// fake tensors). Such a program breaks vmap's documented rule: `invalid`, not a torch bug.
bool saysInplaceRule(const std::string &message);

/// The same program at another outer batch size: what a compiled function is called with next.
Case atAnotherBatchSize(const Case &c);

class Runner {
public:
  Runner(Backend &backend, RunnerOptions opt = {}) : backend_(backend), opt_(opt) {}
  Prepared prepare(const Case &c) const;
  /// prepare, reusing `given` (the inputs and reference already computed for `c`, as the
  /// campaign's margin check does) where it was computed with this runner's options.
  Prepared prepare(const Case &c, std::optional<Evaluated> given) const;
  CaseResult run(const Case &c) { return run(c, prepare(c)); }
  CaseResult run(const Case &c, const Prepared &p);
  Backend &backend() { return backend_; }

private:
  Backend &backend_;
  RunnerOptions opt_;
};

/// The systems under test of one job: a runner per mode, all on the job's own worker.
using RunnerSet = std::vector<Runner *>;

} // namespace vf
