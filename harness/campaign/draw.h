#pragma once
/// The one per-case step of every command that makes cases from seeds: the campaign, selftest
/// and `vmapfuzz gen`. Case `index` of a campaign with `seed` is drawn from (caseSeed, caseSize)
/// only, so `vmapfuzz gen --case-seed S --size N` regenerates it exactly.
#include <cstdint>

#include "generators/policy.h"
#include "harness/campaign/margin.h"

namespace vf {

/// The seed of case `index` of a campaign with `seed`: the reproduce line names it.
uint64_t caseSeed(uint64_t seed, int64_t index);
/// The generation size of case `index` (sizes cycle so both small and large cases appear).
int caseSize(int64_t index);

/// The case for `caseSeed` at generation size `size`: generateCase, then its data re-drawn
/// while a predicate sits near its decision boundary (keepMargin). Deterministic.
DrawnCase drawCase(uint64_t caseSeed, int size, const GenPolicy &policy);

/// The `k`-th re-spec of a case: the same program with another batch spec (levels, sizes,
/// in_dims, out_dims, chunking) and data, drawn from (caseSeed, k) and kept off its predicates'
/// boundaries like drawCase. Deterministic.
DrawnCase drawRespec(const Case &c, uint64_t caseSeed, int k, int size, const GenPolicy &policy);
/// Its first step: the re-spec'd case before keepMargin.
Case respecCase(const Case &c, uint64_t caseSeed, int k, int size, const GenPolicy &policy);

/// generateCase, respecCase and mutateCase draw through RapidCheck, whose implicit parameters are
/// process-wide: threads that generate take one lock (the campaign's jobs). keepMargin is free of
/// it (its data has a generator of its own per tensor) and runs outside that lock.

} // namespace vf
