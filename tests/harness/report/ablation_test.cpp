// The ablation (harness/report/ablation.cpp) on cases with a synthetic failure rule: which roles
// of which construct it probes, and which features it finds essential.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/report/ablation.h"
#include "ir/text.h"
#include "ir/validate.h"

using namespace vf;

namespace {

// A scan with an in-place buffer (three roles: carries, xs, buffers) before a cond whose
// predicate depends on %0 and whose operands are %0 and %1.
Case scanWithBuffersThenCond() {
  return parseCase(R"(vmap size=2 in_dims=(0,0,0,0) out_dims=(0,0,0)
data_seed 3
func(%0: f32[], %1: f32[], %2: f32[4,2], %3: f32[2]) {
  %4: f32[2], %5: f32[2] = scan(%3, %2, %3) {ncarry=1, reverse=false, nbuf=1} [
    (%6: f32[2], %7: f32[2], %8: f32[2]) {
      %9: f32[2] = mul(%6, %7)
      %10: f32[2] = add_(%8, %9)
      yield %9, %10
    }
  ]
  %11: bool[] = gt_scalar(%0) {value=0.0}
  %12: f32[] = cond(%11, %0, %1) [
    (%13: f32[], %14: f32[]) {
      %15: f32[] = add(%13, %14)
      yield %15
    }
    (%16: f32[], %17: f32[]) {
      %18: f32[] = mul(%16, %17)
      yield %18
    }
  ]
  return %4, %5, %12
}
)");
}

} // namespace

TEST(Ablation, ADataRoleIsProbedWithoutTheInputsOfItsOwnConstructsOtherRoles) {
  // The construct before the cond has three roles. The cond's operands must be probed through
  // %1 alone (%0 feeds its predicate too): pairing roles by their position in twos paired the
  // operands with nothing there, unbatched %0 with them, and so called the operands essential
  // to a failure that needs only a batched predicate.
  const Case c = scanWithBuffersThenCond();
  ASSERT_EQ(validateCase(c), "") << validateCase(c);
  auto predicateBatched = [](const Case &k) { return k.spec.levels[0].in_dims[0].has_value(); };
  std::vector<std::vector<bool>> probed; // which inputs each probe left batched
  Ablation a = ablate(c, [&](const Case &k) {
    std::vector<bool> batched;
    for (const auto &d : k.spec.levels[0].in_dims) batched.push_back(d.has_value());
    probed.push_back(batched);
    return predicateBatched(k);
  });
  EXPECT_EQ(a.features, (std::vector<std::string>{"cond.predicate:batched@vmap"}));
  EXPECT_EQ(essentialSentence(a), "fails only when the predicate of cond is batched under vmap");
  // No probe unbatched %1 together with %0.
  for (const auto &b : probed)
    if (b.size() >= 2) EXPECT_FALSE(!b[0] && !b[1]) << "a probe unbatched the predicate's input with the operands'";
}

TEST(Ablation, NestingIsEssentialOnlyWhereEveryLevelTakenAwayEndsTheFailure) {
  const Case c = parseCase(R"(vmap size=2 in_dims=(-1) out_dims=(0)
vmap size=3 in_dims=(0) out_dims=(0)
data_seed 1
func(%0: f32[4]) {
  %1: f32[4] = neg(%0)
  return %1
}
)");
  ASSERT_EQ(validateCase(c), "") << validateCase(c);
  // A failure that needs the outer level's negative in_dim: taking the inner level away keeps it,
  // so nesting is incidental (taking the outer one away took the negative in_dim with it).
  auto negativeInDim = [](const Case &k) {
    for (const auto &l : k.spec.levels)
      if (l.in_dims[0] && *l.in_dims[0] < 0) return true;
    return false;
  };
  Ablation a = ablate(c, negativeInDim);
  EXPECT_EQ(a.features, (std::vector<std::string>{"in_dims<0@outer"}));
  // A failure that needs two levels, whichever is taken away.
  Ablation b = ablate(c, [](const Case &k) { return k.spec.levels.size() == 2; });
  EXPECT_EQ(b.features, (std::vector<std::string>{"nested"}));
}

