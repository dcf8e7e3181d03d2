#include <gtest/gtest.h>

#include <cmath>

#include "generators/case_gen.h"
#include "generators/data.h"
#include "ir/text.h"
#include "ir/validate.h"
#include "oracles/compare.h"
#include "oracles/reference.h"

using namespace vf;

namespace {
// if sum(x) > 0 then x * y else -x, per example; y is shared (in_dims None).
const char *kCondCase = R"(vmap size=2 in_dims=(0,None) out_dims=(0)
func(%0: f32[3], %1: f32[3]) {
  %2: f32[] = sum_all(%0)
  %3: bool[] = gt_scalar(%2) {value=0.0}
  %4: f32[3] = cond(%3) [
    () {
      %5: f32[3] = mul(%0, %1)
      yield %5
    }
    () {
      %6: f32[3] = neg(%0)
      yield %6
    }
  ]
  return %4
}
)";
} // namespace

TEST(Reference, MatchesAHandComputedCond) {
  Case c = parseCase(kCondCase);
  auto x = at::tensor({1.0f, 2.0f, 3.0f, -1.0f, -2.0f, 0.5f}).reshape({2, 3});
  auto y = at::tensor({2.0f, 0.5f, -1.0f});
  RefResult r = runReference(c, {x, y});
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.outputs.size(), 1u);
  // example 0: sum 6 > 0 -> x*y = [2, 1, -3]; example 1: sum -2.5 -> -x = [1, 2, -0.5]
  auto want = at::tensor({2.0f, 1.0f, -3.0f, 1.0f, 2.0f, -0.5f}).reshape({2, 3});
  EXPECT_TRUE(at::equal(r.outputs[0], want)) << r.outputs[0];
  EXPECT_NEAR(r.minMargin, 2.5 / 3.5, 1e-6);
}

TEST(Reference, OutDimsAndNegativeInDimsArePlacedLikeVmap) {
  Case c = parseCase(R"(vmap size=2 in_dims=(-1) out_dims=(-1)
func(%0: f32[3]) {
  %1: f32[3] = neg(%0)
  return %1
}
)");
  auto x = at::arange(6, at::kFloat).reshape({3, 2}); // examples are the columns
  RefResult r = runReference(c, {x});
  EXPECT_TRUE(at::equal(r.outputs[0], -x));
}

TEST(Reference, NestedLevelsSliceOuterFirst) {
  Case c = parseCase(R"(vmap size=2 in_dims=(1) out_dims=(1)
vmap size=3 in_dims=(0) out_dims=(0)
func(%0: f32[]) {
  %1: f32[] = mul_scalar(%0) {value=2.0}
  return %1
}
)");
  auto x = at::arange(6, at::kFloat).reshape({3, 2});
  RefResult r = runReference(c, {x});
  // The outer level picks column b, the inner one row k; the inner level stacks [3] per
  // column, the outer one stacks the columns at dim 1: the result is 2*x again.
  EXPECT_TRUE(at::equal(r.outputs[0], 2 * x)) << r.outputs[0];
}

TEST(Reference, Float64ModeKeepsDeclaredDTypes) {
  Case c = generateCase(3, 50, GenPolicy{});
  auto in = makeInputs(c);
  RefResult a = runReference(c, in), b = runReference(c, in, {true});
  ASSERT_EQ(a.error, "");
  ASSERT_EQ(b.error, "");
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (size_t i = 0; i < a.outputs.size(); ++i) EXPECT_EQ(a.outputs[i].scalar_type(), b.outputs[i].scalar_type());
}

TEST(Compare, ToleratesRoundingButNotRealDifferences) {
  auto a = at::tensor({1.0f, 2.0f, NAN});
  EXPECT_TRUE(compareOutputs({a}, {a + 1e-7}).equal);
  auto d = compareOutputs({a}, {at::tensor({1.0f, 2.5f, NAN})});
  EXPECT_FALSE(d.equal);
  EXPECT_NE(d.detail.find("first at [1]"), std::string::npos) << d.detail;
  EXPECT_FALSE(compareOutputs({a}, {a.reshape({3, 1})}).equal);
  EXPECT_FALSE(compareOutputs({a}, {a.to(at::kDouble)}).equal);
}

