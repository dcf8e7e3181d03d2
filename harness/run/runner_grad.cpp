#include <algorithm>
#include <chrono>
#include <regex>

#include "generators/data.h"
#include "harness/run/runner.h"
#include "ir/differentiable.h"
#include "oracles/compare.h"

namespace vf {

void addGradients(const Case &c, Prepared &p, const RunnerOptions &opt, Grad g) {
  if (g == Grad::None || p.derivatives(g)) return;
  auto t0 = std::chrono::steady_clock::now();
  auto &d = forwardMode(g) ? p.jvp : p.vjp;
  if (!p.reference.error.empty()) {
    d = RefVjp{};
    d->error = p.reference.error;
  } else if (forwardMode(g)) {
    p.tangents = makeTangents(c, p.inputs);
    p.jvp = runReferenceJvp(c, p.inputs, p.tangents, {opt.float64Reference});
  } else {
    p.cotangents = makeCotangents(c, p.reference.outputs);
    p.vjp = runReferenceVjp(c, p.inputs, p.cotangents, {opt.float64Reference});
  }
  p.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

namespace {

/// "; examples that differ (outer level, dim d): [...] of N": the slices along dim `d` (the outer
/// level's batch dim) in which some element of `e` and `a` differs beyond the gradient tolerance.
std::string examplesAlong(const Case &c, int64_t d, const at::Tensor &e, const at::Tensor &a) {
  auto close = closeElements(e, a, gradientTolerance(e.scalar_type(), c.program));
  auto bad = at::logical_not(close).movedim(d, 0).reshape({e.size(d), -1}).any(1);
  std::string list;
  int64_t n = 0;
  for (int64_t b = 0; b < bad.size(0); ++b)
    if (bad[b].item<bool>()) list += (n++ ? ", " : "") + std::to_string(b);
  return "; examples that differ (outer level, dim " + std::to_string(d) + "): [" + list + "] of " + std::to_string(e.size(d));
}

/// Which examples of the outermost vmap level have a differing gradient of input `i`: "" when
/// the shapes differ; a note when that level does not batch the input (its gradient is the sum
/// over the examples).
std::string differingExamples(const Case &c, size_t i, const at::Tensor &e, const at::Tensor &a) {
  if (e.sizes() != a.sizes() || c.spec.levels.empty()) return "";
  auto levels = physicalDimLevels(c, i);
  auto at0 = std::find(levels.begin(), levels.end(), 0);
  if (at0 == levels.end()) return "; the outer vmap level does not batch this input: its gradient sums every example's";
  int64_t d = at0 - levels.begin();
  return examplesAlong(c, d, e, a);
}

/// Which examples of the outermost vmap level have a differing tangent of output `j`: every
/// output carries that level's batch dim, at its out_dim.
std::string differingOutputExamples(const Case &c, size_t j, const at::Tensor &e, const at::Tensor &a) {
  if (e.sizes() != a.sizes() || c.spec.levels.empty() || e.dim() == 0) return "";
  int64_t d = c.spec.levels[0].out_dims.at(j);
  if (d < 0) d += e.dim();
  if (d < 0 || d >= e.dim()) return "";
  return examplesAlong(c, d, e, a);
}

} // namespace

std::string gradientDetail(const Case &c, const std::string &detail, const std::vector<at::Tensor> &expected,
                           const std::vector<at::Tensor> &actual, bool jvp) {
  static const std::regex output("^output ([0-9]+): ");
  std::smatch m;
  if (!std::regex_search(detail, m, output)) return detail;
  size_t k = std::stoul(m[1].str());
  if (jvp) {
    auto gout = gradOutputs(c.program);
    if (k >= gout.size()) return detail;
    std::string examples = k < expected.size() && k < actual.size() ? differingOutputExamples(c, gout[k], expected[k], actual[k]) : "";
    return "the tangent of output " + std::to_string(gout[k]) + " (%" + std::to_string(c.program.body.yields.at(gout[k])) +
           "): " + m.suffix().str() + examples;
  }
  auto gin = gradInputs(c.program);
  if (k >= gin.size()) return detail;
  std::string examples = k < expected.size() && k < actual.size() ? differingExamples(c, gin[k], expected[k], actual[k]) : "";
  return "the gradient of input x" + std::to_string(c.program.body.params[gin[k]].id) + ": " + m.suffix().str() + examples;
}

std::string passPhrase(const std::string &raisingPass) {
  if (raisingPass == "forward") return kForwardPassRaises;
  if (raisingPass == "backward") return kBackwardPassRaises;
  if (raisingPass == "tangent") return kTangentPassRaises;
  return "";
}

SystemId findingSystem(const CaseResult &r) {
  const bool forwardBug =
      r.forwardDiffers || (r.verdict == Verdict::BatchedError && r.raisingPass == "forward");
  return forwardBug ? r.system.forward() : r.system;
}

} // namespace vf
