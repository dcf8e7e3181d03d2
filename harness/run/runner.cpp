#include "harness/run/runner.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <regex>

#include "generators/data.h"
#include "harness/backends/exec_config.h"
#include "harness/run/classify.h"
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

} // namespace

bool saysInplaceRule(const std::string &message) {
  static const std::regex re("vmap: inplace arithmetic\\(self, \\*extra_args\\) is not possible|"
                             "output with shape (\\[[^\\]]{0,60}\\]|torch\\.Size\\(\\[[^\\]]{0,60}\\]\\)) doesn't match the broadcast shape");
  return std::regex_search(message, re);
}

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

namespace {

/// Gathers what `classify` needs for one case on one system: the reference's facts, the batched
/// run, and each further run only when the decision asks for it. It only runs and compares; the
/// verdict is classify's. Its CaseResult carries the timings and what the finding shows.
class Observer {
public:
  Observer(Backend &backend, const Case &c, const Prepared &prep, Runner &runner, CaseResult &r)
      : b_(backend), c_(c), prep_(prep), runner_(runner), r_(r), mode_(backend.grad()) {}

  /// The facts of the reference, before any run of the system.
  Observations reference() const {
    Observations o;
    const RefResult &ref = prep_.reference;
    o.grad = mode_;
    o.precompile = r_.system.exec.precompile;
    o.referenceError = ref.error;
    if (grad()) {
      o.gradInputs = !gradInputs(c_.program).empty();
      o.derivativeError = prep_.derivatives(mode_)->error;
    }
    o.boundary = boundaryOf(prep_);
    o.forwardBoundary = std::min(ref.minMargin, ref.domain.min);
    o.domainReason = ref.domain.reason(kAmbiguityMargin);
    return o;
  }

  void gather(Decision::Need need, Observations &o) {
    switch (need) {
    case Decision::Need::Batched: batched(o); break;
    case Decision::Need::Forward: forward(o); break;
    case Decision::Need::PerExample: o.perExample = perExample(o, RunMode::PerExample); break;
    case Decision::Need::PerExampleFunc: o.perExampleFunc = perExample(o, RunMode::PerExampleFunc); break;
    case Decision::Need::Nothing: break;
    }
  }

  /// Puts the results a finding shows into the CaseResult.
  void show(Shown shown) {
    if (shown == Shown::SecondCall) {
      r_.againBatchSize = again_->spec.levels[0].size;
      r_.expected = expectedOf(againPrep_);
      if (batched_.status == Outcome::Status::Ok) r_.actual = batched_.againOutputs;
    } else if (shown == Shown::ForwardOnly) {
      r_.expected = prep_.reference.outputs;
      r_.actual = forward_;
      r_.tolerances = outputTolerances(c_.program);
      r_.forwardDiffers = true;
      r_.errorType.clear(); // what autograd made of the wrong forward values is not the finding
      r_.errorMessage.clear();
      r_.traceback.clear();
      r_.raisingPass.clear();
    }
  }

private:
  Backend &b_;
  const Case &c_;
  const Prepared &prep_;
  Runner &runner_;
  CaseResult &r_;
  const Grad mode_;
  std::optional<Case> again_; ///< a compiled function's second call: the case at another batch size
  Prepared againPrep_;
  Outcome batched_;
  std::vector<at::Tensor> forward_;

  bool grad() const { return mode_ != Grad::None; }

  void account(const Outcome &o) {
    r_.systemSeconds += o.systemSeconds;
    r_.emitSeconds += o.emitSeconds;
    r_.transportSeconds += o.transportSeconds;
    r_.workerSeconds += o.workerSeconds;
    r_.workerRssKb = std::max(r_.workerRssKb, o.workerRssKb);
  }

  /// Every comparison is of the same program's outputs (or gradients): with r.tolerances.
  Comparison compare(const std::vector<at::Tensor> &expected, const std::vector<at::Tensor> &actual,
                     const std::vector<Tolerance> *tolerances = nullptr) {
    auto tc = std::chrono::steady_clock::now();
    Comparison cmp = compareOutputs(expected, actual, tolerances ? *tolerances : r_.tolerances);
    if (grad() && !tolerances && !cmp.equal) cmp.detail = gradientDetail(c_, cmp.detail, expected, actual, forwardMode(mode_));
    r_.compareSeconds += since(tc);
    return cmp;
  }

  /// What the system is given, and what it must return: in a gradient mode the cotangents (the
  /// tangents) follow the inputs, and the gradients (the output tangents) are expected.
  std::vector<at::Tensor> systemInputs(const Prepared &p) const {
    std::vector<at::Tensor> in = p.inputs;
    if (grad()) in.insert(in.end(), p.directions(mode_).begin(), p.directions(mode_).end());
    return in;
  }
  const std::vector<at::Tensor> &expectedOf(const Prepared &p) const {
    return grad() ? p.derivatives(mode_)->gradients : p.reference.outputs;
  }
  /// Where a comparison, a kink, a non-finite reference gradient or a taken path outside (or at
  /// the edge of) an op's domain makes a difference unreliable.
  double boundaryOf(const Prepared &p) const {
    double m = std::min(p.reference.minMargin, p.reference.domain.min);
    if (const RefVjp *d = grad() ? p.derivatives(mode_) : nullptr) m = std::min({m, d->minMargin, d->minKink, d->finite ? 1e300 : 0.0});
    return m;
  }

