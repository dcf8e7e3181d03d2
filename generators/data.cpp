#include "generators/data.h"

#include <ATen/CPUGeneratorImpl.h>

namespace vf {

std::vector<at::Tensor> makeInputs(const Case &c) {
  std::vector<at::Tensor> out;
  for (size_t i = 0; i < c.program.body.params.size(); ++i) {
    Type t = physicalInputType(c, i);
    auto gen = at::make_generator<at::CPUGeneratorImpl>(c.spec.data_seed * 1000003ULL + i);
    at::Tensor x;
    if (isFloating(t.dtype)) {
      x = at::randn(t.shape, gen, at::TensorOptions().dtype(at::kDouble)).to(toScalarType(t.dtype));
    } else if (t.dtype == DType::b8) {
      x = at::randint(0, 2, t.shape, gen, at::TensorOptions().dtype(at::kLong)).to(at::kBool);
    } else {
      x = at::randint(-5, 6, t.shape, gen, at::TensorOptions().dtype(at::kLong)).to(toScalarType(t.dtype));
    }
    // An expanded layout has stride 0 along its dim: its values repeat along it (a per-example
    // dim, so examples still differ).
    Layout l = c.spec.layoutOf(i);
    if (l.kind == Layout::Kind::Expanded && l.dim < x.dim() && x.size(l.dim) > 0)
      x = x.narrow(l.dim, 0, 1).expand(x.sizes()).contiguous();
    out.push_back(x);
  }
  return out;
}

} // namespace vf
