// The one reproduce-line builder, and that a campaign's line regenerates the case it ran.
#include <gtest/gtest.h>

#include "harness/campaign/draw.h"
#include "harness/report/reproduce.h"
#include "ir/text.h"
#include "ir/validate.h"

using namespace vf;

TEST(Reproduce, GenAndReplayCommands) {
  EXPECT_EQ(genFlagsOf({"max_depth=1", "max_levels=2"}), " --gen max_depth=1 --gen max_levels=2");
  EXPECT_EQ(flagWords("--fault", {"f1", "f2"}), " --fault f1 --fault f2");
  EXPECT_EQ(flagWords("--fault", {}), "");
  EXPECT_EQ(flagWords("--preload", {"/a b/it's.py"}), " --preload '/a b/it'\\''s.py'");
  EXPECT_EQ(genCommand(42, 17, " --gen max_depth=1"), "vmapfuzz gen --case-seed 42 --size 17 --gen max_depth=1");
  EXPECT_EQ(replayCommand(" --fault f1", *SystemId::parse("compile-inductor|cuda"), "case.vf"),
            "vmapfuzz replay --fault f1 --mode compile-inductor case.vf");
  EXPECT_EQ(replayCommand("", SystemId::libtorch(), "x/y.vf"), "vmapfuzz replay --backend libtorch x/y.vf");
  EXPECT_EQ(reproduceLine(7, 10, "", " --float64", SystemId{}),
            "vmapfuzz gen --case-seed 7 --size 10 > case.vf && vmapfuzz replay --float64 --mode eager case.vf");
}

TEST(Reproduce, CaseSeedsAndSizesAreStable) {
  // The reproduce lines filed under reports/ name these seeds: they must never change.
  EXPECT_EQ(caseSeed(1, 0), 10451216379200822465ULL);
  EXPECT_EQ(caseSize(0), 10);
  EXPECT_EQ(caseSize(90), 100);
  EXPECT_EQ(caseSize(91), 10);
}

TEST(Reproduce, TheDrawIsAFunctionOfSeedSizeAndPolicy) {
  GenPolicy p;
  for (int64_t i = 0; i < 5; ++i) {
    DrawnCase a = drawCase(caseSeed(3, i), caseSize(i), p), b = drawCase(caseSeed(3, i), caseSize(i), p);
    EXPECT_EQ(a.c, b.c) << i;
    EXPECT_EQ(a.redraws, b.redraws) << i;
  }
}

TEST(Reproduce, ARespecKeepsTheProgramValidatesAndIsAFunctionOfItsSeed) {
  GenPolicy p;
  int otherSpecs = 0;
  for (int64_t i = 0; i < 20; ++i) {
    const uint64_t cs = caseSeed(5, i);
    const Case c = drawCase(cs, caseSize(i), p).c;
    for (int k = 0; k < 3; ++k) {
      DrawnCase a = drawRespec(c, cs, k, caseSize(i), p), b = drawRespec(c, cs, k, caseSize(i), p);
      EXPECT_EQ(a.c, b.c) << i << " " << k;
      EXPECT_EQ(a.c.program, c.program) << "a re-spec runs the same program";
      EXPECT_EQ(validateCase(a.c), "") << printCase(a.c);
      otherSpecs += !(a.c.spec == c.spec);
    }
  }
  EXPECT_GE(otherSpecs, 50) << "re-specs draw other batch specs and data";
}
