#include "generators/data.h"

#include <ATen/CPUGeneratorImpl.h>

#include "ir/differentiable.h"

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

std::vector<at::Tensor> makeCotangents(const Case &c, const std::vector<at::Tensor> &outputs) {
  std::vector<at::Tensor> out;
  for (size_t j : gradOutputs(c.program)) {
    const at::Tensor &o = outputs.at(j);
    auto gen = at::make_generator<at::CPUGeneratorImpl>((c.spec.data_seed ^ 0x9e3779b97f4a7c15ULL) * 1000003ULL + j);
    out.push_back(at::randn(o.sizes(), gen, at::TensorOptions().dtype(at::kDouble)).to(o.scalar_type()));
  }
  return out;
}

std::vector<at::Tensor> makeTangents(const Case &c, const std::vector<at::Tensor> &physicalInputs) {
  std::vector<at::Tensor> out;
  for (size_t i : gradInputs(c.program)) {
    const at::Tensor &x = physicalInputs.at(i);
    auto gen = at::make_generator<at::CPUGeneratorImpl>((c.spec.data_seed ^ 0x632be59bd9b4e019ULL) * 1000033ULL + i);
    out.push_back(at::randn(x.sizes(), gen, at::TensorOptions().dtype(at::kDouble)).to(x.scalar_type()));
  }
  return out;
}

} // namespace vf