namespace {
// if p > 0 then sqrt(x) else -x, per example: sqrt only sees the examples that take it.
const char *kSqrtCase = R"(vmap size=3 in_dims=(0,0) out_dims=(0)
func(%0: f32[], %1: f32[]) {
  %2: bool[] = gt_scalar(%1) {value=0.0}
  %3: f32[] = cond(%2) [
    () {
      %4: f32[] = sqrt(%0)
      yield %4
    }
    () {
      %5: f32[] = neg(%0)
      yield %5
    }
  ]
  return %3
}
)";
} // namespace

TEST(Reference, ARestrictedOpOnAnUntakenBranchLeavesNoDomainNote) {
  // Example 1 has x = -1 but takes the else branch: sqrt never sees it.
  Case c = parseCase(kSqrtCase);
  RefResult r = runReference(c, {at::tensor({4.0f, -1.0f, 9.0f}), at::tensor({1.0f, -1.0f, 1.0f})});
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(at::equal(r.outputs[0], at::tensor({2.0f, 1.0f, 3.0f}))) << r.outputs[0];
  EXPECT_FALSE(r.domain.left());
  EXPECT_NEAR(r.domain.min, 4.0 / 5.0, 1e-6); // sqrt(4): 4 / (4 + 1) from the edge
  EXPECT_EQ(r.domain.op, "sqrt");
  EXPECT_EQ(r.domain.reason(kAmbiguityMargin), "");
}

TEST(Reference, ARestrictedOpOnATakenBranchOutsideItsDomainIsRecorded) {
  Case c = parseCase(kSqrtCase);
  RefResult r = runReference(c, {at::tensor({4.0f, -1.0f, 9.0f}), at::tensor({1.0f, 1.0f, 1.0f})});
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(std::isnan(r.outputs[0][1].item<float>())); // torch's own semantics: NaN
  EXPECT_TRUE(r.domain.left());
  EXPECT_EQ(r.domain.op, "sqrt");
  EXPECT_NE(r.domain.reason(kAmbiguityMargin).find("left the domain of sqrt"), std::string::npos);
}

TEST(Reference, AtTheEdgeOfADomainIsNearOrOutside) {
  // sqrt(0) is defined (0), but at the edge: a rounding may flip it, so it is within the margin.
  Case c = parseCase(kSqrtCase);
  RefResult r = runReference(c, {at::tensor({4.0f, 0.0f, 9.0f}), at::tensor({1.0f, 1.0f, 1.0f})});
  EXPECT_FALSE(r.domain.left());
  EXPECT_LT(r.domain.min, kAmbiguityMargin);
  EXPECT_NE(r.domain.reason(kAmbiguityMargin).find("edge of sqrt's domain"), std::string::npos);
  // log(0) = -inf and x / 0 = inf: a non-finite result from finite arguments is outside.
  for (const char *op : {"log", "div"}) {
    std::string text = kSqrtCase;
    std::string call = std::string(op) + (std::string(op) == "div" ? "(%0, %0)" : "(%0)");
    text.replace(text.find("sqrt(%0)"), 8, call);
    RefResult z = runReference(parseCase(text), {at::tensor({4.0f, 0.0f, 9.0f}), at::tensor({1.0f, 1.0f, 1.0f})});
    ASSERT_EQ(z.error, "") << op;
    EXPECT_TRUE(z.domain.left()) << op << " " << z.domain.min;
    EXPECT_EQ(z.domain.op, op);
  }
}

