#pragma once
/// Python literals of the values a case carries: floats, dims, vmap levels' in_dims/out_dims,
/// and tensors (repro.py's inputs).
#include <cstdint>
#include <optional>
#include <string>

#include <ATen/ATen.h>

#include "ir/program.h"

namespace vf {

/// A float as Python reads it back exactly (shortest round trip; `nan`, `inf`, `-inf`).
std::string pyFloat(double d);
/// A dim or `None`.
std::string pyDim(const std::optional<int64_t> &d);
/// A level's in_dims as a tuple: `(0, None)`.
std::string pyInDims(const VmapLevel &l);
/// A level's out_dims as a tuple: `(0,)`.
std::string pyOutDims(const VmapLevel &l);
/// `torch.tensor([...], dtype=...).reshape(...)`, eight values a line.
std::string tensorLiteral(const at::Tensor &t);

} // namespace vf
