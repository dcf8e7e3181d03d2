#include "harness/run/classify.h"

#include "harness/run/runner.h"

namespace vf {

namespace {

using Need = Decision::Need;
using Status = Outcome::Status;

Decision verdict(Verdict v, std::string summary, Shown shown = Shown::Batched) { return {Need::Nothing, v, std::move(summary), shown}; }
Decision need(Need n) { return {n, Verdict::Pass, "", Shown::Batched}; }

std::string firstLine(const std::string &s) { return errorGist(s).substr(0, 300); }

/// The harness's own code around a run failed (the worker's serialisation, say): our bug.
Decision harnessFailed(const char *run, const std::string &type, const std::string &message) {
  return verdict(Verdict::HarnessBug, std::string("the harness failed around the ") + run + " run: " + type + ": " + firstLine(message));
}

std::string loaded(const Observations &o) { return o.precompile ? "after save/load: " : ""; }

/// A gradient mode's finding may be a forward bug met on the way: the batched program's forward
/// values already differ (a wrong shape then makes the backward pass raise, or the gradients
/// differ with it). Then the finding is that forward mismatch, filed as the forward mode's
/// (findingSystem), so a known forward bug is not filed again as a new derivative bug. One more
/// run, for findings only; forward values near a decision boundary decide nothing, and neither
/// does a compiled function's second call.
std::optional<Decision> forwardBug(const Observations &o) {
  if (o.grad == Grad::None || o.again || o.forwardBoundary < kAmbiguityMargin) return std::nullopt;
  if (!o.forward) return need(Need::Forward);
  if (o.forward->status != Status::Ok || o.forward->cmp.equal) return std::nullopt;
  return verdict(Verdict::Mismatch, "the forward values already differ, before any derivative: " + o.forward->cmp.detail,
                 Shown::ForwardOnly);
}

/// The batched run returned values: compare them, then, before calling a difference a bug, check
/// that it is no rounding and that the system's own per-example run agrees with the reference
/// (otherwise the emitter or the reference is wrong, not torch's batching).
Decision returned(const Observations &o) {
  if (o.first.equal && o.again) { // the first call was right; now the second, at the other batch size
    const Comparison &second = o.second.value();
    if (second.equal) return verdict(Verdict::Pass, "");
    const std::string where = "called again at batch size " + std::to_string(o.againSize) + " (first " +
                              std::to_string(o.firstSize) + "), the compiled function ";
    if (o.againBoundary < kAmbiguityMargin)
      return verdict(Verdict::Ambiguous, where + "differs near a decision boundary or a domain's edge: " + second.detail, Shown::SecondCall);
    return verdict(Verdict::Mismatch, loaded(o) + where + "returns a wrong result: " + second.detail, Shown::SecondCall);
  }
  if (o.first.equal) return verdict(Verdict::Pass, "");
  if (auto fw = forwardBug(o)) return *fw;
  if (!o.domainReason.empty()) return verdict(Verdict::Ambiguous, "results differ, but " + o.domainReason + ": " + o.first.detail);
  // A comparison near its boundary only matters when the results differ: then rounding may
  // have flipped it, and the case is discarded rather than reported.
  if (o.boundary < kAmbiguityMargin)
    return verdict(Verdict::Ambiguous, "results differ, but a comparison" +
                                           std::string(o.grad != Grad::None ? ", a kink or a non-finite gradient" : "") + " was within " +
                                           std::to_string(o.boundary) + " of its boundary: " + o.first.detail);
  if (!o.perExample) return need(Need::PerExample);
  const RunObservation &u = *o.perExample;
  if (u.status == Status::HarnessError) return harnessFailed("per-example", u.errorType, u.errorMessage);
  if (u.status != Status::Ok) return verdict(Verdict::Invalid, "the per-example run fails: " + u.errorType + ": " + firstLine(u.errorMessage));
  if (!u.cmp.equal) return verdict(Verdict::HarnessBug, "reference and torch's per-example run disagree: " + u.cmp.detail);
  return verdict(Verdict::Mismatch, loaded(o) + o.first.detail);
}

/// The batched run raised: a bug only if every example runs alone in the same mode, and neither a
/// documented restriction nor a construct torch says it cannot batch.
Decision raised(const Observations &o) {
  const bool grad = o.grad != Grad::None;
  // An op of a later torch: every run of the program fails the same way, batched or not.
  if (o.torchLacks) return verdict(Verdict::Unsupported, kTorchLacks + o.errorType + ": " + firstLine(o.errorMessage));
  // Raised past the forward pass, it may be a forward bug's wrong shape met by autograd.
  if (grad && o.gradientPass != kForwardPassRaises)
    if (auto fw = forwardBug(o)) return *fw;
  if (!o.perExample) return need(Need::PerExample);
  const RunObservation &u = *o.perExample;
  if (u.status == Status::HarnessError) return harnessFailed("per-example", u.errorType, u.errorMessage);
  if (u.status == Status::Crash || u.status == Status::Hang || u.status == Status::Oom)
    return verdict(Verdict::Invalid, "the per-example run also fails: " + u.errorMessage);
  if (u.status == Status::Error)
    return verdict(Verdict::Invalid, "torch rejects the program unbatched too: " + u.errorType + ": " + firstLine(u.errorMessage));
  // vmap refuses an in-place update that is batched where its buffer is not: a documented
  // restriction of the program (ir/buffers.h), when the case can break it and torch says so.
  if (!o.bufferHazard.empty() && o.saysInplaceRule)
    return verdict(Verdict::Invalid, o.bufferHazard + ": " + o.errorType + ": " + firstLine(o.errorMessage));
  if (!o.afterSaveLoad && o.saysUnsupported) return verdict(Verdict::Unsupported, o.errorType + ": " + firstLine(o.errorMessage));
  if (o.grad == Grad::VmapOf || o.grad == Grad::Jvp) {
    // Per-sample gradients (and jvp) need the function transform to handle the program at all:
    // where torch.func.vjp (torch.func.jvp) fails on each example alone (no vmap), the
    // composition is unsupported by this torch, not a batching bug.
    if (!o.perExampleFunc) return need(Need::PerExampleFunc);
    const RunObservation &f = *o.perExampleFunc;
    if (f.status == Status::Error)
      return verdict(Verdict::Unsupported, std::string(forwardMode(o.grad) ? "torch.func.jvp" : "torch.func.vjp") +
                                               " fails on each example alone too (no vmap): " + f.errorType + ": " + firstLine(f.errorMessage));
  }
  std::string prefix = o.afterSaveLoad ? "after save/load: " : "";
  prefix += o.failedOnSecondCall ? "on the second call, at batch size " + std::to_string(o.againSize) + ": " : "";
  if (grad && !o.gradientPass.empty()) prefix += o.gradientPass + ": ";
  return verdict(Verdict::BatchedError, prefix + o.errorType + ": " + firstLine(o.errorMessage));
}

} // namespace

Decision classify(const Observations &o) {
  const bool grad = o.grad != Grad::None;
  if (!o.referenceError.empty())
    return verdict(Verdict::Invalid, "the reference interpreter rejects the program: " + firstLine(o.referenceError));
  if (grad && !o.gradInputs) return verdict(Verdict::Invalid, "no floating input: no gradient to compare");
  if (grad && !o.derivativeError.empty())
    return verdict(Verdict::Invalid, "the reference's autograd rejects the program: " + firstLine(o.derivativeError));
  if (!o.batchedRan) return need(Need::Batched);
  switch (o.batched) {
  case Status::HarnessError: return harnessFailed("batched", o.errorType, o.errorMessage);
  case Status::Crash: return verdict(Verdict::Crash, o.errorMessage);
  case Status::Hang: return verdict(Verdict::Hang, o.errorMessage);
  case Status::Oom: return verdict(Verdict::Oom, o.errorMessage.empty() ? o.errorType : firstLine(o.errorMessage));
  case Status::Ok: return returned(o);
  case Status::Error: break;
  }
  Decision d = raised(o);
  // Whatever it is, a failure of the second call shows that call's batch size and reference.
  if (d.need == Need::Nothing && o.failedOnSecondCall) d.shown = Shown::SecondCall;
  return d;
}

} // namespace vf
