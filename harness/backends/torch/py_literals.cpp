#include "harness/backends/torch/py_literals.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "harness/backends/torch/py_writer.h"

namespace vf {

std::string pyFloat(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  auto [e, ec] = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, e);
}

std::string pyDim(const std::optional<int64_t> &d) { return d ? std::to_string(*d) : "None"; }

std::string pyInDims(const VmapLevel &l) {
  std::vector<std::string> xs;
  for (const auto &d : l.in_dims) xs.push_back(pyDim(d));
  return pyTuple(xs);
}

std::string pyOutDims(const VmapLevel &l) {
  std::vector<std::string> xs;
  for (auto d : l.out_dims) xs.push_back(std::to_string(d));
  return pyTuple(xs);
}

namespace {

const char *dtypeLiteral(at::ScalarType t) {
  switch (t) {
  case at::kFloat: return "torch.float32";
  case at::kDouble: return "torch.float64";
  case at::kHalf: return "torch.float16";
  case at::kBFloat16: return "torch.bfloat16";
  case at::kLong: return "torch.int64";
  case at::kInt: return "torch.int32";
  default: return "torch.bool";
  }
}

} // namespace

std::string tensorLiteral(const at::Tensor &t) {
  std::ostringstream os;
  auto flat = t.contiguous().reshape(-1);
  bool isFloat = t.is_floating_point();
  auto d = flat.to(at::kDouble);
  auto acc = d.accessor<double, 1>();
  os << "torch.tensor([";
  for (int64_t i = 0; i < flat.numel(); ++i) {
    if (i) os << ", ";
    if (i && i % 8 == 0) os << "\n    ";
    if (isFloat) os << pyFloat(acc[i]);
    else if (t.scalar_type() == at::kBool) os << (acc[i] != 0 ? "True" : "False");
    else os << static_cast<int64_t>(acc[i]);
  }
  std::vector<std::string> dims;
  for (auto s : t.sizes()) dims.push_back(std::to_string(s));
  os << "], dtype=" << dtypeLiteral(t.scalar_type()) << ").reshape(" << pyTuple(dims) << ")";
  return os.str();
}

} // namespace vf
