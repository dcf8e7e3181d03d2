#include "harness/backends/libtorch/libtorch_vmap.h"

#include <algorithm>
#include <stdexcept>

#include <ATen/functorch/BatchedTensorImpl.h>
#include <ATen/functorch/DynamicLayer.h>

namespace vf {

namespace ft = at::functorch;

VmapLayer::VmapLayer(int64_t batchSize)
    : level_(ft::initAndPushDynamicLayer(ft::TransformType::Vmap, c10::SymInt(batchSize), ft::RandomnessType::Error)) {}

VmapLayer::~VmapLayer() { ft::popDynamicLayerAndDeleteMetadata(); }

at::Tensor addBatchDim(const at::Tensor &x, int64_t inDim, int64_t level) {
  // vmap.py wraps a negative in_dim (in_dim % arg.dim()) before _add_batch_dim, which does not.
  return ft::addBatchDim(x, at::maybe_wrap_dim(inDim, x.dim()), level);
}

at::Tensor removeBatchDim(const at::Tensor &x, int64_t level, int64_t batchSize, int64_t outDim) {
  const auto *b = ft::maybeGetBatchedImpl(x);
  if (!b || b->level() < level) {
    // Not batched at this level (it never met a batched value): every example sees the same.
    std::vector<int64_t> sizes(x.sizes().begin(), x.sizes().end());
    int64_t d = at::maybe_wrap_dim(outDim, x.dim() + 1);
    sizes.insert(sizes.begin() + d, batchSize);
    return x.unsqueeze(d).expand(sizes);
  }
  TORCH_INTERNAL_ASSERT(b->level() == level, "a value batched at level ", b->level(), " outlived its vmap");
  const at::Tensor &v = b->value();
  return v.movedim(b->bdim(), at::maybe_wrap_dim(outDim, v.dim()));
}

bool isBatched(const at::Tensor &x) { return ft::isBatchedTensor(x); }

namespace {

/// The wrapper chain of `x` from the innermost (lowest level) out, and the plain tensor inside.
struct Chain {
  at::Tensor base;
  std::vector<std::pair<int64_t, int64_t>> levelAndDim;
};

Chain peel(const at::Tensor &x) {
  Chain c;
  c.base = x;
  while (const auto *b = ft::maybeGetBatchedImpl(c.base)) {
    c.levelAndDim.emplace_back(b->level(), b->bdim());
    c.base = b->value();
  }
  std::reverse(c.levelAndDim.begin(), c.levelAndDim.end());
  return c;
}

int64_t levelBatchSize(int64_t level) {
  for (const auto &l : ft::getDynamicLayerStack())
    if (l.layerId() == level) return l.batchSize().expect_int();
  TORCH_INTERNAL_ASSERT(false, "vmap level ", level, " is not on the dynamic layer stack");
}

} // namespace

uint64_t batchedLevels(const at::Tensor &x) {
  uint64_t bits = 0;
  for (const auto &[level, dim] : peel(x).levelAndDim) bits |= uint64_t{1} << level;
  return bits;
}

at::Tensor forceBatchedAt(const at::Tensor &x, uint64_t levels) {
  uint64_t have = batchedLevels(x);
  if ((levels | have) == have) return x;
  Chain c = peel(x);
  // Rebuild from the inside out. A new level's dim is consumed by its own wrapper, so the
  // batch dims of the existing outer levels keep their positions.
  at::Tensor cur = c.base;
  size_t next = 0;
  for (int64_t level = 0; level < 64; ++level) {
    if (!((levels | have) >> level & 1)) continue;
    if (next < c.levelAndDim.size() && c.levelAndDim[next].first == level) {
      cur = ft::addBatchDim(cur, c.levelAndDim[next].second, level);
      ++next;
      continue;
    }
    std::vector<int64_t> sizes(cur.dim() + 1, -1);
    sizes[0] = levelBatchSize(level);
    cur = ft::addBatchDim(cur.unsqueeze(0).expand(sizes), 0, level);
  }
  return cur;
}

bool anyLane(const at::Tensor &x) { return peel(x).base.any().item<bool>(); }

namespace {

using Fn = std::function<std::vector<at::Tensor>(const std::vector<at::Tensor> &)>;

std::vector<at::Tensor> vmapLevel(const std::vector<VmapLevel> &levels, size_t li, const std::vector<at::Tensor> &inputs,
                                  const Fn &f);

/// One vmap level over one chunk of `size` examples (torch.vmap's _flat_vmap).
std::vector<at::Tensor> flatVmap(const std::vector<VmapLevel> &levels, size_t li, int64_t size,
                                 const std::vector<at::Tensor> &inputs, const Fn &f) {
  const VmapLevel &l = levels[li];
  VmapLayer layer(size);
  std::vector<at::Tensor> batched;
  for (size_t i = 0; i < inputs.size(); ++i)
    batched.push_back(l.in_dims[i] ? addBatchDim(inputs[i], *l.in_dims[i], layer.level()) : inputs[i]);
  std::vector<at::Tensor> outs = vmapLevel(levels, li + 1, batched, f);
  if (outs.size() != l.out_dims.size())
    throw std::invalid_argument("the program returns " + std::to_string(outs.size()) + " values but out_dims has " +
                                std::to_string(l.out_dims.size()));
  for (size_t o = 0; o < outs.size(); ++o) outs[o] = removeBatchDim(outs[o], layer.level(), size, l.out_dims[o]);
  return outs;
}

std::vector<at::Tensor> vmapLevel(const std::vector<VmapLevel> &levels, size_t li, const std::vector<at::Tensor> &inputs,
                                  const Fn &f) {
  if (li == levels.size()) return f(inputs);
  const VmapLevel &l = levels[li];
  if (!l.chunk_size) return flatVmap(levels, li, l.size, inputs, f);
  // chunk_size: split the batched inputs into chunks (tensor_split at in_dim), vmap each,
  // concatenate the outputs at out_dim (torch.vmap's _chunked_vmap).
  std::vector<int64_t> splits;
  for (int64_t at = *l.chunk_size; at < l.size; at += *l.chunk_size) splits.push_back(at);
  splits.push_back(l.size);
  std::vector<std::vector<at::Tensor>> chunkOuts;
  int64_t start = 0;
  for (size_t k = 0; k < splits.size(); ++k) {
    int64_t n = splits[k] - start;
    std::vector<at::Tensor> in;
    for (size_t i = 0; i < inputs.size(); ++i)
      in.push_back(l.in_dims[i] ? inputs[i].tensor_split(splits, *l.in_dims[i])[k] : inputs[i]);
    start = splits[k];
    if (n == 0) continue;
    chunkOuts.push_back(flatVmap(levels, li, n, in, f));
  }
  std::vector<at::Tensor> outs;
  for (size_t o = 0; o < l.out_dims.size(); ++o) {
    std::vector<at::Tensor> parts;
    for (auto &c : chunkOuts) parts.push_back(c.at(o));
    outs.push_back(at::cat(parts, l.out_dims[o]));
  }
  return outs;
}

} // namespace

std::vector<at::Tensor> vmapLevels(const std::vector<VmapLevel> &levels, const std::vector<at::Tensor> &inputs, const Fn &f) {
  return vmapLevel(levels, 0, inputs, f);
}

} // namespace vf
