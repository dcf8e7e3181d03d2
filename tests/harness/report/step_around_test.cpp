// Look-behind's step-arounds (harness/report/step_around.h, ablation.h withoutFeature): each
// filed feature changed wherever a case has it, cond rewritten as both branches and a where, and
// the order a filed signature's step-arounds are tried in.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "generators/case_gen.h"
#include "generators/data.h"
#include "harness/report/ablation.h"
#include "harness/report/step_around.h"
#include "ir/text.h"
#include "ir/validate.h"
#include "oracles/reference.h"

using namespace vf;

namespace {

// Two levels; a cond whose predicate reads %0 and whose operand is %1, then a second cond whose
// predicate reads %1; every input batched at both levels, %1 at a non-zero dim at the inner one.
Case twoCondsTwoLevels() {
  return parseCase(R"(vmap size=2 in_dims=(0,0) out_dims=(0)
vmap size=3 in_dims=(0,-1) out_dims=(-1) chunk_size=2
data_seed 5
func(%0: f32[], %1: f32[4]) {
  %2: bool[] = gt_scalar(%0) {value=0.0}
  %3: f32[4] = cond(%2, %1) [
    (%4: f32[4]) {
      %5: f32[4] = neg(%4)
      yield %5
    }
    (%6: f32[4]) {
      %7: f32[4] = log(%6)
      yield %7
    }
  ]
  %8: f32[] = sum_all(%1)
  %9: bool[] = gt_scalar(%8) {value=0.0}
  %10: f32[4] = cond(%9, %3) [
    (%11: f32[4]) {
      yield %11
    }
    (%12: f32[4]) {
      %13: f32[4] = floor(%12)
      yield %13
    }
  ]
  return %10
}
)");
}

bool sameTensor(const at::Tensor &a, const at::Tensor &b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  if (!at::isFloatingType(a.scalar_type())) return at::equal(a, b);
  return at::allclose(a.to(at::kDouble), b.to(at::kDouble), 0, 0, /*equal_nan=*/true);
}

std::vector<std::string> kinds(const std::vector<StepAround> &steps) {
  std::vector<std::string> out;
  for (const auto &s : steps) out.push_back(std::to_string(static_cast<int>(s.kind)) + ":" + s.arg);
  return out;
}

} // namespace

TEST(StepAround, APredicateBatchedAtTheInnerLevelIsUnbatchedAtEveryLevelForEveryCond) {
  const Case c = twoCondsTwoLevels();
  ASSERT_EQ(validateCase(c), "");
  // The bug needs a batched predicate at the level whose rule runs; a predicate batched at the
  // outer level only reaches the outer level's rule batched: unbatched at both.
  auto s = withoutFeature(c, "cond.predicate:batched@inner");
  ASSERT_TRUE(s);
  EXPECT_EQ(validateCase(*s), "");
  for (size_t l = 0; l < 2; ++l) {
    EXPECT_FALSE(s->spec.levels[l].in_dims[0]) << l; // both predicates' inputs
    EXPECT_FALSE(s->spec.levels[l].in_dims[1]) << l;
  }
  // Each level still batches something: an unused batched input is added for it (the program's
  // values do not change).
  ASSERT_EQ(s->program.body.params.size(), 4u);
  for (const auto &l : s->spec.levels) EXPECT_TRUE(l.in_dims[2] || l.in_dims[3]);
}

TEST(StepAround, AnOuterLevelsFeatureChangesOnlyTheEnclosingLevels) {
  const Case c = twoCondsTwoLevels();
  auto s = withoutFeature(c, "cond.predicate:batched@outer");
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->spec.levels[0].in_dims[0]);
  EXPECT_TRUE(s->spec.levels[1].in_dims[0]); // the inner level keeps it
  // Batching an unbatched role: nothing is unbatched here, so nothing to change.
  EXPECT_FALSE(withoutFeature(c, "cond.predicate:unbatched@inner"));
}

