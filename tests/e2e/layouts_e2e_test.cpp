// End-to-end: inputs handed to vmap in non-contiguous layouts, randomness settings, three
// levels, and captured values that alias each other, through the real torch worker.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "harness/backends/torch/python_emit.h"
#include "harness/run/runner.h"
#include "harness/backends/torch/torch_backend.h"
#include "ir/text.h"
#include "tests/e2e/e2e.h"

using namespace vf;

namespace {

// Three levels (sizes 2, 3, 2), every layout, randomness set at two levels; %1 is batched at
// the outer level only. (Straight-line: a cond capturing values batched at different levels
// hits a filed torch bug, reports/batched-error-c190b0ba/also/batched-error-febce9be.)
const char *kLayouts = R"(vmap size=2 in_dims=(0,0,None,0) out_dims=(0) randomness=same
vmap size=3 in_dims=(-1,None,0,1) out_dims=(-1) chunk_size=2 randomness=different
vmap size=2 in_dims=(1,None,None,0) out_dims=(0)
layouts (transposed:0, expanded:1, strided:1, offset)
data_seed 11
func(%0: f32[4,3], %1: f32[3], %2: f64[3], %3: f16[3]) {
  %4: f32[4,3] = mul(%0, %1)
  %5: f64[4,3] = sub(%4, %2)
  %6: f32[4,3] = to_f32(%5)
  %7: f32[4,3] = add(%6, %3)
  %8: f32[4,3] = cumsum(%7) {dim=0}
  return %8
}
)";

// A cond on a batched predicate over non-contiguous operands and captures, one level.
const char *kCondLayouts = R"(vmap size=5 in_dims=(1,0) out_dims=(0)
layouts (transposed:0, strided:1)
data_seed 21
func(%0: f32[3,4], %1: f32[4]) {
  %2: f32[] = sum_all(%0)
  %3: bool[] = gt_scalar(%2) {value=0.0}
  %4: f32[3,4] = cond(%3, %0) [
    (%5: f32[3,4]) {
      %6: f32[3,4] = mul(%5, %1)
      yield %6
    }
    (%7: f32[3,4]) {
      %8: f32[3,4] = neg(%7)
      yield %8
    }
  ]
  return %4
}
)";

// %3 is a view of %2 (the branch parameter) and both are captured by the inner cond: dynamo
// rejects aliasing inputs unless the emitter hands it a clone.
const char *kAliasingCaptures = R"(vmap size=3 in_dims=(0) out_dims=(0)
data_seed 3
func(%0: f32[2]) {
  %1: f32[] = sum_all(%0)
  %2: bool[] = gt_scalar(%1) {value=0.0}
  %3: f32[2] = cond(%2, %0) [
    (%4: f32[2]) {
      %5: f32[1,2] = unsqueeze(%4) {dim=0}
      %6: f32[2] = cond(%2) [
        () {
          %7: f32[1,2] = sin(%5)
          %8: f32[2] = mul(%4, %4)
          yield %8
        }
        () {
          %9: f32[2] = neg(%4)
          yield %9
        }
      ]
      yield %6
    }
    (%10: f32[2]) {
      %11: f32[2] = cos(%10)
      yield %11
    }
  ]
  return %3
}
)";

// The batched output is a [1, 1] view with strides (1, 2): `.contiguous()` keeps those (size-1
// dims), so the worker once failed to send it back, and called it torch's batched-error.
const char *kOddStridedOutput = R"(vmap size=1 in_dims=(0) out_dims=(-1)
data_seed 4423659711314766
func(%2: f32[2,1]) {
  %3: f32[2] = sum(%2) {dim=-1, keepdim=false}
  %4: f32[1] = chunk(%3) {dim=0, chunks=3, index=1}
  return %4
}
)";

} // namespace

TEST(Layouts, OutputsWithOddStridesOnSize1DimsComeBack) {
  TorchBackend b(vf::test::testWorker());
  Runner r(b);
  CaseResult res = r.run(parseCase(kOddStridedOutput));
  EXPECT_EQ(verdictName(res.verdict), "pass") << res.summary << "\n" << res.traceback;
}

TEST(Layouts, EveryLayoutRandomnessAndThreeLevelsPass) {
  TorchBackend b(vf::test::testWorker());
  Runner r(b);
  Case c = parseCase(kLayouts);
  CaseResult res = r.run(c);
  EXPECT_EQ(verdictName(res.verdict), "pass") << res.summary << "\n" << res.traceback;
}

TEST(Layouts, CondOverNonContiguousInputsPasses) {
  TorchBackend b(vf::test::testWorker());
  Runner r(b);
  CaseResult res = r.run(parseCase(kCondLayouts));
  EXPECT_EQ(verdictName(res.verdict), "pass") << res.summary << "\n" << res.traceback;
}

TEST(Layouts, TheEmittedModuleMakesTheLayouts) {
  // layout_inputs must give the same values with the promised strides and offsets.
  Case c = parseCase(kLayouts);
  std::string path = testing::TempDir() + "vmapfuzz_layouts_check.py";
  std::ofstream(path) << emitModule(c) << R"(
# The physical inputs: [2,4,2,3,3], [2,3], [3,3], [2,2,3,3].
xs = [torch.randn(2, 4, 2, 3, 3), torch.randn(2, 1).expand(2, 3).contiguous(), torch.randn(3, 3, dtype=torch.float64),
      torch.randn(2, 2, 3, 3).half()]  # the data of an expanded input repeats along its dim
ys = layout_inputs(*xs)
for x, y in zip(xs, ys):
    assert torch.equal(x, y) and x.shape == y.shape and x.dtype == y.dtype
assert not ys[0].is_contiguous() and ys[0].stride(0) == 1
assert ys[1].stride(1) == 0
assert not ys[2].is_contiguous() and ys[2].storage_offset() > 0
assert ys[3].is_contiguous() and ys[3].storage_offset() == 3
)";
  std::string cmd = "python3 " + path;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "layout check failed: " << cmd;
  std::remove(path.c_str());
}

TEST(Layouts, AliasingCapturesAreClonedAndPass) {
  Case c = parseCase(kAliasingCaptures);
  EXPECT_NE(emitModule(c).find(".clone()"), std::string::npos);
  TorchBackend b(vf::test::testWorker());
  Runner r(b);
  CaseResult res = r.run(c);
  // With the aliasing captures cloned, torch 2.14.1 runs the case right in eager mode: anything
  // else (a rejection, an error, a wrong result) fails here.
  EXPECT_EQ(res.verdict, Verdict::Pass) << verdictName(res.verdict) << ": " << res.summary;
}
