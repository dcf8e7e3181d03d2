// The reference's VJP (the gradient modes' oracle) on hand-computed cases.
#include <algorithm>

#include <gtest/gtest.h>

#include "generators/case_gen.h"
#include "generators/data.h"
#include "ir/differentiable.h"
#include "ir/text.h"
#include "oracles/compare.h"
#include "oracles/reference_grad.h"

using namespace vf;

namespace {
// if sum(x) > 0 then x * y else -x, per example; y is shared (in_dims None); n is an integer input.
const char *kCondCase = R"(vmap size=2 in_dims=(0,None,0) out_dims=(0)
func(%0: f32[3], %1: f32[3], %9: i64[]) {
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

const char *kRelu = R"(vmap size=2 in_dims=(0) out_dims=(0)
func(%0: f32[2]) {
  %1: f32[2] = relu(%0)
  return %1
}
)";
} // namespace

TEST(ReferenceVjp, MatchesAHandComputedCondPerExample) {
  Case c = parseCase(kCondCase);
  EXPECT_EQ(gradInputs(c.program), (std::vector<size_t>{0, 1})); // the integer input takes no gradient
  auto x = at::tensor({1.0f, 2.0f, 3.0f, -1.0f, -2.0f, 0.5f}).reshape({2, 3});
  auto y = at::tensor({2.0f, 0.5f, -1.0f});
  auto n = at::tensor({int64_t{1}, int64_t{2}});
  auto ct = at::tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).reshape({2, 3});
  RefVjp r = runReferenceVjp(c, {x, y, n}, {ct});
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.gradients.size(), 2u);
  // Example 0 takes x*y: d/dx = ct*y, d/dy = ct*x. Example 1 takes -x: d/dx = -ct, nothing for y.
  auto gx = at::tensor({2.0f, 1.0f, -3.0f, -4.0f, -5.0f, -6.0f}).reshape({2, 3});
  auto gy = at::tensor({1.0f, 4.0f, 9.0f}); // y is shared: the sum over examples (only example 0 uses it)
  auto cmp = compareOutputs({gx, gy}, r.gradients);
  EXPECT_TRUE(cmp.equal) << cmp.detail;
  EXPECT_TRUE(r.finite);
  EXPECT_GT(r.minKink, 1.0); // no op with a kink ran
}

TEST(ReferenceVjp, AnArgumentOnAKinkIsMeasured) {
  Case c = parseCase(kRelu);
  auto x = at::tensor({0.0f, 1.0f, -2.0f, 3.0f}).reshape({2, 2});
  auto ct = at::ones({2, 2});
  RefVjp r = runReferenceVjp(c, {x}, {ct});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.minKink, 0.0); // relu at 0: no derivative there
  auto far = runReferenceVjp(c, {x + 0.5f}, {ct});
  EXPECT_NEAR(far.minKink, 0.5 / 1.0, 1e-6);
}

TEST(ReferenceVjp, CotangentsAreDrawnFromTheDataSeedForFloatingOutputsOnly) {
  Case c = parseCase(kCondCase);
  c.spec.data_seed = 5;
  auto out = std::vector<at::Tensor>{at::zeros({2, 3})};
  auto a = makeCotangents(c, out), b = makeCotangents(c, out);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(at::equal(a[0], b[0]));
  c.spec.data_seed = 6;
  EXPECT_FALSE(at::equal(a[0], makeCotangents(c, out)[0]));
}

