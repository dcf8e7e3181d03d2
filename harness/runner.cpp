#include "harness/runner.h"

#include <algorithm>
#include <chrono>
#include <regex>

#include "generators/data.h"
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
      "KeyError\\(<TransformType\\.Vmap",
      std::regex::icase);
  return std::regex_search(o.errorType + ": " + o.errorMessage, re);
}

std::string firstLine(const std::string &s) { return errorGist(s).substr(0, 300); }

} // namespace

CaseResult Runner::run(const Case &c) {
  auto t0 = std::chrono::steady_clock::now();
  CaseResult r;
  auto account = [&r](const Outcome &o) {
    r.systemSeconds += o.systemSeconds;
    r.emitSeconds += o.emitSeconds;
    r.transportSeconds += o.transportSeconds;
    r.workerSeconds += o.workerSeconds;
    r.workerRssKb = std::max(r.workerRssKb, o.workerRssKb);
  };
  auto compare = [&r](const std::vector<at::Tensor> &a, const std::vector<at::Tensor> &b) {
    auto tc = std::chrono::steady_clock::now();
    Comparison cmp = compareOutputs(a, b);
    r.compareSeconds += since(tc);
    return cmp;
  };
  auto inputs = makeInputs(c);
  RefResult ref = runReference(c, inputs, {opt_.float64Reference});
  r.referenceSeconds = since(t0);
  auto finish = [&](Verdict v, std::string summary) {
    r.verdict = v;
    r.summary = std::move(summary);
    r.totalSeconds = since(t0);
    return r;
  };
  if (!ref.error.empty()) return finish(Verdict::Invalid, "the reference interpreter rejects the program: " + firstLine(ref.error));
  r.expected = ref.outputs;
  // A comparison near its boundary only matters when the results differ: then rounding may
  // have flipped it, and the case is discarded rather than reported.
  bool nearBoundary = ref.minMargin < kAmbiguityMargin;

  Outcome b = backend_.run(c, inputs, RunMode::Batched);
  account(b);
  r.errorType = b.errorType;
  r.errorMessage = b.errorMessage;
  r.traceback = b.traceback;
  r.actual = b.outputs;
  if (b.status == Outcome::Status::Crash) return finish(Verdict::Crash, b.errorMessage);
  if (b.status == Outcome::Status::Hang) return finish(Verdict::Hang, b.errorMessage);
  if (b.status == Outcome::Status::Ok) {
    Comparison cmp = compare(ref.outputs, b.outputs);
    if (cmp.equal) return finish(Verdict::Pass, "");
    if (nearBoundary)
      return finish(Verdict::Ambiguous, "results differ, but a comparison was within " + std::to_string(ref.minMargin) +
                                            " of its boundary: " + cmp.detail);
    // Before calling it a bug, the system's own per-example run must agree with our reference:
    // otherwise the emitter or the reference is wrong, not torch's batching.
    Outcome u = backend_.run(c, inputs, RunMode::PerExample);
    account(u);
    if (u.status != Outcome::Status::Ok)
      return finish(Verdict::Invalid, "the per-example run fails: " + u.errorType + ": " + firstLine(u.errorMessage));
    Comparison self = compare(ref.outputs, u.outputs);
    if (!self.equal) return finish(Verdict::HarnessBug, "reference and torch's per-example run disagree: " + self.detail);
    return finish(Verdict::Mismatch, cmp.detail);
  }
  // The batched run raised: a bug only if every example runs alone.
  Outcome u = backend_.run(c, inputs, RunMode::PerExample);
  account(u);
  if (u.status == Outcome::Status::Crash || u.status == Outcome::Status::Hang)
    return finish(Verdict::Invalid, "the per-example run also fails: " + u.errorMessage);
  if (u.status == Outcome::Status::Error)
    return finish(Verdict::Invalid, "torch rejects the program unbatched too: " + u.errorType + ": " + firstLine(u.errorMessage));
  if (saysUnsupported(b)) return finish(Verdict::Unsupported, b.errorType + ": " + firstLine(b.errorMessage));
  return finish(Verdict::BatchedError, b.errorType + ": " + firstLine(b.errorMessage));
}

} // namespace vf
