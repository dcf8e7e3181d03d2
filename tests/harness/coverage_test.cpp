#include <gtest/gtest.h>

#include <algorithm>

#include "generators/case_gen.h"
#include "harness/campaign/coverage.h"
#include "ir/text.h"

using namespace vf;

TEST(Coverage, EveryRowIsReachedByTheDefaultGenerator) {
  // A campaign's table must have no zero row: the default policy reaches each within a few
  // thousand cases (a 10-minute campaign runs tens of thousands).
  Coverage cov;
  for (uint64_t s = 0; s < 1200; ++s) cov.add(generateCase(s * 31 + 7, 10 + static_cast<int>(s % 91), GenPolicy{}));
  for (const auto &row : Coverage::rows()) {
    auto it = cov.counts().find(row);
    EXPECT_TRUE(it != cov.counts().end() && it->second > 0) << "row '" << row << "' is zero";
  }
}

TEST(Coverage, BatchedPredicateAtAnOuterLevelOnlyIsRecognised) {
  // %0 (the predicate's source) is batched by the outer level only, %1 (the operand) by the
  // inner level only.
  Case c = parseCase(R"(vmap size=2 in_dims=(0,None) out_dims=(0)
vmap size=3 in_dims=(None,0) out_dims=(0)
data_seed 1
func(%0: f32[2], %1: f32[2]) {
  %2: f32[] = sum_all(%0)
  %3: bool[] = gt_scalar(%2) {value=0.0}
  %4: f32[2] = cond(%3, %1) [
    (%5: f32[2]) {
      %6: f32[2] = sin(%5)
      yield %6
    }
    (%7: f32[2]) {
      %8: f32[2] = cos(%7)
      yield %8
    }
  ]
  return %4
}
)");
  auto f = featuresOf(c);
  auto has = [&](const char *x) { return std::find(f.begin(), f.end(), x) != f.end(); };
  EXPECT_TRUE(has("pred=batched"));
  EXPECT_TRUE(has("pattern=pred-outer/operands-inner"));
  EXPECT_FALSE(has("pattern=pred-inner/operands-outer"));
  EXPECT_TRUE(has("input-at-some-levels"));
  EXPECT_TRUE(has("levels=unequal-sizes"));
  EXPECT_TRUE(has("depth=1"));
}

TEST(Coverage, APredicateInputMappedPastItsOwnDimIsRecognised) {
  // %1, a one-element bool input, is cond's predicate as it is. Mapped at in_dim 1 it reaches
  // the rule with its batch dim behind its own dim; at in_dim 0 its batch dim is first.
  const std::string text = R"(vmap size=3 in_dims=(0,DIM) out_dims=(0)
data_seed 1
func(%0: f32[2], %1: bool[1]) {
  %2: f32[2] = cond(%1, %0) [
    (%3: f32[2]) {
      %4: f32[2] = sin(%3)
      yield %4
    }
    (%5: f32[2]) {
      %6: f32[2] = cos(%5)
      yield %6
    }
  ]
  return %2
}
)";
  auto featuresAt = [&](const std::string &dim) {
    std::string t = text;
    t.replace(t.find("DIM"), 3, dim);
    return featuresOf(parseCase(t));
  };
  auto has = [](const std::vector<std::string> &f, const char *x) { return std::find(f.begin(), f.end(), x) != f.end(); };
  const auto at1 = featuresAt("1"), at0 = featuresAt("0");
  EXPECT_TRUE(has(at1, "pred-input"));
  EXPECT_TRUE(has(at1, "pred-input-at-dim>0"));
  EXPECT_TRUE(has(at0, "pred-input"));
  EXPECT_FALSE(has(at0, "pred-input-at-dim>0"));
}