namespace {
// carry c <- c * x_t, buffer b <- OP(b, c) in place; returns (final c, ys = -x, final b).
std::string bufferProgram(const std::string &op, bool reverse) {
  return std::string(R"(func(%0: f32[4,2], %1: f32[2]) {
  %2: f32[2], %3: f32[4,2], %4: f32[2] = scan(%1, %0, %1) {ncarry=1, reverse=)") + (reverse ? "true" : "false") +
         R"(, nbuf=1} [
    (%5: f32[2], %6: f32[2], %7: f32[2]) {
      %8: f32[2] = mul(%5, %6)
      %9: f32[2] = neg(%6)
      %10: f32[2] = )" + op + R"((%7, %8)
      yield %8, %9, %10
    }
  ]
  return %2, %3, %4
}
)";
}

std::vector<at::Tensor> runBuffer(const std::string &op, bool reverse) {
  auto x = at::tensor({1.0f, 2.0f, 3.0f, 4.0f, 0.5f, 1.0f, 2.0f, 0.0f}).reshape({4, 2});
  auto v = at::tensor({1.0f, 1.0f});
  double margin = 1e300;
  return evalProgram(parseProgram(bufferProgram(op, reverse)), {x, v}, margin);
}
} // namespace

TEST(Reference, ScanBufferAccumulatesInPlaceUpdatesOverTheSteps) {
  // By hand, forwards: c = [1,2], [3,8], [1.5,8], [3,0]; the buffer starts at [1,1] and adds each.
  auto out = runBuffer("add_", false);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(at::equal(out[0], at::tensor({3.0f, 0.0f}))) << out[0];
  EXPECT_TRUE(at::equal(out[1], -at::tensor({1.0f, 2.0f, 3.0f, 4.0f, 0.5f, 1.0f, 2.0f, 0.0f}).reshape({4, 2})));
  EXPECT_TRUE(at::equal(out[2], at::tensor({9.5f, 19.0f}))) << out[2];
  // Reversed, the steps take rows 3, 2, 1, 0: c = [2,0], [1,0], [3,0], [3,0]; the ys stay in row order.
  out = runBuffer("add_", true);
  EXPECT_TRUE(at::equal(out[2], at::tensor({10.0f, 1.0f}))) << out[2];
  EXPECT_TRUE(at::equal(out[1], -at::tensor({1.0f, 2.0f, 3.0f, 4.0f, 0.5f, 1.0f, 2.0f, 0.0f}).reshape({4, 2})));
  // mul_: [1,1] * every c; copy_: the last step's c.
  EXPECT_TRUE(at::equal(runBuffer("mul_", false)[2], at::tensor({13.5f, 0.0f})));
  EXPECT_TRUE(at::equal(runBuffer("copy_", false)[2], at::tensor({3.0f, 0.0f})));
  EXPECT_TRUE(at::equal(runBuffer("copy_", true)[2], at::tensor({3.0f, 0.0f})));
}

TEST(Reference, ScanBufferIsPerExampleUnderVmap) {
  // Each example's buffer accumulates its own steps: the batched reference is the stack of the
  // per-example runs.
  Case c = parseCase("vmap size=2 in_dims=(0,None) out_dims=(0,0,0)\n" + bufferProgram("add_", false));
  auto x = at::tensor({1.0f, 2.0f, 3.0f, 4.0f, 0.5f, 1.0f, 2.0f, 0.0f}).reshape({4, 2});
  auto v = at::tensor({1.0f, 1.0f});
  RefResult r = runReference(c, {at::stack({x, -x}), v});
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(at::equal(r.outputs[2][0], at::tensor({9.5f, 19.0f}))) << r.outputs[2];
  // -x: c = [-1,-2], [3,8], [-1.5,-8], [3,0]: 1 - 1 + 3 - 1.5 + 3 and 1 - 2 + 8 - 8 + 0.
  EXPECT_TRUE(at::equal(r.outputs[2][1], at::tensor({4.5f, -1.0f}))) << r.outputs[2];
}

