#pragma once
/// Cases whose predicates keep a margin from their decision boundary: the structure is drawn
/// once, then the data is re-drawn (a new data seed, same program and batch spec) while any
/// predicate, switch index or trip count of the per-example run sits within the ambiguity
/// margin of the value where it would flip, or a restricted-domain op on an example's taken path
/// (sqrt, log, acos, div) leaves its domain or comes within the margin of its edge.
#include <cstdint>

#include "ir/program.h"

namespace vf {

struct DrawnCase {
  Case c;
  int redraws = 0;          ///< data re-draws it took
  bool nearBoundary = false; ///< still within the margin after policy.maxRedraws re-draws
};

/// Re-draws `c`'s data until its predicates keep their margin (at most `maxRedraws` times).
/// GPU-tier cases (values past 2^16 elements per input) are not evaluated here and keep their
/// first data.
DrawnCase keepMargin(Case c, int maxRedraws);

} // namespace vf
