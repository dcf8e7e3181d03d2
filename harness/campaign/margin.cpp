#include "harness/campaign/margin.h"

#include <algorithm>

#include "generators/data.h"
#include "generators/splitmix.h"
#include "oracles/compare.h"
#include "oracles/reference.h"

namespace vf {

namespace {

/// The data seed of the next re-draw: splitmix64, kept to 53 bits.
uint64_t nextDataSeed(uint64_t s) { return splitmix64(s) & ((uint64_t{1} << 53) - 1); }

bool huge(const Case &c) {
  for (size_t i = 0; i < c.program.body.params.size(); ++i)
    if (physicalInputType(c, i).numel() > (int64_t{1} << 16)) return true;
  return false;
}

} // namespace

DrawnCase keepMargin(Case c, int maxRedraws) {
  DrawnCase d{std::move(c)};
  if (huge(d.c)) return d;
  for (;;) {
    RefResult ref = runReference(d.c, makeInputs(d.c));
    // A program the reference rejects is left for the runner to call invalid.
    // So does a taken path outside (or at the edge of) a restricted op's domain: sqrt of a
    // negative number on the branch an example takes is no valid comparison.
    d.nearBoundary = ref.error.empty() && std::min(ref.minMargin, ref.domain.min) < kAmbiguityMargin;
    if (!d.nearBoundary || d.redraws >= maxRedraws) return d;
    d.c.spec.data_seed = nextDataSeed(d.c.spec.data_seed);
    ++d.redraws;
  }
}

} // namespace vf