  /// Each output's tolerance follows the precision it was computed in (ir/precision.h); a
  /// gradient depends on the whole program.
  std::vector<Tolerance> tolerancesOf(const std::vector<at::Tensor> &expected) const {
    if (!grad()) return outputTolerances(c_.program);
    std::vector<Tolerance> t;
    const auto precision = programPrecision(c_.program);
    for (const auto &e : expected) t.push_back(toleranceFor(e.scalar_type(), precision));
    return t;
  }

  /// The batched run; a compiled function is called a second time at another batch size: its
  /// guards must recompile or generalise, never return a stale result.
  void batched(Observations &o) {
    r_.expected = expectedOf(prep_);
    r_.tolerances = tolerancesOf(r_.expected);
    if (b_.checksRecompiles()) {
      again_ = atAnotherBatchSize(c_);
      againPrep_ = runner_.prepare(*again_);
      r_.referenceSeconds += againPrep_.seconds;
      if (!againPrep_.reference.error.empty()) again_.reset();
    }
    const auto inputs = systemInputs(prep_);
    batched_ = again_ ? b_.runTwice(c_, inputs, *again_, systemInputs(againPrep_)) : b_.run(c_, inputs, RunMode::Batched);
    const Outcome &b = batched_;
    account(b);
    r_.errorType = b.errorType;
    r_.errorMessage = b.errorMessage;
    r_.traceback = b.traceback;
    r_.raisingPass = b.raisingPass;
    r_.actual = b.outputs;
    r_.pyCoverage = std::move(batched_.pyCoverage);
    o.batchedRan = true;
    o.batched = b.status;
    o.errorType = b.errorType;
    o.errorMessage = b.errorMessage;
    o.afterSaveLoad = b.afterSaveLoad;
    if (again_) {
      o.again = true;
      o.firstSize = c_.spec.levels[0].size;
      o.againSize = again_->spec.levels[0].size;
      o.againBoundary = boundaryOf(againPrep_);
    }
    if (b.status == Outcome::Status::Ok) {
      o.first = compare(expectedOf(prep_), b.outputs);
      if (o.first.equal && again_) o.second = compare(expectedOf(againPrep_), b.againOutputs);
    } else if (b.status == Outcome::Status::Error) {
      o.failedOnSecondCall = again_ && b.failedCall == 1;
      if (grad()) o.gradientPass = passPhrase(b.raisingPass);
      o.bufferHazard = bufferBatchingHazard(failedCase(o));
      o.saysInplaceRule = saysInplaceRule(b.errorMessage);
      o.saysUnsupported = saysUnsupported(b);
      o.torchLacks = b.torchLacks;
    }
  }

  /// A gradient mode's batched forward values alone, no derivative.
  void forward(Observations &o) {
    Outcome f = b_.run(c_, prep_.inputs, RunMode::BatchedForward);
    account(f);
    RunObservation w{f.status, f.errorType, f.errorMessage, {}};
    if (f.status == Outcome::Status::Ok) {
      const std::vector<Tolerance> tol = outputTolerances(c_.program);
      w.cmp = compare(prep_.reference.outputs, f.outputs, &tol);
      forward_ = f.outputs;
    }
    o.forward = w;
  }

  const Case &failedCase(const Observations &o) const { return o.failedOnSecondCall ? *again_ : c_; }

  /// Each example alone (RunMode::PerExample, or through the function transform), of the call
  /// that failed; its values are compared where the batched run returned some.
  RunObservation perExample(const Observations &o, RunMode mode) {
    const Case &failed = failedCase(o);
    Outcome u = b_.run(failed, systemInputs(o.failedOnSecondCall ? againPrep_ : prep_), mode);
    account(u);
    RunObservation w{u.status, u.errorType, u.errorMessage, {}};
    if (mode == RunMode::PerExample && u.status == Outcome::Status::Ok && o.batched == Outcome::Status::Ok)
      w.cmp = compare(expectedOf(prep_), u.outputs);
    return w;
  }
};

} // namespace

CaseResult Runner::run(const Case &c, const Prepared &given) {
  auto t0 = std::chrono::steady_clock::now();
  // A gradient mode compares the gradients of the floating inputs (a VJP with the case's
  // cotangents) instead of the outputs, a forward-mode one the tangents of the floating outputs
  // (a JVP with the case's tangents); the reference's is added when another mode prepared.
  const Grad mode = backend_.grad();
  std::optional<Prepared> withGrad;
  if (mode != Grad::None && !given.derivatives(mode)) {
    withGrad = given;
    addGradients(c, *withGrad, opt_, mode);
  }
  const Prepared &prep = withGrad ? *withGrad : given;
  CaseResult r;
  r.system = backend_.id();
  r.referenceSeconds = prep.seconds;
  Observer observer(backend_, c, prep, *this, r);
  Observations o = observer.reference();
  for (Decision d = classify(o);; d = classify(o)) {
    if (d.need != Decision::Need::Nothing) {
      observer.gather(d.need, o);
      continue;
    }
    observer.show(d.shown);
    r.verdict = d.verdict;
    r.summary = std::move(d.summary);
    r.totalSeconds = since(t0) + prep.seconds;
    return r;
  }
}

} // namespace vf
