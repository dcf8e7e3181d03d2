#pragma once
/// The reference's vector-Jacobian product, the oracle of the gradient modes: each example run
/// alone by the reference interpreter (native C++ control flow, no higher-order op, no vmap)
/// under LibTorch's C++ autograd, and differentiated with the case's cotangents.
///
/// The examples are sliced out of the physical inputs and their results stacked by the batch
/// spec with differentiable ATen ops (ir/unbatch.h), so one torch::autograd::grad call gives
/// every example's VJP at once, in the physical input's shape: stacked along an input's batch
/// dims, and summed over the examples of a level that does not batch the input (what the
/// gradient of the batched program is). Only floating inputs take a gradient, only floating
/// outputs a cotangent (ir/differentiable.h).
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "ir/program.h"
#include "oracles/reference.h"

namespace vf {

struct RefVjp {
  /// One per gradInputs(program), in that input's physical shape and dtype (a JVP's: one tangent
  /// per gradOutputs(program), in that output's physical shape and dtype).
  std::vector<at::Tensor> gradients;
  double minMargin = 1e300; ///< the forward's closest comparison (as RefResult::minMargin)
  /// The closest an op's argument came to a point where the op has no derivative (a kink, a
  /// clamp bound, a tie); scaled as minMargin.
  double minKink = 1e300;
  bool finite = true;  ///< every gradient is finite
  std::string error;   ///< non-empty when the program or its VJP could not be evaluated
};

/// The VJP of the batched program `c` at `physicalInputs` with `cotangents` (one per
/// gradOutputs(program), in the physical output's shape: generators/data.h makeCotangents).
RefVjp runReferenceVjp(const Case &c, const std::vector<at::Tensor> &physicalInputs,
                       const std::vector<at::Tensor> &cotangents, const RefOptions &opt = {});

/// The reference's Jacobian-vector product, the oracle of the forward-mode ("+jvp") gradient
/// modes: `gradients` holds one output tangent per gradOutputs(program), in the physical output's
/// shape and dtype (zeros where the output depends on no floating input); the other fields are
/// as for the VJP.
///
/// Computed with reverse mode only, by the double-backward trick: g(u) = J^T u, the VJP above
/// with a cotangent u that itself requires grad (create_graph), is linear in u, so J t is the
/// gradient of <g(u), t> with respect to u, exactly. Reverse mode because it is the same graph as
/// the VJP's (ir/unbatch.h stacking included) and needs only the public torch::autograd::grad;
/// LibTorch's forward AD would need its internal level API and a forward formula for every op.
/// Like the VJP it runs each example through the reference interpreter's native control flow:
/// no higher-order op, no vmap, no torch.func, so none of torch's control-flow AD is involved.
/// `tangents`: one per gradInputs(program), in the physical input's shape (generators/data.h
/// makeTangents); an input not batched at a level has one tangent shared by its examples.
using RefJvp = RefVjp;
RefJvp runReferenceJvp(const Case &c, const std::vector<at::Tensor> &physicalInputs,
                       const std::vector<at::Tensor> &tangents, const RefOptions &opt = {});

} // namespace vf
