#pragma once
/// Case texts shared by the end-to-end tests.

namespace vf::test {

// Batched predicate (x is batched), two outputs, a captured value (%1) and a negative in_dim.
inline const char *kCond = R"(vmap size=4 in_dims=(-1,None) out_dims=(0,-1)
data_seed 7
func(%0: f32[3], %1: f32[3]) {
  %2: f32[] = sum_all(%0)
  %3: bool[] = gt_scalar(%2) {value=0.0}
  %4: f32[3] = cond(%3, %0) [
    (%5: f32[3]) {
      %6: f32[3] = mul(%5, %1)
      yield %6
    }
    (%7: f32[3]) {
      %8: f32[3] = neg(%7)
      yield %8
    }
  ]
  %9: f32[3] = sin(%4)
  return %4, %9
}
)";

} // namespace vf::test
