#pragma once
/// The batched interpreter of the libtorch backend: runs a program on values that may be
/// functorch BatchedTensors, every op through the op registry's ATen evaluation (so ATen's C++
/// batching rules run), and lowers control flow the way JAX batches it:
///
///  - cond / switch with an unbatched predicate or index: native control flow (`.item()`).
///    Batched: every branch runs, and the results are selected per example with
///    `where(pred, then, else)` (switch: the clamped index compared with each branch number).
///  - while_loop whose condition is unbatched (and no enclosing batched branch): a native loop.
///    Otherwise it runs while any example is still active (OR over every lane of the
///    physical predicate), and an example that has finished keeps its carries unchanged
///    (`where(active, body(carries), carries)`).
///  - scan: the trip count is the length of the xs, never batched. The carries are first
///    brought to a batched-ness fixpoint (which vmap levels each carry is batched at, grown
///    until running the combine function once no longer adds any), then every step starts from
///    carries batched at exactly those levels. In-place buffers ({nbuf}) are lowered as carries
///    (ir/scan_outputs.h: buffersAsCarries), their updates evaluated out of place.
///
/// A branch evaluated for examples that would not take it gets the mask of the examples that
/// would: loops inside it only wait for those. Ops are total (ir/ops.cpp), so a branch's values
/// for the other examples are finite or NaN, never an error, and `where` drops them. Loops
/// terminate for every input, taken or not: the generator's while_loop counts an integer
/// carry from branch_index (in [-3, 5]) up by one per step against a trip_limit (in [0, 4])
/// captured from outside, so at most 7 steps (generators/case_gen.cpp, whileStmt). A hand-written
/// loop that never ends stops with an error after 10000 steps, as in the reference.
///
/// With no vmap layer on the stack every value is unbatched and this is a per-example
/// interpreter with native control flow.
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "ir/program.h"

namespace vf {

/// Faults planted in the lowering, for tests that show a broken lowering is caught.
enum class LoweringFault {
  None,
  FlipSelect,    ///< a batched cond selects else where the predicate is true and vice versa
  NoWhileMask,   ///< a batched while_loop keeps updating examples that have finished
};

/// Parses a fault name ("flip-select", "no-while-mask"); nullopt-like None for "" and unknown
/// names are reported through `ok`.
LoweringFault parseLoweringFault(const std::string &name, bool &ok);

/// Runs `p` on `inputs`, batched or not.
std::vector<at::Tensor> evalBatched(const Program &p, const std::vector<at::Tensor> &inputs,
                                    LoweringFault fault = LoweringFault::None);

} // namespace vf
