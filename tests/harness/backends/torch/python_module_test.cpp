// The emitted module (harness/backends/torch/python_emit.h) in every mode: one definition per
// top-level name. The "+vmap-grad" mode's own per-level helper was once named `_vmap`, like the
// registry's helper for a torch.vmap inside the program, and replaced it: every program with a
// vmap construct was rejected unbatched in that mode ("_vmap() missing 1 required positional
// argument: 'randomness'").
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "harness/backends/torch/python_emit.h"
#include "ir/text.h"

using namespace vf;

namespace {

// The program's transforms (vmap in a cond, grad, jvp) in one case.
const char *kTransforms = R"(vmap size=2 in_dims=(0,None) out_dims=(0,0,0)
func(%0: f32[3], %1: f32[]) {
  %2: f32[] = sum_all(%0)
  %3: bool[] = gt_scalar(%2) {value=0.0}
  %4: f32[3] = cond(%3, %0) [
    (%5: f32[3]) {
      %6: f32[3] = vmap(%5, %1) {in_dims=[0,None], out_dims=[0]} [
        (%7: f32[], %8: f32[]) {
          %9: f32[] = mul(%7, %8)
          yield %9
        }
      ]
      yield %6
    }
    (%10: f32[3]) {
      %11: f32[3] = neg(%10)
      yield %11
    }
  ]
  %12: f32[3] = grad(%4) {argnums=[0]} [
    (%13: f32[3]) {
      %14: f32[3] = sin(%13)
      %15: f32[] = sum_all(%14)
      yield %15
    }
  ]
  %16: f32[3], %17: f32[3] = jvp(%4, %12) [
    (%18: f32[3]) {
      %19: f32[3] = sin(%18)
      yield %19
    }
  ]
  return %4, %12, %17
}
)";

} // namespace

TEST(PythonModule, EveryModeDefinesEachTopLevelNameOnce) {
  const Case c = parseCase(kTransforms);
  for (Api api : {Api::Public, Api::Direct})
    for (Grad grad : {Grad::None, Grad::OfVmap, Grad::VmapOf, Grad::Jvp}) {
      const std::string module = emitModule(c, api, grad);
      std::map<std::string, int> defs;
      std::istringstream lines(module);
      for (std::string line; std::getline(lines, line);)
        if (line.rfind("def ", 0) == 0) defs[line.substr(4, line.find('(') - 4)]++;
      EXPECT_GT(defs.count("_vmap"), 0u) << module;
      for (const auto &[name, n] : defs) EXPECT_EQ(n, 1) << name << " is defined " << n << " times (grad mode " << static_cast<int>(grad) << ")";
    }
}
