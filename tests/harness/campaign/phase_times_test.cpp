// PhaseTimes add up phase by phase, every phase included.
#include <gtest/gtest.h>

#include "harness/campaign/phase_times.h"

using namespace vf;

TEST(PhaseTimes, PlusEqualsAddsEveryPhaseAndKeepsThePeak) {
  PhaseTimes a, b;
  double *fa[] = {&a.generate, &a.reference, &a.compare, &a.emit, &a.transport, &a.worker, &a.system, &a.shrink, &a.file};
  double *fb[] = {&b.generate, &b.reference, &b.compare, &b.emit, &b.transport, &b.worker, &b.system, &b.shrink, &b.file};
  for (int k = 0; k < 9; ++k) {
    *fa[k] = 1 + k;
    *fb[k] = 100 * (1 + k);
  }
  a.peakWorkerRssKb = 5;
  b.peakWorkerRssKb = 3;
  a += b;
  for (int k = 0; k < 9; ++k) EXPECT_EQ(*fa[k], 101.0 * (1 + k)) << "phase " << k;
  EXPECT_EQ(a.peakWorkerRssKb, 5);
  b += a;
  EXPECT_EQ(b.peakWorkerRssKb, 5);
  EXPECT_EQ(a.harness(), a.generate + a.reference + a.compare + a.emit + a.transport + a.worker + a.file);
}
