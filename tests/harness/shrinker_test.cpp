#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "generators/case_gen.h"
#include "harness/report/findings.h"
#include "harness/report/shrinker.h"
#include "ir/text.h"
#include "ir/validate.h"
#include "ir/walk.h"

using namespace vf;

namespace {

bool usesOp(const Block &b, const std::string &op) {
  for (const auto &s : b.stmts) {
    if (s.op == op) return true;
    for (const auto &r : s.regions)
      if (usesOp(r, op)) return true;
  }
  return false;
}

std::vector<std::string> opsOf(const Block &b) {
  std::vector<std::string> out;
  for (const auto &s : b.stmts) {
    out.push_back(s.op);
    for (const auto &r : s.regions) {
      auto more = opsOf(r);
      out.insert(out.end(), more.begin(), more.end());
    }
  }
  return out;
}

} // namespace

RC_GTEST_PROP(Shrinker, NeverGrowsAndKeepsTheFailure, ()) {
  Case c = *genCase(GenPolicy{});
  auto ops = opsOf(c.program.body);
  RC_PRE(!ops.empty());
  std::string target = *rc::gen::elementOf(ops);
  // A stand-in for "still fails with the same signature": the program still uses `target`,
  // and a mismatch on it would be filed under the same signature.
  CaseResult mismatch;
  mismatch.verdict = Verdict::Mismatch;
  std::string sig = signatureOf(c, mismatch);
  auto fails = [&](const Case &cand) { return usesOp(cand.program.body, target) && signatureOf(cand, mismatch) == sig; };
  ShrinkStats st;
  Case s = shrinkCase(c, fails, &st, 500);
  RC_ASSERT(validateCase(s) == "");
  RC_ASSERT(fails(s));
  RC_ASSERT(signatureOf(s, mismatch) == sig);
  RC_ASSERT(caseWeight(s) <= caseWeight(c));
  // Statements never grow, a construct counting as four (a vmap dropped leaves a select per
  // mapped operand and an expand per result where it stood).
  RC_ASSERT(shrinkSize(s.program) <= shrinkSize(c.program));
  RC_ASSERT(shrinkCase(c, fails, nullptr, 500) == s); // deterministic
}

// Shrinking runs its passes to a fixpoint, not to an attempt cap: the result is 1-minimal under
// the shrinker's own passes, i.e. shrinking it again accepts no candidate at all.
RC_GTEST_PROP(Shrinker, ShrunkCasesAreOneMinimal, ()) {
  Case c = *genCase(GenPolicy{});
  auto ops = opsOf(c.program.body);
  RC_PRE(!ops.empty());
  std::string target = *rc::gen::elementOf(ops);
  auto fails = [&](const Case &cand) { return usesOp(cand.program.body, target); };
  Case s = shrinkCase(c, fails, nullptr, 1000000);
  ShrinkStats again;
  RC_ASSERT(shrinkCase(s, fails, &again, 1000000) == s);
  RC_ASSERT(again.accepted == 0);
}

TEST(Shrinker, CutsACondCaseDownToItsCore) {
  Case c = parseCase(R"(vmap size=5 in_dims=(-1,None) out_dims=(1,0) chunk_size=3
vmap size=3 in_dims=(0,0) out_dims=(0,0)
func(%0: f32[3,4], %1: f32[4]) {
  %2: f32[3,4] = add(%0, %1)
  %3: f32[3,4] = sin(%2)
  %4: f32[] = sum_all(%0)
  %5: bool[] = gt_scalar(%4) {value=0.0}
  %6: f32[3,4], %7: f32[4] = cond(%5, %3) [
    (%8: f32[3,4]) {
      %9: f32[3,4] = mul(%8, %1)
      %10: f32[4] = cos(%1)
      yield %9, %10
    }
    (%11: f32[3,4]) {
      %12: f32[3,4] = neg(%11)
      %13: f32[4] = relu(%1)
      yield %12, %13
    }
  ]
  %14: f32[3,4] = tanh(%6)
  return %14, %7
}
)");
  ASSERT_EQ(validateCase(c), "");
  // "Fails" whenever a cond has a `mul` in one branch and a `neg` in the other.
  auto fails = [](const Case &cand) {
    for (const auto &s : cand.program.body.stmts)
      if (s.op == "cond" && usesOp(s.regions[0], "mul") && usesOp(s.regions[1], "neg")) return true;
    return false;
  };
  Case s = shrinkCase(c, fails);
  EXPECT_EQ(validateCase(s), "");
  EXPECT_TRUE(fails(s));
  // What must stay: the predicate, the cond and its two ops; the rest goes.
  EXPECT_LE(s.program.size(), 4u) << printCase(s);
  EXPECT_EQ(s.spec.levels.size(), 1u) << printCase(s);
  EXPECT_EQ(s.spec.levels[0].size, 1) << printCase(s);
  EXPECT_FALSE(s.spec.levels[0].chunk_size.has_value());
  EXPECT_EQ(s.program.body.yields.size(), 1u);
  for (const auto &p : s.program.body.params) EXPECT_LE(p.type.numel(), 1) << printCase(s);
}

