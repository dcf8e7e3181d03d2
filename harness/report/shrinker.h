#pragma once
/// The structural shrinker: reduces a failing case, pass by pass, to a fixpoint where no pass
/// finds a smaller case that still validates and still fails with the same signature.
#include <functional>

#include "ir/program.h"

namespace vf {

/// True when `candidate` still fails the same way (same signature). The shrinker only calls it
/// on candidates that validate.
using StillFails = std::function<bool(const Case &candidate)>;

struct ShrinkStats {
  int attempts = 0; ///< candidates tried on the system under test
  int accepted = 0; ///< candidates that still failed and were kept
};

/// A program's size for shrinking: its statements (regions included), each construct counting
/// as four, so that a case without a construct is smaller even with the few plain ops that
/// stand in for it (a vmap dropped: a select per mapped operand, an expand per result).
int64_t shrinkSize(const Program &p);

/// A case's size for shrinking: shrinkSize, outputs, inputs, vmap levels, batch elements,
/// tensor elements and how deep its statements nest. Every accepted step makes it strictly smaller.
int64_t caseWeight(const Case &c);

/// Shrinks `c` to a fixpoint. Deterministic: passes and candidates come in a fixed order.
/// `maxAttempts` bounds the work (a case then stays as small as reached).
Case shrinkCase(const Case &c, const StillFails &fails, ShrinkStats *stats = nullptr, int maxAttempts = 2000);

/// Recomputes every statement's result types from the inputs' types (after a shape or dtype
/// change); false when some statement no longer type-checks.
bool reinferTypes(Program &p);

} // namespace vf