// A vmap construct inside a cond branch (issue 28): its function runs on each slice of its
// mapped operand, an unmapped operand whole, a captured value as it is; results stacked at its
// out_dims (a negative one too), inside the batch spec's own level.
TEST(Reference, AVmapInsideTheProgramMapsItsFunctionOverSlicesAndStacksAtOutDims) {
  Case c = parseCase(R"(vmap size=2 in_dims=(0,None) out_dims=(0)
func(%0: f32[3,2], %1: f32[]) {
  %2: f32[] = sum_all(%0)
  %3: bool[] = gt_scalar(%2) {value=0.0}
  %4: f32[2,3] = cond(%3, %0, %1) [
    (%5: f32[3,2], %6: f32[]) {
      %7: f32[2,3] = vmap(%5, %6) {in_dims=[-2,None], out_dims=[-1]} [
        (%8: f32[2], %9: f32[]) {
          %10: f32[2] = mul(%8, %9)
          %11: f32[2] = add(%10, %2)
          yield %11
        }
      ]
      yield %7
    }
    (%12: f32[3,2], %13: f32[]) {
      %14: f32[2,3] = transpose(%12) {dim0=0, dim1=1}
      yield %14
    }
  ]
  return %4
}
)");
  ASSERT_EQ(validateCase(c), "");
  auto x = at::arange(12, at::kFloat).reshape({2, 3, 2}) - 2; // example 0 sums to 6, example 1 to 42: both positive
  auto y = at::tensor(3.0f);
  RefResult r = runReference(c, {x, y});
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.outputs.size(), 1u);
  for (int64_t b = 0; b < 2; ++b) {
    auto xb = x[b];
    auto expected = (xb * 3 + xb.sum()).transpose(0, 1); // slices along dim 0 of [3,2], stacked at the last dim
    EXPECT_TRUE(at::allclose(r.outputs[0][b], expected)) << r.outputs[0][b] << expected;
  }
}

namespace {
// torch.func.grad inside a cond branch (issue 28): d/dx sum(x*x*y) = 2xy and d/dy = sum(x*x),
// per example; the else-branch's gradient does not read its operand z (zero) and its function
// reads the capture %1 as a constant.
const char *kGradInBranch = R"(vmap size=2 in_dims=(0,None) out_dims=(0,0)
func(%0: f32[3], %1: f32[]) {
  %2: f32[] = sum_all(%0)
  %3: bool[] = gt_scalar(%2) {value=0.0}
  %4: f32[3], %5: f32[] = cond(%3, %0, %1) [
    (%6: f32[3], %7: f32[]) {
      %8: f32[3], %9: f32[] = grad(%6, %7) {argnums=[0,1]} [
        (%10: f32[3], %11: f32[]) {
          %12: f32[3] = mul(%10, %10)
          %13: f32[3] = mul(%12, %11)
          %14: f32[] = sum_all(%13)
          yield %14
        }
      ]
      yield %8, %9
    }
    (%15: f32[3], %16: f32[]) {
      %17: f32[3] = grad(%15, %16) {argnums=[0]} [
        (%18: f32[3], %19: f32[]) {
          %20: f32[] = sum_all(%18)
          %21: f32[] = mul(%20, %1)
          yield %21
        }
      ]
      %22: f32[] = neg(%16)
      yield %17, %22
    }
  ]
  return %4, %5
}
)";
} // namespace

TEST(Reference, AGradInsideABranchIsEachExamplesOwnGradient) {
  Case c = parseCase(kGradInBranch);
  ASSERT_EQ(validateCase(c), "");
  auto x = at::tensor({1.0f, 2.0f, 3.0f, -1.0f, -2.0f, 0.5f}).reshape({2, 3}); // sums 6 (then), -2.5 (else)
  auto y = at::scalar_tensor(0.5f); // 0-d, as the program declares it
  RefResult r = runReference(c, {x, y});
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_TRUE(at::allclose(r.outputs[0][0], 2 * x[0] * y)) << r.outputs[0];
  EXPECT_TRUE(at::allclose(r.outputs[1][0], (x[0] * x[0]).sum())) << r.outputs[1];
  EXPECT_TRUE(at::allclose(r.outputs[0][1], at::full({3}, 0.5f))) << r.outputs[0]; // d/dx sum(x)*y, the capture a constant
  EXPECT_TRUE(at::allclose(r.outputs[1][1], -y)) << r.outputs[1];
  EXPECT_FALSE(r.outputs[0].requires_grad()); // no enclosing gradient: nothing tracked
}

