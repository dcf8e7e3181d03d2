// The precision analysis: each value is known to the least precise floating dtype it was
// computed through, through casts, captures and control flow.
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include "generators/case_gen.h"
#include "ir/precision.h"
#include "ir/text.h"
#include "ir/walk.h"

using namespace vf;

TEST(Precision, ACastUpKeepsThePrecisionOfWhatWasCast) {
  Program p = parseProgram(
      "func(%0: f32[3], %1: f64[3]) {\n"
      "  %2: f32[] = sum_all(%0)\n"
      "  %3: f64[] = to_f64(%2)\n"
      "  %4: f64[] = sum_all(%1)\n"
      "  return %3, %4, %1\n"
      "}\n");
  auto out = outputPrecisions(p);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], DType::f32);
  EXPECT_EQ(out[1], DType::f64);
  EXPECT_EQ(out[2], DType::f64);
}

TEST(Precision, ACastDownIsAsPreciseAsItsOwnDtype) {
  Program p = parseProgram(
      "func(%0: f64[3]) {\n"
      "  %1: f32[3] = to_f32(%0)\n"
      "  return %1\n"
      "}\n");
  EXPECT_EQ(outputPrecisions(p)[0], DType::f32);
}

TEST(Precision, IntegersAndBoolsFromIntegersAreExact) {
  Program p = parseProgram(
      "func(%0: i64[3], %1: f32[3]) {\n"
      "  %2: i64[3] = add(%0, %0)\n"
      "  return %2, %0\n"
      "}\n");
  auto out = outputPrecisions(p);
  EXPECT_EQ(out[0], std::nullopt);
  EXPECT_EQ(out[1], std::nullopt);
  EXPECT_EQ(programPrecision(p), DType::f32);
}

TEST(Precision, AConstructsResultsDependOnItsPredicateAndCaptures) {
  // The cond's float64 results are chosen by a bfloat16 comparison, and its branch captures a
  // float16 value: both bound how precisely the results are known.
  Program p = parseProgram(
      "func(%0: bf16[3], %1: f64[3], %2: f16[3]) {\n"
      "  %3: bf16[] = sum_all(%0)\n"
      "  %4: bool[] = gt_scalar(%3) {value=0.0}\n"
      "  %5: f64[3] = cond(%4, %1) [\n"
      "    (%6: f64[3]) { %7: f64[3] = neg(%6)\n yield %7 }\n"
      "    (%8: f64[3]) { yield %8 }\n"
      "  ]\n"
      "  return %5, %1\n"
      "}\n");
  auto out = outputPrecisions(p);
  EXPECT_EQ(out[0], DType::bf16);
  EXPECT_EQ(out[1], DType::f64);
  Program q = parseProgram(
      "func(%0: f64[3], %1: f16[3]) {\n"
      "  %2: f64[] = sum_all(%0)\n"
      "  %3: bool[] = gt_scalar(%2) {value=0.0}\n"
      "  %4: f64[3] = cond(%3, %0) [\n"
      "    (%5: f64[3]) { %6: f64[3] = to_f64(%1)\n %7: f64[3] = add(%5, %6)\n yield %7 }\n"
      "    (%8: f64[3]) { yield %8 }\n"
      "  ]\n"
      "  return %4\n"
      "}\n");
  EXPECT_EQ(outputPrecisions(q)[0], DType::f16);
}

TEST(Precision, AScanCarryFollowsWhatFlowsIntoIt) {
  // The carry never reads the bfloat16 slices: it stays float32; the ys that do are bfloat16.
  Program p = parseProgram(
      "func(%0: bf16[2,4], %1: f32[]) {\n"
      "  %2: f32[], %3: bf16[2,4] = scan(%1, %0) {ncarry=1, reverse=false} [\n"
      "    (%4: f32[], %5: bf16[4]) { %6: bf16[4] = neg(%5)\n yield %4, %6 }\n"
      "  ]\n"
      "  return %2, %3\n"
      "}\n");
  auto out = outputPrecisions(p);
  EXPECT_EQ(out[0], DType::f32);
  EXPECT_EQ(out[1], DType::bf16);
}

TEST(Precision, ALoopsTripCountReachesEveryCarry) {
  // The loop's condition compares a float16 capture: how often the float64 carry is negated
  // depends on float16 rounding.
  Program p = parseProgram(
      "func(%0: f64[3], %1: f16[]) {\n"
      "  %2: f64[3] = while_loop(%0) [\n"
      "    (%3: f64[3]) { %4: f16[] = neg(%1)\n %5: bool[] = gt_scalar(%4) {value=0.0}\n yield %5 }\n"
      "    (%6: f64[3]) { %7: f64[3] = neg(%6)\n yield %7 }\n"
      "  ]\n"
      "  return %2\n"
      "}\n");
  EXPECT_EQ(outputPrecisions(p)[0], DType::f16);
}

TEST(Precision, LessPreciseOrdersTheFloatingDtypes) {
  EXPECT_EQ(lessPrecise(DType::f64, DType::f32), DType::f32);
  EXPECT_EQ(lessPrecise(DType::f16, DType::bf16), DType::bf16);
  EXPECT_EQ(lessPrecise(DType::f32, DType::f16), DType::f16);
  EXPECT_EQ(lessPrecise(std::nullopt, DType::f64), DType::f64);
  EXPECT_EQ(lessPrecise(std::nullopt, std::nullopt), std::nullopt);
}

// Over generated programs: a floating output is never known more precisely than its own dtype,
// nor than the program's least precise dtype allows; a gradient's precision bounds them all.
RC_GTEST_PROP(Precision, IsNeverFinerThanAnOutputsOwnDtype, ()) {
  const auto seed = *rc::gen::arbitrary<uint64_t>();
  Case c = generateCase(seed, 40, GenPolicy{});
  auto types = outputTypes(c.program);
  auto out = outputPrecisions(c.program);
  auto all = programPrecision(c.program);
  RC_ASSERT(out.size() == types.size());
  for (size_t i = 0; i < out.size(); ++i) {
    if (isFloating(types[i].dtype)) {
      RC_ASSERT(out[i].has_value());
      RC_ASSERT(lessPrecise(out[i], types[i].dtype) == out[i]);
    }
    if (out[i]) RC_ASSERT(lessPrecise(all, out[i]) == all);
  }
}
