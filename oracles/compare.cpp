#include "oracles/compare.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "ir/precision.h"
#include "ir/scalar_type.h"

namespace vf {

const std::vector<std::pair<at::ScalarType, Tolerance>> &toleranceTable() {
  static const std::vector<std::pair<at::ScalarType, Tolerance>> table = {
      {at::kHalf, {1e-2, 1e-2}},
      {at::kBFloat16, {4e-2, 4e-2}},
      {at::kFloat, {1e-4, 1e-5}},
      {at::kDouble, {1e-9, 1e-12}},
  };
  return table;
}

Tolerance toleranceFor(at::ScalarType t) {
  for (const auto &[type, tol] : toleranceTable())
    if (type == t) return tol;
  return {0, 0};
}

Tolerance toleranceFor(at::ScalarType t, std::optional<DType> precision) {
  Tolerance own = toleranceFor(t);
  if (!at::isFloatingType(t) || !precision) return own;
  Tolerance through = toleranceFor(toScalarType(*precision));
  return {std::max(own.rtol, through.rtol), std::max(own.atol, through.atol)};
}

std::vector<Tolerance> outputTolerances(const Program &p) {
  std::vector<Tolerance> out;
  auto types = outputTypes(p);
  auto precisions = outputPrecisions(p);
  for (size_t i = 0; i < types.size(); ++i) out.push_back(toleranceFor(toScalarType(types[i].dtype), precisions[i]));
  return out;
}

Tolerance gradientTolerance(at::ScalarType t, const Program &p) { return toleranceFor(t, programPrecision(p)); }

at::Tensor closeElements(const at::Tensor &expected, const at::Tensor &actual, Tolerance tol) {
  auto ed = expected.detach().to(at::kDouble), ad = actual.detach().to(at::kDouble);
  auto bothNan = at::isnan(ed) & at::isnan(ad);
  // An infinite expected value allows only itself (rtol * inf would allow anything), as
  // torch.testing.assert_close in repro.py has it.
  auto withinTol = at::isfinite(ed) & ((ed - ad).abs() <= tol.atol + tol.rtol * ed.abs());
  return (ed == ad) | withinTol | bothNan;
}

static std::string shapeText(const at::Tensor &t) {
  std::ostringstream os;
  os << t.sizes();
  return os.str();
}

std::string describeTensor(const at::Tensor &t, int maxValues) {
  std::ostringstream os;
  os << c10::toString(t.scalar_type()) << shapeText(t) << " ";
  auto flat = t.detach().to(at::kDouble).contiguous().reshape(-1);
  os << "[";
  int64_t n = std::min<int64_t>(flat.numel(), maxValues);
  auto acc = flat.accessor<double, 1>();
  for (int64_t i = 0; i < n; ++i) os << (i ? ", " : "") << acc[i];
  if (flat.numel() > n) os << ", ...";
  os << "]";
  return os.str();
}

Comparison compareOutputs(const std::vector<at::Tensor> &expected, const std::vector<at::Tensor> &actual,
                          const std::vector<Tolerance> &tolerances) {
  Comparison c;
  if (expected.size() != actual.size()) {
    c.equal = false;
    c.detail = "expected " + std::to_string(expected.size()) + " outputs, got " + std::to_string(actual.size());
    return c;
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    const at::Tensor &e = expected[i], &a = actual[i];
    std::string which = "output " + std::to_string(i) + ": ";
    if (e.sizes() != a.sizes()) {
      c.equal = false;
      c.detail = which + "shape " + shapeText(a) + " where " + shapeText(e) + " was expected";
      return c;
    }
    if (e.scalar_type() != a.scalar_type()) {
      c.equal = false;
      c.detail = which + "dtype " + std::string(c10::toString(a.scalar_type())) + " where " +
                 c10::toString(e.scalar_type()) + " was expected";
      return c;
    }
    if (e.numel() == 0) continue;
    Tolerance tol = i < tolerances.size() ? tolerances[i] : toleranceFor(e.scalar_type());
    auto close = closeElements(e, a, tol);
    if (close.all().item<bool>()) continue;
    auto ed = e.to(at::kDouble), ad = a.to(at::kDouble);
    auto bad = at::logical_not(close).reshape(-1).nonzero();
    int64_t flat = bad[0][0].item<int64_t>();
    int64_t nbad = bad.size(0);
    // Turn the flat index into a multi-index for the message.
    std::vector<int64_t> idx(e.dim());
    int64_t rem = flat;
    for (int64_t d = e.dim() - 1; d >= 0; --d) {
      idx[d] = rem % e.size(d);
      rem /= e.size(d);
    }
    std::ostringstream os;
    os << which << nbad << " of " << e.numel() << " elements differ; first at [";
    for (size_t k = 0; k < idx.size(); ++k) os << (k ? "," : "") << idx[k];
    // Enough digits to show the difference (float64 needs 17), and the allowance it exceeds.
    double ev = ed.reshape(-1)[flat].item<double>(), av = ad.reshape(-1)[flat].item<double>();
    os << std::setprecision(e.scalar_type() == at::kDouble ? 17 : 9) << "]: expected " << ev << ", got " << av;
    if (std::isfinite(ev) && std::isfinite(av) && (tol.atol > 0 || tol.rtol > 0))
      os << std::setprecision(3) << " (difference " << std::abs(ev - av) << ", allowed " << tol.atol + tol.rtol * std::abs(ev) << ")";
    c.equal = false;
    c.detail = os.str();
    return c;
  }
  return c;
}

} // namespace vf