TEST(Reference, AGradOfAValueThatDoesNotReadTheOperandIsZero) {
  Case c = parseCase(R"(vmap size=2 in_dims=(0,None) out_dims=(0)
func(%0: f32[3], %1: f32[2]) {
  %2: f32[2] = grad(%1, %0) {argnums=[0]} [
    (%3: f32[2], %4: f32[3]) {
      %5: f32[] = sum_all(%4)
      yield %5
    }
  ]
  return %2
}
)");
  ASSERT_EQ(validateCase(c), "");
  RefResult r = runReference(c, {at::ones({2, 3}), at::ones({2})});
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(at::equal(r.outputs[0], at::zeros({2, 2}))) << r.outputs[0];
}

// A kink inside a grad's function (relu at 0) is where its gradient jumps: the reference reports
// it as a margin, so that a difference there is called ambiguous rather than a finding.
TEST(Reference, AKinkInsideAGradIsAMargin) {
  Case c = parseCase(R"(vmap size=2 in_dims=(0) out_dims=(0)
func(%0: f32[2]) {
  %1: f32[2] = grad(%0) {argnums=[0]} [
    (%2: f32[2]) {
      %3: f32[2] = relu(%2)
      %4: f32[] = sum_all(%3)
      yield %4
    }
  ]
  return %1
}
)");
  RefResult near = runReference(c, {at::tensor({1e-7f, 1.0f, 2.0f, 3.0f}).reshape({2, 2})});
  RefResult far = runReference(c, {at::tensor({1.0f, 1.0f, 2.0f, 3.0f}).reshape({2, 2})});
  ASSERT_EQ(near.error, "");
  EXPECT_LT(near.minMargin, 1e-3);
  EXPECT_GT(far.minMargin, near.minMargin);
}

// torch.func.jvp inside the program: f(x, y) = x*x*y pushed forward along (tx, ty) is
// 2xy*tx + x*x*ty, per example, with the tangents computed by the program (tx = cos(x), ty = y);
// a yield that does not read the primals (the capture %1) gets a zero tangent.
TEST(Reference, AJvpInsideTheProgramPushesItsTangentsForward) {
  Case c = parseCase(R"(vmap size=2 in_dims=(0,None) out_dims=(0,0,0,0)
func(%0: f32[3], %1: f32[]) {
  %2: f32[3] = cos(%0)
  %3: f32[3], %4: f32[], %5: f32[3], %6: f32[] = jvp(%0, %1, %2, %1) [
    (%7: f32[3], %8: f32[]) {
      %9: f32[3] = mul(%7, %7)
      %10: f32[3] = mul(%9, %8)
      yield %10, %1
    }
  ]
  return %3, %4, %5, %6
}
)");
  ASSERT_EQ(validateCase(c), "");
  auto x = at::tensor({1.0f, 2.0f, 3.0f, -1.0f, -2.0f, 0.5f}).reshape({2, 3});
  auto y = at::scalar_tensor(0.5f); // 0-d, as the program declares it
  RefResult r = runReference(c, {x, y});
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.outputs.size(), 4u);
  EXPECT_TRUE(at::allclose(r.outputs[0], x * x * y)) << r.outputs[0];
  EXPECT_TRUE(at::allclose(r.outputs[2], 2 * x * y * at::cos(x) + x * x * y)) << r.outputs[2];
  EXPECT_TRUE(at::equal(r.outputs[3], at::zeros({2}))) << r.outputs[3];
  EXPECT_FALSE(r.outputs[2].requires_grad());
}