TEST(ReferenceJvp, MatchesAHandComputedCondPerExample) {
  Case c = parseCase(kCondCase);
  auto x = at::tensor({1.0f, 2.0f, 3.0f, -1.0f, -2.0f, 0.5f}).reshape({2, 3});
  auto y = at::tensor({2.0f, 0.5f, -1.0f});
  auto n = at::tensor({int64_t{1}, int64_t{2}});
  auto tx = at::tensor({0.5f, 1.0f, -1.0f, 1.0f, 2.0f, 3.0f}).reshape({2, 3});
  auto ty = at::tensor({1.0f, -1.0f, 2.0f}); // y is shared: one tangent for every example
  RefJvp r = runReferenceJvp(c, {x, y, n}, {tx, ty});
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.gradients.size(), 1u); // one floating output
  // Example 0 takes x*y: tx*y + x*ty. Example 1 takes -x: -tx (y's tangent does not reach it).
  auto expected = at::tensor({2.0f, -1.5f, 7.0f, -1.0f, -2.0f, -3.0f}).reshape({2, 3});
  auto cmp = compareOutputs({expected}, r.gradients);
  EXPECT_TRUE(cmp.equal) << cmp.detail << "\n" << r.gradients[0];
  EXPECT_TRUE(r.finite);
}

TEST(ReferenceJvp, OnlyFloatingOutputsTakeATangent) {
  Case c = parseCase(R"(vmap size=2 in_dims=(0,0) out_dims=(0,0)
func(%0: f32[2], %1: i64[2]) {
  %2: i64[2] = add(%1, %1)
  %3: f32[2] = sin(%0)
  return %2, %3
}
)");
  auto x = at::tensor({0.1f, 0.2f, 0.3f, 0.4f}).reshape({2, 2});
  auto k = at::tensor({int64_t{1}, int64_t{2}, int64_t{3}, int64_t{4}}).reshape({2, 2});
  auto t = at::tensor({1.0f, -2.0f, 0.5f, 3.0f}).reshape({2, 2});
  RefJvp r = runReferenceJvp(c, {x, k}, {t});
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.gradients.size(), 1u); // the integer output takes none
  EXPECT_TRUE(at::allclose(r.gradients[0], at::cos(x) * t)) << r.gradients[0];
}

TEST(ReferenceJvp, IsTheTransposeOfTheVjpOn100GeneratedPrograms) {
  // <J t, u> == <t, J^T u>: the JVP (double backward) and the VJP (one backward) of the same
  // reference graph, with the case's own tangents and cotangents, on programs with control flow.
  int checked = 0;
  for (uint64_t s = 0; s < 400 && checked < 100; ++s) {
    Case c = generateCase(s * 7919 + 3, 40, GenPolicy{});
    if (gradInputs(c.program).empty() || gradOutputs(c.program).empty()) continue;
    auto in = makeInputs(c);
    RefResult ref = runReference(c, in);
    ASSERT_EQ(ref.error, "") << printCase(c);
    auto cts = makeCotangents(c, ref.outputs);
    auto ts = makeTangents(c, in);
    RefOptions f64{true};
    RefVjp vjp = runReferenceVjp(c, in, cts, f64);
    RefJvp jvp = runReferenceJvp(c, in, ts, f64);
    ASSERT_EQ(vjp.error, "") << printCase(c);
    ASSERT_EQ(jvp.error, "") << printCase(c);
    if (std::min(jvp.minMargin, jvp.minKink) < kAmbiguityMargin || !jvp.finite || !vjp.finite) continue;
    double lhs = 0, rhs = 0, scale = 0;
    for (size_t k = 0; k < cts.size(); ++k) {
      lhs += (jvp.gradients[k].to(at::kDouble) * cts[k].to(at::kDouble)).sum().item<double>();
      scale += (jvp.gradients[k].to(at::kDouble) * cts[k].to(at::kDouble)).abs().sum().item<double>();
    }
    for (size_t i = 0; i < ts.size(); ++i) {
      rhs += (vjp.gradients[i].to(at::kDouble) * ts[i].to(at::kDouble)).sum().item<double>();
      scale += (vjp.gradients[i].to(at::kDouble) * ts[i].to(at::kDouble)).abs().sum().item<double>();
    }
    // Each gradient comes back in its own input's or output's dtype, so a bfloat16 or float16
    // one is rounded there: the program's least precise dtype bounds the difference.
    const double rtol = std::max(1e-3, gradientTolerance(at::kDouble, c.program).rtol);
    EXPECT_NEAR(lhs, rhs, rtol * (1 + scale)) << printCase(c);
    ++checked;
  }
  EXPECT_GE(checked, 100);
}

