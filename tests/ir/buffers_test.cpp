#include <gtest/gtest.h>

#include "ir/buffers.h"
#include "ir/text.h"

using namespace vf;

namespace {
// Buffer init %1 (an input), update of the carry times a slice of %0.
const char *kProgram = R"(func(%0: f32[4,2], %1: f32[2]) {
  %2: f32[2], %3: f32[2] = scan(%1, %0, %1) {ncarry=1, reverse=false, nbuf=1} [
    (%4: f32[2], %5: f32[2], %6: f32[2]) {
      %7: f32[2] = mul(%4, %5)
      %8: f32[2] = add_(%6, %7)
      yield %7, %8
    }
  ]
  return %2, %3
}
)";

std::string hazard(const std::string &levels, const std::string &program = kProgram) {
  return bufferBatchingHazard(parseCase(levels + program));
}
} // namespace

TEST(Buffers, AnUnbatchedBufferWithABatchedUpdateIsAHazard) {
  std::string e = hazard("vmap size=2 in_dims=(0,None) out_dims=(0,0)\n");
  EXPECT_NE(e.find("not surely batched at vmap level 0"), std::string::npos) << e;
  // Only the inner level leaves the buffer unbatched.
  e = hazard("vmap size=2 in_dims=(0,0) out_dims=(0,0)\nvmap size=3 in_dims=(0,None) out_dims=(0,0)\n");
  EXPECT_NE(e.find("vmap level 1"), std::string::npos) << e;
}

TEST(Buffers, ABufferBatchedWhereverItsUpdateMayBeIsNone) {
  EXPECT_EQ(hazard("vmap size=2 in_dims=(0,0) out_dims=(0,0)\n"), "");
  EXPECT_EQ(hazard("vmap size=2 in_dims=(None,0) out_dims=(0,0)\n"), "");
}

TEST(Buffers, OnlyTheValueArgumentsOfAnOpMakeItSurelyBatched) {
  // The init is %1 expanded as %0's first row: batched only where %1 is (expand_as reads %0's
  // shape), so with %0 alone batched the buffer is not.
  std::string p = kProgram;
  p.replace(p.find("  %2: f32[2], %3"), 0, "  %9: f32[2] = select(%0) {dim=0, index=0}\n  %10: f32[2] = expand_as(%1, %9)\n");
  p.replace(p.find("scan(%1, %0, %1)"), 16, "scan(%1, %0, %10)");
  EXPECT_NE(hazard("vmap size=2 in_dims=(0,None) out_dims=(0,0)\n", p), "");
  // An add of the same two is batched wherever either is.
  p.replace(p.find("expand_as(%1, %9)"), 17, "add(%1, %9)");
  EXPECT_EQ(hazard("vmap size=2 in_dims=(0,None) out_dims=(0,0)\n", p), "");
}
