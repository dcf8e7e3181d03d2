#pragma once
/// functorch's C++ vmap, driven the way torch/_functorch/vmap.py drives it through
/// torch/csrc/functorch/init.cpp: push a vmap layer on the dynamic layer stack
/// (`_vmap_increment_nesting`), wrap inputs as BatchedTensors (`_add_batch_dim`), run the
/// function, unwrap outputs (`_remove_batch_dim`), pop the layer (`_vmap_decrement_nesting`).
/// Plus the helpers the batched interpreter needs to lower control flow: which levels a value is
/// batched at, forcing a value to be batched at more levels, and OR over every lane.
#include <cstdint>
#include <functional>
#include <vector>

#include <ATen/ATen.h>

#include "ir/program.h"

namespace vf {

/// One vmap level on the dynamic layer stack for the guard's lifetime (popped on exceptions).
class VmapLayer {
public:
  explicit VmapLayer(int64_t batchSize);
  ~VmapLayer();
  VmapLayer(const VmapLayer &) = delete;
  VmapLayer &operator=(const VmapLayer &) = delete;
  int64_t level() const { return level_; }

private:
  int64_t level_;
};

/// `_add_batch_dim`: `x` seen at `level` with dim `inDim` as its batch dim.
at::Tensor addBatchDim(const at::Tensor &x, int64_t inDim, int64_t level);
/// `_remove_batch_dim`: the batch dim of `level` turned into dim `outDim` (negative allowed);
/// a value not batched at `level` is expanded to `batchSize` there.
at::Tensor removeBatchDim(const at::Tensor &x, int64_t level, int64_t batchSize, int64_t outDim);

/// True when `x` is a BatchedTensor (at any level): its per-example values may differ.
bool isBatched(const at::Tensor &x);
/// The levels `x` is batched at, as a bit set (bit L for level L).
uint64_t batchedLevels(const at::Tensor &x);
/// `x` batched at every level in `levels` (a superset of its own): the missing levels are
/// added as expanded (stride-0) batch dims. Needs those levels on the stack.
at::Tensor forceBatchedAt(const at::Tensor &x, uint64_t levels);
/// OR over every lane of every level of a bool value (its physical tensor): is any example active?
bool anyLane(const at::Tensor &x);

/// Runs `f` under vmap with `levels` (outermost first), in_dims, out_dims and chunk_size as
/// torch.vmap does: the batched counterpart of oracles/reference.h's unbatch().
std::vector<at::Tensor> vmapLevels(const std::vector<VmapLevel> &levels, const std::vector<at::Tensor> &inputs,
                                   const std::function<std::vector<at::Tensor>(const std::vector<at::Tensor> &)> &f);

} // namespace vf
