#include "harness/campaign/margin.h"

#include <algorithm>
#include <chrono>
#include <cmath>

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
  double previous = std::nan("");
  for (;;) {
    auto t0 = std::chrono::steady_clock::now();
    Evaluated e{makeInputs(d.c)};
    e.reference = runReference(d.c, e.inputs);
    e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // A program the reference rejects is left for the runner to call invalid.
    // So does a taken path outside (or at the edge of) a restricted op's domain: sqrt of a
    // negative number on the branch an example takes is no valid comparison.
    const double margin = std::min(e.reference.minMargin, e.reference.domain.min);
    d.nearBoundary = e.reference.error.empty() && margin < kAmbiguityMargin;
    const bool structural = margin == previous; // the new data came exactly as close
    previous = margin;
    if (!d.nearBoundary || d.redraws >= maxRedraws || structural) {
      d.evaluated = std::move(e);
      return d;
    }
    d.c.spec.data_seed = nextDataSeed(d.c.spec.data_seed);
    ++d.redraws;
  }
}

} // namespace vf
