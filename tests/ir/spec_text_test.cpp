// The batch spec's layouts and randomness: printed, parsed back, validated.
#include <gtest/gtest.h>

#include "ir/text.h"
#include "ir/validate.h"

using namespace vf;

namespace {

std::string caseText(const std::string &head) {
  return head + "data_seed 5\nfunc(%0: f32[3,4], %1: f32[4]) {\n  %2: f32[3,4] = add(%0, %1)\n  return %2\n}\n";
}

std::string validate(const std::string &head) { return validateCase(parseCase(caseText(head))); }

} // namespace

TEST(SpecText, LayoutsAndRandomnessParseAndPrintBack) {
  std::string text = caseText("vmap size=2 in_dims=(0,None) out_dims=(0) randomness=different\n"
                              "vmap size=3 in_dims=(-1,0) out_dims=(1) chunk_size=2 randomness=same\n"
                              "layouts (transposed:1, expanded:1)\n");
  Case c = parseCase(text);
  EXPECT_EQ(validateCase(c), "");
  EXPECT_EQ(c.spec.levels[0].randomness, "different");
  EXPECT_EQ(c.spec.levels[1].randomness, "same");
  ASSERT_EQ(c.spec.layouts.size(), 2u);
  EXPECT_EQ(c.spec.layouts[0], (Layout{Layout::Kind::Transposed, 1}));
  EXPECT_EQ(c.spec.layouts[1], (Layout{Layout::Kind::Expanded, 1}));
  EXPECT_EQ(printCase(c), text);
  EXPECT_EQ(parseCase(printCase(c)), c);
}

TEST(SpecText, DefaultsAreNotPrinted) {
  Case c = parseCase(caseText("vmap size=2 in_dims=(0,0) out_dims=(0)\n"));
  EXPECT_EQ(c.spec.levels[0].randomness, "error");
  EXPECT_TRUE(c.spec.layouts.empty());
  EXPECT_EQ(printCase(c).find("randomness"), std::string::npos);
  EXPECT_EQ(printCase(c).find("layouts"), std::string::npos);
}

TEST(SpecText, BadLayoutsAndRandomnessAreParseErrors) {
  for (const char *head : {"vmap size=2 in_dims=(0,0) out_dims=(0) randomness=sometimes\n",
                           "vmap size=2 in_dims=(0,0) out_dims=(0)\nlayouts (sideways:0, contiguous)\n",
                           "vmap size=2 in_dims=(0,0) out_dims=(0)\nlayouts (transposed, contiguous)\n",
                           "vmap size=2 in_dims=(0,0) out_dims=(0)\nlayouts (offset:1, contiguous)\n",
                           "vmap size=2 in_dims=(0,0) out_dims=(0)\nlayouts (strided:-1, contiguous)\n"}) {
    EXPECT_THROW(parseCase(caseText(head)), ParseError) << head;
  }
}

TEST(SpecValidate, LayoutsMustFitThePhysicalInputs) {
  const std::string level = "vmap size=2 in_dims=(0,None) out_dims=(0)\n";
  // %0 is physically [2,3,4] (batch dim 0), %1 is [4].
  EXPECT_EQ(validate(level + "layouts (transposed:0, strided:0)\n"), "");
  EXPECT_EQ(validate(level + "layouts (expanded:2, offset)\n"), "");
  EXPECT_NE(validate(level + "layouts (transposed:2, contiguous)\n").find("other than the last"), std::string::npos);
  EXPECT_NE(validate(level + "layouts (expanded:0, contiguous)\n").find("batch dim"), std::string::npos);
  EXPECT_NE(validate(level + "layouts (strided:3, contiguous)\n").find("out of range"), std::string::npos);
  EXPECT_NE(validate(level + "layouts (contiguous)\n").find("1 entries for 2 inputs"), std::string::npos);
}

TEST(SpecValidate, PhysicalDimLevelsFollowNesting) {
  // Inner level batches at dim 1 of [3,4] -> [3,5,4]; the outer at dim -1 -> [3,5,4,2].
  Case c = parseCase(caseText("vmap size=2 in_dims=(-1,0) out_dims=(0)\nvmap size=5 in_dims=(1,None) out_dims=(0)\n"));
  EXPECT_EQ(validateCase(c), "");
  EXPECT_EQ(physicalDimLevels(c, 0), (std::vector<int>{-1, 1, -1, 0}));
  EXPECT_EQ(physicalDimLevels(c, 1), (std::vector<int>{0, -1}));
  EXPECT_EQ(physicalInputType(c, 0).shape, (Shape{3, 5, 4, 2}));
}
