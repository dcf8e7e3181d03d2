#pragma once
/// The program model's dtypes as ATen scalar types, and back: the one table every layer uses.
#include <ATen/ATen.h>

#include "ir/types.h"

namespace vf {

at::ScalarType toScalarType(DType d);
/// Scalar types the program model has no name for map to f32.
DType fromScalarType(at::ScalarType s);

} // namespace vf