// A vmap the failure does not need goes: its function runs on the first slice, inlined, and
// each result is that slice's value expanded at its out_dim.
TEST(Shrinker, DropsAVmapTheFailureDoesNotNeed) {
  // %2 is the only f32[3,4]: tanh keeps reading the vmap's result, which an expand stands in
  // for until the shapes shrink.
  Case c = parseCase(R"(vmap size=2 in_dims=(0,None) out_dims=(0)
func(%0: f32[4,3], %1: f32[]) {
  %2: f32[3,4], %3: f32[4] = vmap(%0, %1) {in_dims=[-2,None], out_dims=[1,0]} [
    (%4: f32[3], %5: f32[]) {
      %6: f32[3] = sin(%4)
      %7: f32[] = mul(%5, %5)
      yield %6, %7
    }
  ]
  %8: f32[3,4] = tanh(%2)
  return %8
}
)");
  ASSERT_EQ(validateCase(c), "");
  auto fails = [](const Case &cand) { return usesOp(cand.program.body, "sin") && usesOp(cand.program.body, "tanh"); };
  Case s = shrinkCase(c, fails);
  EXPECT_EQ(validateCase(s), "") << printCase(s);
  EXPECT_TRUE(fails(s));
  EXPECT_FALSE(usesOp(s.program.body, "vmap")) << printCase(s);
  EXPECT_LT(caseWeight(s), caseWeight(c));
}

// A vmap the failure needs keeps one mapped operand: the others are passed whole (in_dim None),
// their slices' types re-inferred in its function.
TEST(Shrinker, PassesWholeTheVmapOperandsTheFailureDoesNotNeedMapped) {
  Case c = parseCase(R"(vmap size=2 in_dims=(0,0) out_dims=(0)
func(%0: f32[3,4], %1: f32[3,4]) {
  %2: f32[3,4] = vmap(%0, %1) {in_dims=[0,0], out_dims=[0]} [
    (%3: f32[4], %4: f32[4]) {
      %5: f32[4] = sin(%3)
      %6: f32[] = sum_all(%4)
      %7: f32[4] = mul(%5, %6)
      yield %7
    }
  ]
  return %2
}
)");
  ASSERT_EQ(validateCase(c), "");
  auto fails = [](const Case &cand) { return usesOp(cand.program.body, "vmap") && usesOp(cand.program.body, "sum_all"); };
  Case s = shrinkCase(c, fails);
  EXPECT_EQ(validateCase(s), "") << printCase(s);
  EXPECT_TRUE(fails(s));
  forEachBlock(s.program.body, [&](const Block &b, int) {
    for (const auto &st : b.stmts)
      if (st.op == "vmap") {
        const IntList in = st.attrs.getInts("in_dims");
        EXPECT_EQ(std::count(in.begin(), in.end(), kNoneDim), static_cast<std::ptrdiff_t>(in.size()) - 1) << printCase(s);
      }
  });
}

// Where the failure needs the vmap, it stays.
TEST(Shrinker, KeepsAVmapTheFailureNeeds) {
  Case c = parseCase(R"(vmap size=2 in_dims=(0) out_dims=(0)
func(%0: f32[3,4]) {
  %1: f32[3,4] = vmap(%0) {in_dims=[0], out_dims=[0]} [
    (%2: f32[4]) {
      %3: f32[4] = sin(%2)
      yield %3
    }
  ]
  return %1
}
)");
  ASSERT_EQ(validateCase(c), "");
  auto fails = [](const Case &cand) { return usesOp(cand.program.body, "vmap") && usesOp(cand.program.body, "sin"); };
  Case s = shrinkCase(c, fails);
  EXPECT_TRUE(usesOp(s.program.body, "vmap")) << printCase(s);
}

