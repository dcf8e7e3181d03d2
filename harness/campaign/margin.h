#pragma once
/// Cases whose predicates keep a margin from their decision boundary: the structure is drawn
/// once, then the data is re-drawn (a new data seed, same program and batch spec) while any
/// predicate, switch index or trip count of the per-example run sits within the ambiguity
/// margin of the value where it would flip, or a restricted-domain op on an example's taken path
/// (sqrt, log, acos, div) leaves its domain or comes within the margin of its edge.
#include <cstdint>
#include <optional>

#include "ir/program.h"
#include "oracles/reference.h"

namespace vf {

struct DrawnCase {
  Case c;
  int redraws = 0;          ///< data re-draws it took
  bool nearBoundary = false; ///< still within the margin after its re-draws
  /// The final data's inputs and reference result, which the runners reuse (Runner::prepare);
  /// unset for GPU-tier cases, which are not evaluated here.
  std::optional<Evaluated> evaluated;
};

/// Re-draws `c`'s data until its predicates keep their margin, at most `maxRedraws` times, and
/// stops early when two draws in a row come exactly as close to a boundary: then the data does
/// not move it (a comparison of a value with itself, an integer predicate at its threshold, a
/// constant outside a domain), and more draws would only cost reference runs.
/// GPU-tier cases (values past 2^16 elements per input) are not evaluated here and keep their
/// first data.
DrawnCase keepMargin(Case c, int maxRedraws);

} // namespace vf
