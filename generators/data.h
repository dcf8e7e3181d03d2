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

} // namespace vf
