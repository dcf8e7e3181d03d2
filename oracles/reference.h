#pragma once
/// The reference interpreter: runs a program on each example alone, on CPU, with native C++
/// control flow and no vmap, then stacks the per-example results the way vmap would.
///
/// Semantics, per construct:
///  - op: the registry's ATen evaluation of the op on this example's values.
///  - cond(pred, operands...) [then, else]: reads the one-element bool `pred`; runs only the
///    chosen region with its parameters bound to the operands (captured outer values are read
///    directly); the construct's results are that region's yields. With {pred=B} the
///    predicate is the Python bool B and every argument is an operand.
///  - switch(index, operands...) [branches...]: index clamped into [0, branches); runs that one.
///  - while_loop(carries...) [cond_fn, body_fn]: while cond_fn(carries) is true, carries =
///    body_fn(carries); results are the final carries (a native C++ loop).
///  - scan(carries..., xs...) {ncarry, reverse} [combine_fn]: for t over dim 0 of the xs
///    (backwards when reversed), (carries, y_t) = combine_fn(carries, xs[t]); results are the
///    final carries and each y stacked at dim 0 by t. With {nbuf=M}, the last M arguments are
///    in-place buffers: combine_fn sees each buffer's value at the start of the step and yields
///    its value after the step's in-place update (add_ / mul_ / copy_, evaluated out of place),
///    which the next step sees: a buffer accumulates exactly as a carry does, and its final
///    value is a result. That is torch's semantics for a mutated additional input (one tensor
///    for every step, updated in place).
///  - vmap(operands...) [fn]: fn on each slice of the mapped operands alone, stacked at out_dims.
///  - grad(operands...) {argnums} [fn]: fn under LibTorch's C++ autograd, differentiated with
///    respect to the argnums operands (torch::autograd::grad; zero where unused); a kink an op's
///    argument came near inside fn counts as a margin, since the gradient jumps there.
///  - jvp(primals..., tangents...) [fn]: fn's yields and their tangents J t, by LibTorch's
///    reverse mode (the double-backward trick of reference_grad.h); kinks as for grad.
#include <string>
#include <unordered_map>
#include <vector>

#include <ATen/ATen.h>

#include "ir/program.h"

namespace vf {

struct RefOptions {
  bool float64 = false; ///< compute floating values in float64, cast results back
};

/// The closest that a restricted-domain op (sqrt, log, acos, div) an example actually ran, on
/// the path it took, came to the edge of the op's domain (EvalCtx::minDomain): negative when it
/// left it. Untaken branches are never run by the reference, so they never count.
struct DomainNote {
  double min = 1e300;
  std::string op; ///< the op that came closest
  void note(double m, const std::string &o) {
    if (m < min) min = m, op = o;
  }
  bool left() const { return min < 0; }
  /// Why a difference next to it is no finding; "" when the domain kept the ambiguity margin.
  std::string reason(double margin) const;
};

struct RefResult {
  std::vector<at::Tensor> outputs; ///< batched like vmap's outputs (out_dims applied)
  double minMargin = 1e300;        ///< closest any float comparison came to flipping
  DomainNote domain;               ///< closest a taken path came to leaving an op's domain
  std::string error;               ///< non-empty when an example could not be evaluated
};

/// Runs one example's program (inputs already unbatched). With `minKink`, also records how close
/// an op's argument came to a point where the op has no derivative (EvalCtx::minKink); with
/// `domain`, how close a restricted-domain op came to its domain's edge. `precision`: the
/// program's valuePrecisions (ir/precision.h), which margins are judged in; computed here when
/// null (a caller that runs every example passes it once).
std::vector<at::Tensor> evalProgram(const Program &p, const std::vector<at::Tensor> &inputs, double &minMargin,
                                    bool float64 = false, double *minKink = nullptr, DomainNote *domain = nullptr,
                                    const std::unordered_map<ValueId, DType> *precision = nullptr);

/// Runs every example of `c` alone and stacks the results by the batch spec.
RefResult runReference(const Case &c, const std::vector<at::Tensor> &physicalInputs, const RefOptions &opt = {});

/// A case's inputs (generators/data.h makeInputs) and the reference's result on them.
struct Evaluated {
  std::vector<at::Tensor> inputs;
  RefResult reference;
  RefOptions options;  ///< what the reference was computed with
  double seconds = 0;  ///< the time both took
};

} // namespace vf
