#include "ir/scalar_type.h"

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

} // namespace vf