// A grad the failure needs keeps one argnum: the others' gradients are re-routed to their
// operands (dropArgnums), then dropped with the outputs nobody needs.
TEST(Shrinker, DropsTheArgnumsOfAGradTheFailureDoesNotNeed) {
  Case c = parseCase(R"(vmap size=2 in_dims=(0,None) out_dims=(0,0)
func(%0: f32[3], %1: f32[]) {
  %2: f32[3], %3: f32[] = grad(%0, %1) {argnums=[0,1]} [
    (%4: f32[3], %5: f32[]) {
      %6: f32[3] = sin(%4)
      %7: f32[3] = mul(%6, %5)
      %8: f32[] = sum_all(%7)
      yield %8
    }
  ]
  %9: f32[] = tanh(%3)
  return %2, %9
}
)");
  ASSERT_EQ(validateCase(c), "");
  auto fails = [](const Case &cand) { return usesOp(cand.program.body, "grad") && usesOp(cand.program.body, "sin"); };
  Case s = shrinkCase(c, fails);
  EXPECT_EQ(validateCase(s), "") << printCase(s);
  EXPECT_TRUE(fails(s));
  bool one = false;
  forEachBlock(s.program.body, [&](const Block &b, int) {
    for (const auto &st : b.stmts)
      if (st.op == "grad") one = st.results.size() == 1 && st.attrs.getInts("argnums").size() == 1;
  });
  EXPECT_TRUE(one) << printCase(s);
  EXPECT_LT(caseWeight(s), caseWeight(c));
}

// A transform the failure needs, but not inside the branch that holds it, moves out of the branch
// with the statement it reads there; the branch's parameter becomes the cond's operand.
TEST(Shrinker, MovesATransformOutOfTheRegionThatHoldsIt) {
  Case c = parseCase(R"(vmap size=2 in_dims=(0,0) out_dims=(0)
func(%0: f32[3], %1: f32[]) {
  %2: bool[] = gt_scalar(%1) {value=0.0}
  %3: f32[3] = cond(%2, %0) [
    (%4: f32[3]) {
      %5: f32[3] = cos(%4)
      %6: f32[3] = grad(%5) {argnums=[0]} [
        (%7: f32[3]) {
          %8: f32[3] = sin(%7)
          %9: f32[] = sum_all(%8)
          yield %9
        }
      ]
      %10: f32[3] = mul(%6, %4)
      yield %10
    }
    (%11: f32[3]) {
      %12: f32[3] = neg(%11)
      yield %12
    }
  ]
  return %3
}
)");
  ASSERT_EQ(validateCase(c), "");
  auto fails = [](const Case &cand) { return usesOp(cand.program.body, "grad") && usesOp(cand.program.body, "cond") && usesOp(cand.program.body, "cos"); };
  Case s = shrinkCase(c, fails);
  EXPECT_EQ(validateCase(s), "") << printCase(s);
  EXPECT_TRUE(fails(s));
  bool topLevel = false;
  for (const auto &st : s.program.body.stmts) topLevel |= st.op == "grad";
  EXPECT_TRUE(topLevel) << printCase(s);
  EXPECT_LT(caseWeight(s), caseWeight(c));
}

TEST(Shrinker, ReinferTypesFollowsAShapeChange) {
  Program p = parseProgram("func(%0: f32[3,4]) {\n  %1: f32[3] = sum(%0) {dim=1, keepdim=false}\n  return %1\n}\n");
  p.body.params[0].type.shape = {2, 5};
  ASSERT_TRUE(reinferTypes(p));
  EXPECT_EQ(p.body.stmts[0].results[0].type.shape, (Shape{2}));
  p.body.params[0].type.shape = {};
  EXPECT_FALSE(reinferTypes(p)); // dim 1 of a 0-d tensor: the candidate is dropped
}

TEST(Shrinker, DropsAScanBufferTheFailureDoesNotNeed) {
  // The failure needs the scan's carry (a mul in combine_fn), not its buffer: the buffer, its
  // update and its result go, and the case stays valid.
  Case c = parseCase(R"(vmap size=3 in_dims=(0,None) out_dims=(1,0,0)
func(%0: f32[5,3], %1: f32[3]) {
  %2: f32[3], %3: f32[5,3], %4: f32[3] = scan(%1, %0, %1) {ncarry=1, reverse=true, nbuf=1} [
    (%5: f32[3], %6: f32[3], %7: f32[3]) {
      %8: f32[3] = mul(%5, %6)
      %9: f32[3] = sin(%6)
      %10: f32[3] = mul_(%7, %9)
      yield %8, %9, %10
    }
  ]
  return %2, %3, %4
}
)");
  ASSERT_EQ(validateCase(c), "");
  auto fails = [](const Case &cand) { return usesOp(cand.program.body, "mul") && usesOp(cand.program.body, "scan"); };
  Case s = shrinkCase(c, fails);
  EXPECT_EQ(validateCase(s), "");
  EXPECT_FALSE(usesOp(s.program.body, "mul_")) << printCase(s);
  EXPECT_EQ(printCase(s).find("nbuf"), std::string::npos) << printCase(s);
}
