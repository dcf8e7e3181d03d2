// The comparator's job is zero false positives without missing a real difference: every rule
// of compareOutputs at its edge.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "oracles/compare.h"

using namespace vf;

namespace {

at::Tensor vec(std::vector<double> v, at::ScalarType t) {
  return at::tensor(v, at::TensorOptions().dtype(at::kDouble)).to(t);
}

bool same(const at::Tensor &e, const at::Tensor &a) { return compareOutputs({e}, {a}).equal; }

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

} // namespace

TEST(Compare, NanEqualsNan) {
  for (auto t : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16})
    EXPECT_TRUE(same(vec({1, kNan, 3}, t), vec({1, kNan, 3}, t))) << c10::toString(t);
}

TEST(Compare, NanDiffersFromANumber) {
  EXPECT_FALSE(same(vec({kNan}, at::kFloat), vec({0}, at::kFloat)));
  EXPECT_FALSE(same(vec({0}, at::kFloat), vec({kNan}, at::kFloat)));
}

TEST(Compare, InfinitiesMustMatchExactly) {
  EXPECT_TRUE(same(vec({kInf, -kInf}, at::kFloat), vec({kInf, -kInf}, at::kFloat)));
  EXPECT_FALSE(same(vec({kInf}, at::kFloat), vec({-kInf}, at::kFloat)));
  EXPECT_FALSE(same(vec({kInf}, at::kDouble), vec({1e308}, at::kDouble)));
  EXPECT_FALSE(same(vec({1e30}, at::kFloat), vec({kInf}, at::kFloat)));
  EXPECT_FALSE(same(vec({kInf}, at::kFloat), vec({kNan}, at::kFloat)));
}

TEST(Compare, IntegersAndBoolsAreExact) {
  EXPECT_TRUE(same(vec({1, -7, 1 << 30}, at::kLong), vec({1, -7, 1 << 30}, at::kLong)));
  EXPECT_FALSE(same(vec({1 << 30}, at::kInt), vec({(1 << 30) + 1}, at::kInt)));
  EXPECT_FALSE(same(vec({100000000000.0}, at::kLong), vec({100000000001.0}, at::kLong)));
  EXPECT_FALSE(same(vec({0, 1}, at::kBool), vec({0, 0}, at::kBool)));
  for (auto t : {at::kLong, at::kInt, at::kBool}) {
    EXPECT_EQ(toleranceFor(t).rtol, 0) << c10::toString(t);
    EXPECT_EQ(toleranceFor(t).atol, 0) << c10::toString(t);
  }
}

TEST(Compare, EveryTableEntryHoldsInsideAndFailsOutside) {
  // |a - e| <= atol + rtol * |e|: half the allowance passes, twice it fails, at 0 (atol alone)
  // and at 64 (rtol dominant), in the dtype itself (the values round to its grid).
  ASSERT_EQ(toleranceTable().size(), 4u);
  for (const auto &[t, tol] : toleranceTable()) {
    EXPECT_GT(tol.rtol, 0) << c10::toString(t);
    EXPECT_GT(tol.atol, 0) << c10::toString(t);
    EXPECT_EQ(toleranceFor(t).rtol, tol.rtol);
    EXPECT_EQ(toleranceFor(t).atol, tol.atol);
    for (double e : {0.0, 64.0, -64.0}) {
      double allowed = tol.atol + tol.rtol * std::abs(e);
      EXPECT_TRUE(same(vec({e}, t), vec({e + 0.5 * allowed}, t))) << c10::toString(t) << " at " << e;
      EXPECT_TRUE(same(vec({e}, t), vec({e - 0.5 * allowed}, t))) << c10::toString(t) << " at " << e;
      EXPECT_FALSE(same(vec({e}, t), vec({e + 2 * allowed}, t))) << c10::toString(t) << " at " << e;
      EXPECT_FALSE(same(vec({e}, t), vec({e - 2 * allowed}, t))) << c10::toString(t) << " at " << e;
    }
  }
}

