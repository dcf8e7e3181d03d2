#include <algorithm>
#include <chrono>
#include <regex>

#include "generators/data.h"
#include "harness/run/runner.h"
#include "ir/differentiable.h"
#include "oracles/compare.h"

namespace vf {

void addGradients(const Case &c, Prepared &p, const RunnerOptions &opt) {
  if (p.vjp) return;
  auto t0 = std::chrono::steady_clock::now();
  if (p.reference.error.empty()) {
    p.cotangents = makeCotangents(c, p.reference.outputs);
    p.vjp = runReferenceVjp(c, p.inputs, p.cotangents, {opt.float64Reference});
  } else {
    p.vjp = RefVjp{};
    p.vjp->error = p.reference.error;
  }
  p.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

namespace {

/// Which examples of the outermost vmap level have a differing gradient of input `i`: "" when
/// the shapes differ; a note when that level does not batch the input (its gradient is the sum
/// over the examples).
std::string differingExamples(const Case &c, size_t i, const at::Tensor &e, const at::Tensor &a) {
  if (e.sizes() != a.sizes() || c.spec.levels.empty()) return "";
  auto levels = physicalDimLevels(c, i);
  auto at0 = std::find(levels.begin(), levels.end(), 0);
  if (at0 == levels.end()) return "; the outer vmap level does not batch this input: its gradient sums every example's";
  int64_t d = at0 - levels.begin();
  auto close = closeElements(e, a, gradientTolerance(e.scalar_type(), c.program));
  auto bad = at::logical_not(close).movedim(d, 0).reshape({e.size(d), -1}).any(1);
  std::string list;
  int64_t n = 0;
  for (int64_t b = 0; b < bad.size(0); ++b)
    if (bad[b].item<bool>()) list += (n++ ? ", " : "") + std::to_string(b);
  return "; examples that differ (outer level, dim " + std::to_string(d) + "): [" + list + "] of " + std::to_string(e.size(d));
}

} // namespace

std::string gradientDetail(const Case &c, const std::string &detail, const std::vector<at::Tensor> &expected,
                           const std::vector<at::Tensor> &actual) {
  static const std::regex output("^output ([0-9]+): ");
  std::smatch m;
  if (!std::regex_search(detail, m, output)) return detail;
  size_t k = std::stoul(m[1].str());
  auto gin = gradInputs(c.program);
  if (k >= gin.size()) return detail;
  std::string examples = k < expected.size() && k < actual.size() ? differingExamples(c, gin[k], expected[k], actual[k]) : "";
  return "the gradient of input x" + std::to_string(c.program.body.params[gin[k]].id) + ": " + m.suffix().str() + examples;
}

std::string gradientPassOf(const std::string &traceback) {
  // The innermost of the two frames decides: a backward that re-runs a forward raises inside both.
  size_t fw = traceback.rfind("in _forward_pass"), bw = traceback.rfind("in _backward_pass");
  if (fw == std::string::npos && bw == std::string::npos) return "";
  bool backward = bw != std::string::npos && (fw == std::string::npos || bw > fw);
  return backward ? "the backward pass raises" : "the forward pass raises";
}

} // namespace vf
