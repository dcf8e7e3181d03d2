#include "generators/data.h"

#include <ATen/CPUGeneratorImpl.h>

namespace vf {

at::ScalarType toScalarType(DType d) {
  switch (d) {
  case DType::f32: return at::kFloat;
  case DType::f64: return at::kDouble;
  case DType::f16: return at::kHalf;
  case DType::bf16: return at::kBFloat16;
  case DType::i64: return at::kLong;
  case DType::i32: return at::kInt;
  case DType::b8: return at::kBool;
  }
  return at::kFloat;
}

DType fromScalarType(at::ScalarType s) {
  switch (s) {
  case at::kDouble: return DType::f64;
  case at::kHalf: return DType::f16;
  case at::kBFloat16: return DType::bf16;
  case at::kLong: return DType::i64;
  case at::kInt: return DType::i32;
  case at::kBool: return DType::b8;
  default: return DType::f32;
  }
}

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