TEST(Compare, Float32ToleranceEdges) {
  // float32: rtol 1e-4, atol 1e-5: at 1.0 the allowance is 1.1e-4.
  EXPECT_TRUE(same(vec({1.0}, at::kFloat), vec({1.0 + 1.0e-4}, at::kFloat)));
  EXPECT_FALSE(same(vec({1.0}, at::kFloat), vec({1.0 + 1.3e-4}, at::kFloat)));
  EXPECT_TRUE(same(vec({0.0}, at::kFloat), vec({0.9e-5}, at::kFloat)));
  EXPECT_FALSE(same(vec({0.0}, at::kFloat), vec({1.2e-5}, at::kFloat)));
  // The allowance scales with the expected value, not the actual one.
  EXPECT_TRUE(same(vec({1000.0}, at::kFloat), vec({1000.09}, at::kFloat)));
  EXPECT_FALSE(same(vec({1000.0}, at::kFloat), vec({1000.2}, at::kFloat)));
}

TEST(Compare, Float64ToleranceEdges) {
  EXPECT_TRUE(same(vec({1.0}, at::kDouble), vec({1.0 + 0.9e-9}, at::kDouble)));
  EXPECT_FALSE(same(vec({1.0}, at::kDouble), vec({1.0 + 1.1e-9}, at::kDouble)));
  EXPECT_TRUE(same(vec({0.0}, at::kDouble), vec({0.9e-12}, at::kDouble)));
  EXPECT_FALSE(same(vec({0.0}, at::kDouble), vec({1.1e-12}, at::kDouble)));
}

TEST(Compare, HalfPrecisionToleranceEdges) {
  EXPECT_TRUE(same(vec({1.0}, at::kHalf), vec({1.0 + 2 * 0.0078125}, at::kHalf)));    // 0.016 <= 0.02
  EXPECT_FALSE(same(vec({1.0}, at::kHalf), vec({1.0 + 3 * 0.0078125}, at::kHalf)));   // 0.023 > 0.02
  EXPECT_TRUE(same(vec({1.0}, at::kBFloat16), vec({1.0 + 0.0625}, at::kBFloat16)));   // 0.0625 <= 0.08
  EXPECT_FALSE(same(vec({1.0}, at::kBFloat16), vec({1.0 + 0.125}, at::kBFloat16)));   // 0.125 > 0.08
}

TEST(Compare, ShapeDifferenceIsReported) {
  auto c = compareOutputs({at::zeros({2, 3})}, {at::zeros({3, 2})});
  EXPECT_FALSE(c.equal);
  EXPECT_NE(c.detail.find("output 0: shape [3, 2] where [2, 3] was expected"), std::string::npos) << c.detail;
  // The same elements in another shape: still different.
  EXPECT_FALSE(same(at::zeros({6}), at::zeros({1, 6})));
  EXPECT_FALSE(same(at::zeros({}), at::zeros({1})));
}

TEST(Compare, DtypeDifferenceIsReported) {
  auto c = compareOutputs({at::zeros({2})}, {at::zeros({2}, at::kDouble)});
  EXPECT_FALSE(c.equal);
  EXPECT_NE(c.detail.find("dtype Double where Float was expected"), std::string::npos) << c.detail;
}

TEST(Compare, CountDifferenceIsReported) {
  auto c = compareOutputs({at::zeros({2}), at::zeros({2})}, {at::zeros({2})});
  EXPECT_FALSE(c.equal);
  EXPECT_EQ(c.detail, "expected 2 outputs, got 1");
  EXPECT_TRUE(compareOutputs({}, {}).equal);
}

TEST(Compare, TheFirstDifferenceIsNamedByIndex) {
  auto e = at::zeros({2, 3});
  auto a = e.clone();
  a[1][2] = 5;
  a[1][0] = 4;
  auto c = compareOutputs({at::ones({1}), e}, {at::ones({1}), a});
  EXPECT_FALSE(c.equal);
  EXPECT_NE(c.detail.find("output 1: 2 of 6 elements differ; first at [1,0]: expected 0, got 4"), std::string::npos) << c.detail;
}

TEST(Compare, EmptyTensorsOfTheSameShapeAreEqual) {
  EXPECT_TRUE(same(at::zeros({0, 3}), at::zeros({0, 3})));
  EXPECT_FALSE(same(at::zeros({0, 3}), at::zeros({0, 2})));
}

TEST(Compare, NonContiguousActualIsComparedByValue) {
  auto e = at::arange(6, at::kFloat).reshape({2, 3});
  auto a = e.t().contiguous().t(); // the same values, column-major
  ASSERT_FALSE(a.is_contiguous());
  EXPECT_TRUE(same(e, a));
}
