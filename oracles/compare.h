#pragma once
/// The comparator and its tolerance model.
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "ir/program.h"

namespace vf {

struct Tolerance {
  double rtol = 0, atol = 0;
};

/// Tolerance by dtype: exact for integers and bools; float16/bfloat16 loose; float32 allows the
/// reassociation a batched kernel may do; float64 tight.
Tolerance toleranceFor(at::ScalarType t);

/// The tolerance of a floating value of dtype `t` computed through `precision`
/// (ir/precision.h): the looser of the two dtypes' tolerances. Exact for a non-floating `t`.
Tolerance toleranceFor(at::ScalarType t, std::optional<DType> precision);

/// One tolerance per output of `p`: its dtype's, loosened to the precision it was computed in
/// (a float32 sum cast to float64 keeps float32's tolerance).
std::vector<Tolerance> outputTolerances(const Program &p);

/// The tolerance of a gradient of dtype `t` through `p`: the gradient depends on every value
/// of the program, so the least precise floating dtype anywhere in it bounds its rounding.
Tolerance gradientTolerance(at::ScalarType t, const Program &p);

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

/// Compares `actual` with `expected`: count, shapes and dtypes exactly, values within
/// `tolerances[i]` (one per output; when empty, the tolerance of each expected dtype). NaN
/// equals NaN; infinities must match exactly.
Comparison compareOutputs(const std::vector<at::Tensor> &expected, const std::vector<at::Tensor> &actual,
                          const std::vector<Tolerance> &tolerances = {});

/// Which elements of `actual` are within `tol` of `expected` (same shapes): the comparator's
/// element rule, for callers that locate the differing elements.
at::Tensor closeElements(const at::Tensor &expected, const at::Tensor &actual, Tolerance tol);

/// A short readable rendering of a tensor (shape, dtype, a few values).
std::string describeTensor(const at::Tensor &t, int maxValues = 24);

} // namespace vf
