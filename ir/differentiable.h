#pragma once
/// Which values of a program take part in a vector-Jacobian product (the gradient modes): the
/// floating inputs get a gradient and the floating outputs a cotangent. Integer and bool values
/// have no derivative. The one rule the cotangent generator, the reference's VJP and the
/// emitted Python all read.
#include <cstddef>
#include <vector>

#include "ir/program.h"

namespace vf {

/// Indices (into the program's inputs) of the inputs that get a gradient.
std::vector<size_t> gradInputs(const Program &p);
/// Indices (into the program's outputs) of the outputs that get a cotangent.
std::vector<size_t> gradOutputs(const Program &p);

} // namespace vf
