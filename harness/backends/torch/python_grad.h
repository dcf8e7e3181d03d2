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
/// In a forward-mode ("+jvp") mode every function takes the physical inputs, then one tangent per
/// floating input, and returns the tangent of each floating output, in the physical output's shape:
///  - `batched_jvp`: torch.func.jvp of the vmapped program (`func_jvp_of(batched)`);
///  - `per_example_func_jvp`: torch.func.jvp of the per-example loop (the transform, no vmap);
///  - `per_example_jvp_by_rows`: plain reverse-mode autograd of each example alone (`jvp_by_rows`
///    of the program in a Python loop per level), one backward per output element of that example
///    (a Jacobian row) dotted with its tangents: the per-example check and repro.py's expected side.
#include <string>

#include "harness/backends/exec_config.h"
#include "ir/program.h"

namespace vf {

/// The gradient functions for `c` in mode `g` ("" for Grad::None).
std::string gradFunctions(const Case &c, Grad g);

} // namespace vf
