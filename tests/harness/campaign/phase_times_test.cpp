// PhaseTimes: every phase of the one table is added, and the harness's share is what it says.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "harness/campaign/phase_times.h"

using namespace vf;

TEST(PhaseTimes, PlusEqualsAddsEveryPhaseAndKeepsThePeak) {
  PhaseTimes a, b;
  const auto &phases = phaseTable();
  for (size_t k = 0; k < phases.size(); ++k) {
    a.*phases[k].seconds = 1.0 + k;
    b.*phases[k].seconds = 100.0 * (1 + k);
  }
  a.peakWorkerRssKb = 5;
  b.peakWorkerRssKb = 3;
  a += b;
  for (size_t k = 0; k < phases.size(); ++k) EXPECT_EQ(a.*phases[k].seconds, 101.0 * (1 + k)) << phases[k].name;
  EXPECT_EQ(a.peakWorkerRssKb, 5);
  b += a;
  EXPECT_EQ(b.peakWorkerRssKb, 5);
}

TEST(PhaseTimes, TheTableNamesEveryPhaseOnce) {
  const auto &phases = phaseTable();
  std::set<std::string> names;
  for (size_t k = 0; k < phases.size(); ++k) {
    EXPECT_TRUE(names.insert(phases[k].name).second) << phases[k].name;
    for (size_t j = 0; j < k; ++j) EXPECT_NE(phases[j].seconds, phases[k].seconds) << phases[k].name << " twice";
  }
  for (auto f : {&PhaseTimes::generate, &PhaseTimes::reference, &PhaseTimes::compare, &PhaseTimes::emit, &PhaseTimes::transport,
                 &PhaseTimes::worker, &PhaseTimes::system, &PhaseTimes::shrink, &PhaseTimes::file})
    EXPECT_TRUE(std::any_of(phases.begin(), phases.end(), [f](const PhaseInfo &p) { return p.seconds == f; }));
}

TEST(PhaseTimes, TorchAndShrinkingAreNotTheHarnesssOwnTime) {
  PhaseTimes t;
  t.system = 5;
  t.shrink = 7;
  EXPECT_EQ(t.harness(), 0.0);
  // Each of the others, alone, is all of it.
  for (auto f : {&PhaseTimes::generate, &PhaseTimes::reference, &PhaseTimes::compare, &PhaseTimes::emit, &PhaseTimes::transport,
                 &PhaseTimes::worker, &PhaseTimes::file}) {
    PhaseTimes one;
    one.*f = 2.5;
    EXPECT_EQ(one.harness(), 2.5);
  }
}

TEST(PhaseTimes, ThePrintedTableHasEveryPhaseAndTheHarnessTotalBeforeTorch) {
  PhaseTimes t;
  t.generate = 1;
  t.system = 2;
  std::ostringstream os;
  t.print(os, 10);
  const std::string s = os.str();
  for (const auto &p : phaseTable()) EXPECT_NE(s.find("  " + std::string(p.name) + " "), std::string::npos) << p.name << "\n" << s;
  EXPECT_LT(s.find("harness total"), s.find("torch"));
  EXPECT_NE(s.find("unaccounted       7.000   70.0 %"), std::string::npos) << s;
}
