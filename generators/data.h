#pragma once
/// Input data for a case: independent random values for every example, fixed by the seed.
#include <vector>

#include <ATen/ATen.h>

#include "ir/program.h"
#include "ir/scalar_type.h"

namespace vf {

/// The physical (batched) input tensors of `c`, drawn from `c.spec.data_seed`. Floating values
/// are standard normal; integers in [-5, 5]; bools fair coins. No two examples are copies.
/// The tensors are contiguous: the layout is applied where they are handed to vmap; only an
/// expanded layout shows in the values (they repeat along its dim).
std::vector<at::Tensor> makeInputs(const Case &c);

/// The cotangents of a gradient mode's vector-Jacobian product: one per floating output
/// (gradOutputs in ir/differentiable.h), standard normal, in the shape and dtype of that
/// physical output (`outputs`: the reference's batched outputs), drawn from the case's data
/// seed on a stream of their own (the inputs' draws are unchanged). Random, not ones: a
/// per-example mix-up cannot cancel out in a sum.
std::vector<at::Tensor> makeCotangents(const Case &c, const std::vector<at::Tensor> &outputs);

/// The tangents of a forward-mode ("+jvp") Jacobian-vector product: one per floating input
/// (gradInputs in ir/differentiable.h), standard normal, in the shape and dtype of that physical
/// (batched) input, drawn from the case's data seed on a stream of their own (neither the
/// inputs' nor the cotangents' draws change).
std::vector<at::Tensor> makeTangents(const Case &c, const std::vector<at::Tensor> &physicalInputs);

} // namespace vf