TEST(ReferenceJvp, TangentsAreDrawnFromTheDataSeedForFloatingInputsOnly) {
  Case c = parseCase(kCondCase);
  c.spec.data_seed = 5;
  auto in = makeInputs(c);
  auto a = makeTangents(c, in), b = makeTangents(c, in);
  ASSERT_EQ(a.size(), 2u); // x and y; the integer input takes none
  EXPECT_EQ(a[0].sizes(), in[0].sizes());
  EXPECT_EQ(a[1].sizes(), in[1].sizes());
  EXPECT_TRUE(at::equal(a[0], b[0]));
  c.spec.data_seed = 6;
  EXPECT_FALSE(at::equal(a[0], makeTangents(c, in)[0]));
}

// A grad inside the program under the gradient modes' VJP: the enclosing gradient differentiates
// through it (second derivatives). out = d/dx sum(x*x*y) = 2xy; with cotangent u the VJP is
// 2yu for x and sum(2xu) for y.
TEST(ReferenceVjp, DifferentiatesThroughAGradInsideTheProgram) {
  Case c = parseCase(R"(vmap size=2 in_dims=(0,None) out_dims=(0)
func(%0: f32[3], %1: f32[]) {
  %2: f32[3] = grad(%0, %1) {argnums=[0]} [
    (%3: f32[3], %4: f32[]) {
      %5: f32[3] = mul(%3, %3)
      %6: f32[3] = mul(%5, %4)
      %7: f32[] = sum_all(%6)
      yield %7
    }
  ]
  return %2
}
)");
  auto x = at::tensor({1.0f, 2.0f, 3.0f, -1.0f, -2.0f, 0.5f}).reshape({2, 3});
  auto y = at::scalar_tensor(0.5f); // 0-d, as the program declares it
  auto u = at::tensor({1.0f, 0.0f, 2.0f, 1.0f, 1.0f, 1.0f}).reshape({2, 3});
  RefVjp r = runReferenceVjp(c, {x, y}, {u});
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.gradients.size(), 2u);
  EXPECT_TRUE(at::allclose(r.gradients[0], 2 * y * u)) << r.gradients[0];
  EXPECT_TRUE(at::allclose(r.gradients[1], (2 * x * u).sum())) << r.gradients[1]; // y shared: summed over the examples
}

// A jvp inside the program under the gradient modes' VJP (reverse over forward): out = J t of
// f(x) = x*x along t = y (a program input), i.e. 2xy; with cotangent u the VJP is 2yu for x and
// sum(2xu) for y, as for the grad above.
TEST(ReferenceVjp, DifferentiatesThroughAJvpInsideTheProgram) {
  Case c = parseCase(R"(vmap size=2 in_dims=(0,0) out_dims=(0)
func(%0: f32[3], %1: f32[3]) {
  %2: f32[3], %3: f32[3] = jvp(%0, %1) [
    (%4: f32[3]) {
      %5: f32[3] = mul(%4, %4)
      yield %5
    }
  ]
  return %3
}
)");
  auto x = at::tensor({1.0f, 2.0f, 3.0f, -1.0f, -2.0f, 0.5f}).reshape({2, 3});
  auto y = at::tensor({0.5f, 1.0f, -1.0f, 2.0f, 0.0f, 1.0f}).reshape({2, 3});
  auto u = at::tensor({1.0f, 0.0f, 2.0f, 1.0f, 1.0f, 1.0f}).reshape({2, 3});
  RefVjp r = runReferenceVjp(c, {x, y}, {u});
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.gradients.size(), 2u);
  EXPECT_TRUE(at::allclose(r.gradients[0], 2 * y * u)) << r.gradients[0];
  EXPECT_TRUE(at::allclose(r.gradients[1], 2 * x * u)) << r.gradients[1];
}
