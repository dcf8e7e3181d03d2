#pragma once
/// The Python of the gradient modes (ExecConfig::grad), appended to the emitted module: every
/// function takes the physical inputs, then one cotangent per floating output, and returns the
/// gradient of each floating input (ir/differentiable.h), in the physical input's shape.
///  - `vjp_of(fn)`: fn's vector-Jacobian product by torch.autograd.grad. The worker and repro.py
///    wrap `batched` (grad of vmap, "+grad") and `per_example` (every mode's per-example check).
///  - `batched_vjp` ("+vmap-grad"): torch.func.vjp of the program for one example, under one
///    torch.vmap per level; a level that does not batch an input sums its per-example gradients
///    (what the gradient of the batched program is), one that does moves them to its in_dim.
///  - `per_example_func_vjp`: the same with Python loops instead of torch.vmap (the function
///    transform alone, without batching).
#include <string>

#include "harness/backends/exec_config.h"
#include "ir/program.h"

namespace vf {

/// The gradient functions for `c` in mode `g` ("" for Grad::None).
std::string gradFunctions(const Case &c, Grad g);

} // namespace vf
