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

// A scan whose combine_fn updates a buffer in place (add_ of the next carry): the buffer
// accumulates over the steps and is returned, and read after the scan. Its initial value adds an
// exact zero computed from %0, so it is batched wherever the update is (vmap's in-place rule).
// The carry starts batched (an unbatched one that the steps batch meets a filed scan bug,
// reports/batched-error-3ad5105a/also/batched-error-810cf0d1).
inline const char *kScanBuffer = R"(vmap size=3 in_dims=(0,None) out_dims=(0,1,0)
data_seed 11
func(%0: f32[4,2], %1: f32[2]) {
  %2: f32[] = sum_all(%0)
  %3: f32[] = zeros_like(%2)
  %4: f32[2] = add(%1, %3)
  %15: f32[2] = mean(%0) {dim=0, keepdim=false}
  %5: f32[2], %6: f32[4,2], %7: f32[2] = scan(%15, %0, %4) {ncarry=1, reverse=false, nbuf=1} [
    (%8: f32[2], %9: f32[2], %10: f32[2]) {
      %11: f32[2] = mul(%8, %9)
      %12: f32[2] = neg(%9)
      %13: f32[2] = add_(%10, %11)
      yield %11, %12, %13
    }
  ]
  %14: f32[2] = sin(%7)
  return %5, %7, %14
}
)";

} // namespace vf::test
