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

/// In value terms an in-place buffer is a carry: `scan` with its buffers made carries (after
/// the carries, in arguments, parameters, yields and results) and `nbuf` dropped. The one rule
/// the reference, the libtorch lowering and the precision analysis share; `buffersBackToEnd`
/// puts the results of the rewritten scan back in the original order.
Stmt buffersAsCarries(const Stmt &scan);

/// Results of buffersAsCarries(scan), (carries, bufs, ys), reordered as `scan` gives them:
/// (carries, ys, bufs).
template <class T>
std::vector<T> buffersBackToEnd(const Stmt &scan, std::vector<T> res) {
  const auto k = static_cast<size_t>(scan.attrs.getInt("ncarry"));
  const Attr *nb = scan.attrs.find("nbuf");
  const size_t m = nb ? static_cast<size_t>(std::get<int64_t>(*nb)) : 0;
  if (m == 0 || res.size() < k + m) return res;
  std::vector<T> out(res.begin(), res.begin() + k);
  out.insert(out.end(), res.begin() + k + m, res.end());
  out.insert(out.end(), res.begin() + k, res.begin() + k + m);
  return out;
}

} // namespace vf
