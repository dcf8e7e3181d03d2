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

} // namespace
} // namespace vf
