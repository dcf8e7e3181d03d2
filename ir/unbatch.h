#pragma once
/// The per-example meaning of a batch spec, shared by the reference and the libtorch backend's
/// per-example run.
#include <functional>
#include <vector>

#include <ATen/ATen.h>

#include "ir/program.h"

namespace vf {

/// Applies `perExample` to every example of the batch spec's levels (slicing inputs by in_dims)
/// and stacks the outputs by out_dims: the per-example meaning of vmap.
std::vector<at::Tensor> unbatch(const std::vector<VmapLevel> &levels, const std::vector<at::Tensor> &inputs,
                                const std::function<std::vector<at::Tensor>(const std::vector<at::Tensor> &)> &perExample);

} // namespace vf
