#pragma once
/// The comparator and its tolerance model.
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

namespace vf {

struct Tolerance {
  double rtol = 0, atol = 0;
};

/// Tolerance by dtype: exact for integers and bools; float16/bfloat16 loose; float32 allows the
/// reassociation a batched kernel may do; float64 tight.
Tolerance toleranceFor(at::ScalarType t);

/// Every dtype with a non-zero tolerance, and its tolerance: the table toleranceFor reads (every
/// other dtype is compared exactly). A filed repro.py is emitted from it, so that it judges a
/// case as the campaign did.
const std::vector<std::pair<at::ScalarType, Tolerance>> &toleranceTable();

/// Margin below which a float comparison is called ambiguous (rounding may flip it).
/// float32 rounding differences between a batched and an unbatched kernel are around 1e-6
/// relative; 1e-4 leaves a wide safety factor while discarding few cases.
constexpr double kAmbiguityMargin = 1e-4;

struct Comparison {
  bool equal = true;
  std::string detail; ///< first difference, readable: output, shape/dtype or index and values
};

/// Compares `actual` with `expected`: count, shapes and dtypes exactly, values within the
/// tolerance of the expected dtype. NaN equals NaN; infinities must match exactly.
Comparison compareOutputs(const std::vector<at::Tensor> &expected, const std::vector<at::Tensor> &actual);

/// A short readable rendering of a tensor (shape, dtype, a few values).
std::string describeTensor(const at::Tensor &t, int maxValues = 24);

} // namespace vf
