#pragma once
/// vmap's rule for in-place ops, applied to scan's in-place buffers (ir/constructs.h, `nbuf`):
/// torch.vmap refuses `buf.add_(v)` where `v` is batched at a level that does not batch `buf`
/// ("vmap: inplace arithmetic(self, *extra_args) is not possible ...", or for add_ "output with
/// shape [...] doesn't match the broadcast shape [...]"). That is a documented restriction of
/// the program, not a bug of torch's batching; this tells the two apart from the case alone.
#include <string>

#include "ir/program.h"

namespace vf {

/// Why the case may break vmap's in-place rule, or "" when it cannot: some buffer's update may
/// be batched at a vmap level L (it depends on an input L batches; through a construct, on
/// anything the construct reads) where the buffer's initial value is not surely batched (surely:
/// an input L batches, and an op with such a value among its non-shape arguments; a construct's
/// results and parameters never count). A "" guarantees that every buffer is batched wherever its
/// update is: the generator's buffers (an exact zero computed from every input added to them)
/// always are.
std::string bufferBatchingHazard(const Case &c);

} // namespace vf