TEST(Ablation, NegativeDimsOfTheProgramsOwnVmapsAreAFeature) {
  // vmap's front end takes a torch.vmap's in_dims in the program as it takes the batch spec's.
  const Case c = parseCase(R"(vmap size=2 in_dims=(0) out_dims=(0)
data_seed 1
func(%0: f32[3,4]) {
  %1: f32[4,3] = vmap(%0) {in_dims=[-1], out_dims=[0]} [
    (%2: f32[3]) {
      %3: f32[3] = neg(%2)
      yield %3
    }
  ]
  return %1
}
)");
  ASSERT_EQ(validateCase(c), "") << validateCase(c);
  auto programInDim = [](const Case &k) {
    const auto &s = k.program.body.stmts[0];
    return s.attrs.getInts("in_dims")[0] < 0;
  };
  Ablation a = ablate(c, programInDim);
  EXPECT_EQ(a.features, (std::vector<std::string>{"in_dims<0@program"}));
  // The changed program maps the same dim: in_dims=[1] on an f32[3,4].
  const auto without = withoutFeature(c, "in_dims<0@program");
  ASSERT_TRUE(without.has_value());
  EXPECT_EQ(without->program.body.stmts[0].attrs.getInts("in_dims"), (IntList{1}));
  EXPECT_EQ(without->program.body.stmts[0].regions, c.program.body.stmts[0].regions);
  // With no level named (a front-end feature as filed), the program's vmaps change too.
  ASSERT_TRUE(withoutFeature(c, "in_dims<0").has_value());
  EXPECT_EQ(withoutFeature(c, "in_dims<0")->program.body.stmts[0].attrs.getInts("in_dims"), (IntList{1}));
  EXPECT_FALSE(withoutFeature(c, "out_dims<0@program").has_value()); // no negative out_dim
}

TEST(Ablation, APredicateWithDimsIsAFeatureAndMade0dItKeepsItsValue) {
  // A cond whose predicate is a bool[1] input; the synthetic failure: some cond's predicate has dims.
  const Case c = parseCase(R"(vmap size=3 in_dims=(0,0) out_dims=(0)
data_seed 1
func(%0: f32[], %1: bool[1]) {
  %2: f32[] = cond(%1, %0) [
    (%3: f32[]) {
      %4: f32[] = sin(%3)
      yield %4
    }
    (%5: f32[]) {
      %6: f32[] = cos(%5)
      yield %6
    }
  ]
  return %2
}
)");
  ASSERT_EQ(validateCase(c), "") << validateCase(c);
  auto predicateHasDims = [](const Case &k) {
    bool dims = false;
    for (const auto &s : k.program.body.stmts)
      if (s.op == "cond")
        for (const auto &p : k.program.body.params) dims |= p.id == s.args[0] && p.type.rank() > 0;
    return dims;
  };
  const Ablation a = ablate(c, predicateHasDims);
  EXPECT_NE(std::find(a.features.begin(), a.features.end(), "cond.predicate:has-dims"), a.features.end())
      << ::testing::PrintToString(a.features);
  // Made 0-d by a reshape just before the cond, which then reads it: the same per-example value.
  const auto without = withoutFeature(c, "cond.predicate:has-dims");
  ASSERT_TRUE(without.has_value());
  EXPECT_EQ(validateCase(*without), "");
  ASSERT_EQ(without->program.body.stmts.size(), 2u);
  const Stmt &reshape = without->program.body.stmts[0], &cond = without->program.body.stmts[1];
  EXPECT_EQ(reshape.op, "reshape");
  EXPECT_EQ(reshape.args, (std::vector<ValueId>{1}));
  EXPECT_EQ(reshape.results[0].type.rank(), 0);
  EXPECT_EQ(cond.args[0], reshape.results[0].id);
  EXPECT_EQ(without->spec, c.spec);
  // A 0-d predicate has no such feature to take away.
  EXPECT_FALSE(withoutFeature(*without, "cond.predicate:has-dims").has_value());
}
