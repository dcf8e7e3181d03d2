#pragma once
/// How a scan's per-step outputs become its results: the one rule the reference and the
/// libtorch lowering share (the construct itself: ir/constructs.h).
#include <vector>

#include <ATen/ATen.h>

#include "ir/program.h"

namespace vf {

/// The ys of `scan`, each stacked at dim 0 in the order of the xs: `ys[y]` holds the y-th
/// output of every step in the order the steps ran, so a reversed scan's are flipped first.
/// A scan of no steps gives empty tensors of its declared result types.
std::vector<at::Tensor> stackScanOutputs(const Stmt &scan, std::vector<std::vector<at::Tensor>> ys);

} // namespace vf
