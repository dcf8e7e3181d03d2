#include "harness/run/runner.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <regex>

#include "generators/data.h"
#include "harness/backends/exec_config.h"
#include "ir/buffers.h"
#include "ir/differentiable.h"
#include "ir/precision.h"
#include "oracles/compare.h"
#include "oracles/reference.h"

namespace vf {

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// torch's own words for "this construct has no batching rule".
bool saysUnsupported(const Outcome &o) {
  static const std::regex re(
      "(not (yet )?(implemented|supported).*(vmap|batch|functorch))|((vmap|batching rule).*not (yet )?(implemented|supported))|"
      "There is no vmap rule|NotImplementedError.*Vmap|doesn't support vmap|"
      // A higher-order op without a functorch_table entry for vmap fails its lookup.
      // (a direct call raises the KeyError itself: "KeyError: <TransformType.Vmap: 1>").
      "KeyError(\\(|: )<TransformType\\.(Vmap|Grad|Jvp)",
      std::regex::icase);
  return std::regex_search(o.errorType + ": " + o.errorMessage, re);
}

std::string firstLine(const std::string &s) { return errorGist(s).substr(0, 300); }

/// torch's words for vmap's in-place rule (an in-place op whose other operand is batched where
/// its self is not): functorch's own check, and the broadcast check add_ and mul_ meet first
/// ("[2]" run eagerly, "torch.Size([2])" under dynamo's fake tensors).
bool saysInplaceRule(const std::string &message) {
  static const std::regex re("vmap: inplace arithmetic\\(self, \\*extra_args\\) is not possible|"
                             "output with shape [^ ]{1,60} doesn't match the broadcast shape");
  return std::regex_search(message, re);
}

} // namespace

Case atAnotherBatchSize(const Case &c) {
  Case again = c;
  int64_t &size = again.spec.levels[0].size;
  size = size == 1 ? 3 : size + 1; // from 1 also crosses torch's 0/1 specialisation
  return again;
}

Prepared Runner::prepare(const Case &c) const { return prepare(c, std::nullopt); }

Prepared Runner::prepare(const Case &c, std::optional<Evaluated> given) const {
  auto t0 = std::chrono::steady_clock::now();
  Prepared p;
  if (given && given->options.float64 == opt_.float64Reference) {
    static_cast<Evaluated &>(p) = std::move(*given);
  } else {
    p.inputs = makeInputs(c);
    p.options.float64 = opt_.float64Reference;
    p.reference = runReference(c, p.inputs, p.options);
    p.seconds = since(t0);
  }
  addGradients(c, p, opt_, backend_.grad());
  return p;
}

