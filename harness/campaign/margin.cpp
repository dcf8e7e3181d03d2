#include "harness/campaign/margin.h"

#include "generators/case_gen.h"
#include "generators/data.h"
#include "oracles/compare.h"
#include "oracles/reference.h"

namespace vf {

namespace {

uint64_t nextDataSeed(uint64_t s) {
  uint64_t z = s + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return (z ^ (z >> 31)) & ((uint64_t{1} << 53) - 1);
}

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
    d.nearBoundary = ref.error.empty() && ref.minMargin < kAmbiguityMargin;
    if (!d.nearBoundary || d.redraws >= maxRedraws) return d;
    d.c.spec.data_seed = nextDataSeed(d.c.spec.data_seed);
    ++d.redraws;
  }
}

DrawnCase drawCase(uint64_t seed, int size, const GenPolicy &policy) {
  return keepMargin(generateCase(seed, size, policy), policy.maxRedraws);
}

} // namespace vf
