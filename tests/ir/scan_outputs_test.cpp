// A scan's ys: stacked in the order of the xs, reversed scans flipped, empty scans typed.
#include <gtest/gtest.h>

#include "ir/scan_outputs.h"

using namespace vf;

namespace {

Stmt scan(bool reverse, int64_t len) {
  Stmt s;
  s.op = "scan";
  s.attrs.set("ncarry", int64_t{1});
  s.attrs.set("reverse", reverse);
  s.results = {{1, Type{DType::f32, {}}}, {2, Type{DType::i64, {len, 2}}}};
  return s;
}

} // namespace

TEST(ScanOutputs, StackedInStepOrder) {
  auto ys = stackScanOutputs(scan(false, 3), {{at::full({2}, 0, at::kLong), at::full({2}, 1, at::kLong), at::full({2}, 2, at::kLong)}});
  ASSERT_EQ(ys.size(), 1u);
  EXPECT_TRUE(at::equal(ys[0], at::arange(3, at::kLong).unsqueeze(1).expand({3, 2})));
}

TEST(ScanOutputs, AReversedScanFillsFromTheBack) {
  auto ys = stackScanOutputs(scan(true, 3), {{at::full({2}, 0, at::kLong), at::full({2}, 1, at::kLong), at::full({2}, 2, at::kLong)}});
  EXPECT_TRUE(at::equal(ys[0], at::arange(2, -1, -1, at::kLong).unsqueeze(1).expand({3, 2})));
}

TEST(ScanOutputs, AnEmptyScanGivesEmptyTensorsOfTheDeclaredType) {
  auto ys = stackScanOutputs(scan(false, 0), {{}});
  ASSERT_EQ(ys.size(), 1u);
  EXPECT_EQ(ys[0].sizes(), (at::IntArrayRef{0, 2}));
  EXPECT_EQ(ys[0].scalar_type(), at::kLong);
}
