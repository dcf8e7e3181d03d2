// The ablation (harness/report/ablation.cpp) on cases with a synthetic failure rule: which roles
// of which construct it probes, and which features it finds essential.
#include <gtest/gtest.h>

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
