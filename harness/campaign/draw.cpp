#include "harness/campaign/draw.h"

#include "generators/case_gen.h"
#include "generators/splitmix.h"

namespace vf {

uint64_t caseSeed(uint64_t seed, int64_t index) {
  // splitmix64 of (seed, index): independent, reproducible streams per case.
  return splitmixMix(seed * kSplitmixGamma + static_cast<uint64_t>(index) + 1);
}

int caseSize(int64_t index) { return 10 + static_cast<int>(index % 91); }

DrawnCase drawCase(uint64_t caseSeed, int size, const GenPolicy &policy) {
  return keepMargin(generateCase(caseSeed, size, policy), policy.maxRedraws);
}

Case respecCase(const Case &c, uint64_t caseSeed, int k, int size, const GenPolicy &policy) {
  const uint64_t seed = splitmixMix(caseSeed ^ (kSplitmixGamma * static_cast<uint64_t>(k + 1)));
  return Case{c.program, genBatchSpec(c.program, policy)(rc::Random(seed), size).value()};
}

DrawnCase drawRespec(const Case &c, uint64_t caseSeed, int k, int size, const GenPolicy &policy) {
  return keepMargin(respecCase(c, caseSeed, k, size, policy), policy.maxRedraws);
}

} // namespace vf