TEST(StepAround, TheFrontEndsFeaturesAreChangedAtEveryLevel) {
  const Case c = twoCondsTwoLevels();
  auto neg = withoutFeature(c, "in_dims<0");
  ASSERT_TRUE(neg);
  EXPECT_EQ(neg->spec.levels[1].in_dims[1], std::optional<int64_t>(1)); // -1 of rank 2 (4 and the outer batch dim)
  auto out = withoutFeature(c, "out_dims<0");
  ASSERT_TRUE(out);
  EXPECT_GE(out->spec.levels[1].out_dims[0], 0);
  auto chunk = withoutFeature(c, "chunk_size");
  ASSERT_TRUE(chunk);
  EXPECT_FALSE(chunk->spec.levels[1].chunk_size);
  auto one = withoutFeature(c, "nested");
  ASSERT_TRUE(one);
  ASSERT_EQ(one->spec.levels.size(), 1u);
  EXPECT_EQ(one->spec.levels[0], c.spec.levels[1]); // the innermost stays
  EXPECT_FALSE(withoutFeature(*one, "nested"));
  EXPECT_FALSE(withoutFeature(c, "in_dims>0")); // no positive in_dim to make 0
}

TEST(StepAround, CondBecomesBothBranchesAndAWherePerResult) {
  const Case c = twoCondsTwoLevels();
  auto s = selectBothBranches(c);
  ASSERT_TRUE(s);
  EXPECT_EQ(validateCase(*s), "");
  const std::string text = printCase(*s);
  EXPECT_EQ(text.find("cond("), std::string::npos) << text;
  EXPECT_NE(text.find("where("), std::string::npos) << text;
  EXPECT_EQ(s->spec, c.spec);
  EXPECT_FALSE(selectBothBranches(*s)); // nothing left to rewrite
}

TEST(StepAround, AFiledSignaturesStepAroundsComeFeaturesFirstThenTheCulpritsRewrites) {
  EXPECT_EQ(kinds(stepAroundsOf("rules|cpu|fails|culprit:hop:cond|cond.predicate:batched@inner,")),
            (std::vector<std::string>{"0:cond.predicate:batched@inner", "1:", "2:hop:cond", "3:", "4:"}));
  EXPECT_EQ(kinds(stepAroundsOf("rules|cpu|fails|culprit:op:where|dtype=float,")),
            (std::vector<std::string>{"0:dtype=float", "2:op:where", "3:", "4:"}));
  // An old signature without a culprit: the front end's rewrites only.
  EXPECT_EQ(kinds(stepAroundsOf("eager|cpu|batched-error|ValueError|some message|utils/_pytree.py:unflatten")),
            (std::vector<std::string>{"3:", "4:"}));
  const auto j = stepAroundJson("rules|cpu|fails|culprit:hop:cond|cond.predicate:batched@inner,");
  ASSERT_EQ(j.size(), 5u);
  EXPECT_NE(j[0].get<std::string>().find("every cond's predicate unbatched"), std::string::npos) << j.dump();
}

TEST(StepAround, UnbatchingWhatACulpritReadsLeavesItNoBatchedValue) {
  const Case c = twoCondsTwoLevels();
  auto s = unbatchReadsOf(c, "hop:cond");
  ASSERT_TRUE(s);
  for (const auto &l : s->spec.levels) {
    EXPECT_FALSE(l.in_dims[0]);
    EXPECT_FALSE(l.in_dims[1]);
  }
  EXPECT_FALSE(unbatchReadsOf(c, "op:matmul")); // the program has none
}

// Every step-around hands back a valid case or nothing, and cond rewritten as both branches and
// a where keeps the per-example meaning: the reference computes the same outputs.
RC_GTEST_PROP(StepAround, EveryStepAroundIsValidAndBothBranchesKeepTheMeaning, ()) {
  const Case c = *genCase(GenPolicy{});
  for (const char *f : {"cond.predicate:batched@inner", "cond.predicate:batched@outer", "cond.operands:unbatched@inner",
                        "scan.xs:batched@inner", "nested", "in_dims<0", "out_dims>0", "chunk_size", "dtype=float"})
    if (auto s = withoutFeature(c, f)) RC_ASSERT(validateCase(*s).empty());
  auto both = selectBothBranches(c);
  RC_TAG(both ? "rewritten" : "no tensor cond");
  if (!both) return;
  RC_ASSERT(validateCase(*both).empty());
  const RefResult before = runReference(c, makeInputs(c)), after = runReference(*both, makeInputs(*both));
  RC_PRE(before.error.empty() && after.error.empty());
  RC_ASSERT(before.outputs.size() == after.outputs.size());
  for (size_t i = 0; i < before.outputs.size(); ++i) RC_ASSERT(sameTensor(before.outputs[i], after.outputs[i]));
}
