#include <gtest/gtest.h>

#include "ir/dependence.h"
#include "ir/text.h"

namespace vf {
namespace {

TEST(SelectorInputs, FollowOpsOperandsCapturesAndYields) {
  // The outer predicate reads x1; the inner one reads the then-branch's parameter, which is
  // operand x2, and a capture of x0; the switch index reads the cond's result, which depends on
  // its predicate (x1), its operand (x2) and what the inner cond read (x0).
  Program p = parseCase(R"(vmap size=2 in_dims=(0,0,0) out_dims=(0)
data_seed 1
func(%0: f32[], %1: f32[], %2: f32[]) {
  %3: bool[] = gt_scalar(%1) {value=0.0}
  %4: f32[] = cond(%3, %2) [
    (%5: f32[]) {
      %6: f32[] = add(%5, %0)
      %7: bool[] = gt_scalar(%6) {value=0.0}
      %8: f32[] = cond(%7, %5) [
        (%9: f32[]) {
          yield %9
        }
        (%10: f32[]) {
          yield %10
        }
      ]
      yield %8
    }
    (%11: f32[]) {
      yield %11
    }
  ]
  %12: i64[] = branch_index(%4)
  %13: f32[] = switch(%12, %0) [
    (%14: f32[]) {
      yield %14
    }
  ]
  return %13
}
)")
                  .program;
  EXPECT_EQ(selectorInputs(p), (std::vector<uint64_t>{0b010, 0b101, 0b111}));
}

TEST(SelectorInputs, APythonBoolPredicateIsNoSelector) {
  Program p = parseCase(R"(vmap size=2 in_dims=(0) out_dims=(0)
data_seed 1
func(%0: f32[]) {
  %1: f32[] = cond(%0) {pred=true} [
    (%2: f32[]) {
      yield %2
    }
    (%3: f32[]) {
      yield %3
    }
  ]
  return %1
}
)")
                  .program;
  EXPECT_TRUE(selectorInputs(p).empty());
}


TEST(SelectorInputs, EachLoopCarryFollowsWhatFlowsIntoIt) {
  // The scan carries x0 and x1 apart; the cond in its body reads carry 0 only, so its
  // predicate depends on x0 alone, however many steps run.
  Program p = parseProgram(
      "func(%0: f32[], %1: f32[], %2: f32[4]) {\n"
      "  %3: f32[], %4: f32[], %5: f32[4] = scan(%0, %1, %2) {ncarry=2, reverse=false} [\n"
      "    (%6: f32[], %7: f32[], %8: f32[]) {\n"
      "      %9: bool[] = gt_scalar(%6) {value=0.0}\n"
      "      %10: f32[] = cond(%9, %6) [\n"
      "        (%11: f32[]) { yield %11 }\n"
      "        (%12: f32[]) { %13: f32[] = neg(%12)\n yield %13 }\n"
      "      ]\n"
      "      %14: f32[] = add(%7, %8)\n"
      "      yield %10, %14, %8\n"
      "    }\n"
      "  ]\n"
      "  return %3, %4, %5\n"
      "}\n");
  EXPECT_EQ(selectorInputs(p), (std::vector<uint64_t>{0b001}));
}

TEST(SelectorInputs, AWhileLoopsConditionReachesEveryCarryInItsBody) {
  // The loop's condition reads carry 1 (x1); a cond in the body reads carry 0, which starts as
  // x0 but is taken over from the condition's side once the loop has run: how many times it ran
  // is decided by x1.
  Program p = parseProgram(
      "func(%0: f32[], %1: f32[]) {\n"
      "  %2: f32[], %3: f32[] = while_loop(%0, %1) [\n"
      "    (%4: f32[], %5: f32[]) { %6: bool[] = gt_scalar(%5) {value=0.0}\n yield %6 }\n"
      "    (%7: f32[], %8: f32[]) {\n"
      "      %9: bool[] = gt_scalar(%7) {value=1.0}\n"
      "      %10: f32[] = cond(%9, %7) [\n"
      "        (%11: f32[]) { yield %11 }\n"
      "        (%12: f32[]) { %13: f32[] = neg(%12)\n yield %13 }\n"
      "      ]\n"
      "      %14: f32[] = add_scalar(%8) {value=-1.0}\n"
      "      yield %10, %14\n"
      "    }\n"
      "  ]\n"
      "  return %2, %3\n"
      "}\n");
  // In walk order: the loop's condition (met first, after its cond_fn), then the body's cond.
  EXPECT_EQ(selectorInputs(p), (std::vector<uint64_t>{0b10, 0b11}));
}

} // namespace
} // namespace vf