CaseResult Runner::run(const Case &c, const Prepared &given) {
  auto t0 = std::chrono::steady_clock::now();
  // A gradient mode compares the gradients of the floating inputs (a VJP with the case's
  // cotangents) instead of the outputs, a forward-mode one the tangents of the floating outputs
  // (a JVP with the case's tangents); the reference's is added when another mode prepared.
  const Grad mode = backend_.grad();
  const bool grad = mode != Grad::None;
  const bool jvp = forwardMode(mode);
  std::optional<Prepared> withGrad;
  if (grad && !given.derivatives(mode)) {
    withGrad = given;
    addGradients(c, *withGrad, opt_, mode);
  }
  const Prepared &prep = withGrad ? *withGrad : given;
  CaseResult r;
  r.system = backend_.name();
  auto account = [&r](const Outcome &o) {
    r.systemSeconds += o.systemSeconds;
    r.emitSeconds += o.emitSeconds;
    r.transportSeconds += o.transportSeconds;
    r.workerSeconds += o.workerSeconds;
    r.workerRssKb = std::max(r.workerRssKb, o.workerRssKb);
  };
  // Each output's tolerance follows the precision it was computed in (ir/precision.h).
  auto tolerancesOf = [&c, grad](const std::vector<at::Tensor> &expected) {
    if (!grad) return outputTolerances(c.program);
    std::vector<Tolerance> t;
    const auto precision = programPrecision(c.program); // a gradient depends on the whole program
    for (const auto &e : expected) t.push_back(toleranceFor(e.scalar_type(), precision));
    return t;
  };
  // Every comparison is of the same program's outputs (or gradients): r.tolerances, set once.
  auto compare = [&r, &c, grad, jvp](const std::vector<at::Tensor> &a, const std::vector<at::Tensor> &b) {
    auto tc = std::chrono::steady_clock::now();
    Comparison cmp = compareOutputs(a, b, r.tolerances);
    if (grad && !cmp.equal) cmp.detail = gradientDetail(c, cmp.detail, a, b, jvp);
    r.compareSeconds += since(tc);
    return cmp;
  };
  // What the system is given, and what it must return: in a gradient mode the cotangents (the
  // tangents) follow the inputs, and the gradients (the output tangents) are expected.
  auto systemInputs = [grad, mode](const Prepared &p) {
    std::vector<at::Tensor> in = p.inputs;
    if (grad) in.insert(in.end(), p.directions(mode).begin(), p.directions(mode).end());
    return in;
  };
  auto expectedOf = [grad, mode](const Prepared &p) -> const std::vector<at::Tensor> & {
    return grad ? p.derivatives(mode)->gradients : p.reference.outputs;
  };
  // Where a comparison, a kink, a non-finite reference gradient or a taken path outside (or at
  // the edge of) an op's domain makes a difference unreliable.
  auto boundaryOf = [grad, mode](const Prepared &p) {
    double m = std::min(p.reference.minMargin, p.reference.domain.min);
    if (const RefVjp *d = grad ? p.derivatives(mode) : nullptr)
      m = std::min({m, d->minMargin, d->minKink, d->finite ? 1e300 : 0.0});
    return m;
  };
  const auto inputs = systemInputs(prep);
  const RefResult &ref = prep.reference;
  r.referenceSeconds = prep.seconds;
  auto finish = [&](Verdict v, std::string summary) {
    r.verdict = v;
    r.summary = std::move(summary);
    r.totalSeconds = since(t0) + prep.seconds;
    return r;
  };
  // The harness's own code around a run failed (the worker's serialisation, say): our bug.
  auto harnessFailed = [&](const char *run, const Outcome &o) {
    return finish(Verdict::HarnessBug, std::string("the harness failed around the ") + run + " run: " + o.errorType + ": " +
                                           firstLine(o.errorMessage));
  };
  if (!ref.error.empty()) return finish(Verdict::Invalid, "the reference interpreter rejects the program: " + firstLine(ref.error));
  if (grad && gradInputs(c.program).empty()) return finish(Verdict::Invalid, "no floating input: no gradient to compare");
  if (grad && !prep.derivatives(mode)->error.empty())
    return finish(Verdict::Invalid, "the reference's autograd rejects the program: " + firstLine(prep.derivatives(mode)->error));
  r.expected = expectedOf(prep);
  r.tolerances = tolerancesOf(r.expected);
  // A comparison near its boundary only matters when the results differ: then rounding may
  // have flipped it, and the case is discarded rather than reported. In a gradient mode, so
  // does an op's argument next to a point where it has no derivative, or a reference gradient
  // that is not finite.
  bool nearBoundary = boundaryOf(prep) < kAmbiguityMargin;

  // A compiled function is called a second time at another batch size: its guards must
  // recompile or generalise, never return a stale result.
  std::optional<Case> again;
  Prepared againPrep;
  if (backend_.checksRecompiles()) {
    again = atAnotherBatchSize(c);
    againPrep = prepare(*again);
    r.referenceSeconds += againPrep.seconds;
    if (!againPrep.reference.error.empty()) again.reset();
  }
  // A gradient mode's finding may be a forward bug met on the way: the batched program's forward
  // values already differ (a wrong shape then makes the backward pass raise, or the gradients
  // differ with it). Then the finding is that forward mismatch, filed as the forward mode's
  // (findingSystem), so a known forward bug is not filed again as a new derivative bug. One more
  // run, for findings only; forward values near a decision boundary decide nothing. (Not with a
  // compiled function's second call, `again`.)
  auto forwardBug = [&]() -> std::optional<std::string> {
    if (!grad || again || std::min(ref.minMargin, ref.domain.min) < kAmbiguityMargin) return std::nullopt;
    Outcome f = backend_.run(c, prep.inputs, RunMode::BatchedForward);
    account(f);
    if (f.status != Outcome::Status::Ok) return std::nullopt;
    std::vector<Tolerance> tol = outputTolerances(c.program);
    auto tc = std::chrono::steady_clock::now();
    Comparison cmp = compareOutputs(ref.outputs, f.outputs, tol);
    r.compareSeconds += since(tc);
    if (cmp.equal) return std::nullopt;
    r.expected = ref.outputs;
    r.actual = f.outputs;
    r.tolerances = std::move(tol);
    r.forwardDiffers = true;
    r.errorType.clear(); // what autograd made of the wrong forward values is not the finding
    r.errorMessage.clear();
    r.traceback.clear();
    return "the forward values already differ, before any derivative: " + cmp.detail;
  };
  // A precompile mode's results come from a fresh process that loaded the saved artifact.
  const std::string loaded = execOfSystem(backend_.name()).precompile ? "after save/load: " : "";
  Outcome b = again ? backend_.runTwice(c, inputs, *again, systemInputs(againPrep)) : backend_.run(c, inputs, RunMode::Batched);
  account(b);
  r.errorType = b.errorType;
  r.errorMessage = b.errorMessage;
  r.traceback = b.traceback;
  r.actual = b.outputs;
  r.pyCoverage = std::move(b.pyCoverage);
  if (b.status == Outcome::Status::HarnessError) return harnessFailed("batched", b);
  if (b.status == Outcome::Status::Crash) return finish(Verdict::Crash, b.errorMessage);
  if (b.status == Outcome::Status::Hang) return finish(Verdict::Hang, b.errorMessage);
  if (b.status == Outcome::Status::Oom) return finish(Verdict::Oom, b.errorMessage.empty() ? b.errorType : firstLine(b.errorMessage));
  if (b.status == Outcome::Status::Ok) {
    Comparison cmp = compare(expectedOf(prep), b.outputs);
    if (cmp.equal && again) {
      // The first call was right; now the second, at the other batch size.
      Comparison cmp2 = compare(expectedOf(againPrep), b.againOutputs);
      if (cmp2.equal) return finish(Verdict::Pass, "");
      r.againBatchSize = again->spec.levels[0].size;
      r.expected = expectedOf(againPrep);
      r.actual = b.againOutputs;
      std::string where = "called again at batch size " + std::to_string(r.againBatchSize) + " (first " +
                          std::to_string(c.spec.levels[0].size) + "), the compiled function ";
      if (boundaryOf(againPrep) < kAmbiguityMargin)
        return finish(Verdict::Ambiguous, where + "differs near a decision boundary or a domain's edge: " + cmp2.detail);
      return finish(Verdict::Mismatch, loaded + where + "returns a wrong result: " + cmp2.detail);
    }
    if (cmp.equal) return finish(Verdict::Pass, "");
    if (auto fw = forwardBug()) return finish(Verdict::Mismatch, *fw);
    if (std::string why = ref.domain.reason(kAmbiguityMargin); !why.empty())
      return finish(Verdict::Ambiguous, "results differ, but " + why + ": " + cmp.detail);
    if (nearBoundary)
      return finish(Verdict::Ambiguous, "results differ, but a comparison" + std::string(grad ? ", a kink or a non-finite gradient" : "") +
                                            " was within " + std::to_string(boundaryOf(prep)) + " of its boundary: " + cmp.detail);
    // Before calling it a bug, the system's own per-example run must agree with our reference:
    // otherwise the emitter or the reference is wrong, not torch's batching.
    Outcome u = backend_.run(c, inputs, RunMode::PerExample);
    account(u);
    if (u.status == Outcome::Status::HarnessError) return harnessFailed("per-example", u);
    if (u.status != Outcome::Status::Ok)
      return finish(Verdict::Invalid, "the per-example run fails: " + u.errorType + ": " + firstLine(u.errorMessage));
    Comparison self = compare(expectedOf(prep), u.outputs);
    if (!self.equal) return finish(Verdict::HarnessBug, "reference and torch's per-example run disagree: " + self.detail);
    return finish(Verdict::Mismatch, loaded + cmp.detail);
  }
  // The batched run raised: a bug only if every example runs alone (in the same mode). Raised
  // past the forward pass, it may be a forward bug's wrong shape met by autograd.
  if (grad && gradientPassOf(b.traceback) != kForwardPassRaises)
    if (auto fw = forwardBug()) return finish(Verdict::Mismatch, *fw);
  const Case &failed = again && b.failedCall == 1 ? *again : c;
  if (&failed != &c) {
    r.againBatchSize = failed.spec.levels[0].size;
    r.expected = expectedOf(againPrep);
  }
  const auto failedInputs = &failed == &c ? inputs : systemInputs(againPrep);
  Outcome u = backend_.run(failed, failedInputs, RunMode::PerExample);
  account(u);
  if (u.status == Outcome::Status::HarnessError) return harnessFailed("per-example", u);
  if (u.status == Outcome::Status::Crash || u.status == Outcome::Status::Hang || u.status == Outcome::Status::Oom)
    return finish(Verdict::Invalid, "the per-example run also fails: " + u.errorMessage);
  if (u.status == Outcome::Status::Error)
    return finish(Verdict::Invalid, "torch rejects the program unbatched too: " + u.errorType + ": " + firstLine(u.errorMessage));
  // vmap refuses an in-place update that is batched where its buffer is not: a documented
  // restriction of the program (ir/buffers.h), when the case can break it and torch says so.
  if (std::string hazard = bufferBatchingHazard(failed); !hazard.empty() && saysInplaceRule(b.errorMessage))
    return finish(Verdict::Invalid, hazard + ": " + b.errorType + ": " + firstLine(b.errorMessage));
  if (!b.afterSaveLoad && saysUnsupported(b)) return finish(Verdict::Unsupported, b.errorType + ": " + firstLine(b.errorMessage));
  if (mode == Grad::VmapOf || mode == Grad::Jvp) {
    // Per-sample gradients (and jvp) need the function transform to handle the program at all:
    // where torch.func.vjp (torch.func.jvp) fails on each example alone (no vmap), the
    // composition is unsupported by this torch, not a batching bug.
    Outcome f = backend_.run(failed, failedInputs, RunMode::PerExampleFunc);
    account(f);
    if (f.status == Outcome::Status::Error)
      return finish(Verdict::Unsupported, std::string(jvp ? "torch.func.jvp" : "torch.func.vjp") +
                                              " fails on each example alone too (no vmap): " + f.errorType + ": " +
                                              firstLine(f.errorMessage));
  }
  std::string prefix = b.afterSaveLoad ? "after save/load: " : "";
  prefix += r.againBatchSize ? "on the second call, at batch size " + std::to_string(r.againBatchSize) + ": " : "";
  if (grad)
    if (std::string pass = gradientPassOf(b.traceback); !pass.empty()) prefix += pass + ": ";
  return finish(Verdict::BatchedError, prefix + b.errorType + ": " + firstLine(b.errorMessage));
}

} // namespace vf
