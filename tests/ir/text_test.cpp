#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "generators/case_gen.h"
#include "ir/text.h"
#include "ir/validate.h"

using namespace vf;

RC_GTEST_PROP(TextFormat, PrintThenParseGivesTheSameCase, ()) {
  Case c = *genCase(GenPolicy{});
  std::string text = printCase(c);
  Case back = parseCase(text);
  RC_ASSERT(back == c);
  RC_ASSERT(printCase(back) == text);
}

RC_GTEST_PROP(TextFormat, ParsingArbitraryBytesNeverCrashes, (const std::string &junk)) {
  try {
    Case c = parseCase(junk);
    (void)validateCase(c);
  } catch (const ParseError &e) {
    RC_ASSERT(e.line >= 1);
    RC_ASSERT(e.col >= 1);
  }
}

RC_GTEST_PROP(TextFormat, ParsingMangledCasesNeverCrashes, ()) {
  // Cut a real case at a random point and splice in a random character: near-valid input
  // reaches deeper into the parser than random bytes do.
  std::string text = printCase(*genCase(GenPolicy{}));
  size_t at = *rc::gen::inRange<size_t>(0, text.size());
  text.insert(at, 1, *rc::gen::elementOf(std::string("%()[]{},:=x9-.# \n")));
  try {
    (void)validateCase(parseCase(text));
  } catch (const ParseError &) {
  }
}

TEST(TextFormat, ParsesAHandWrittenCase) {
  const char *text = R"(# a comment
vmap size=3 in_dims=(0,None) out_dims=(-1) chunk_size=2
data_seed 42
func(%0: f32[4], %1: f32[]) {
  %2: f32[] = sum_all(%0)
  %3: bool[] = gt_scalar(%2) {value=0.0}
  %4: f32[4] = cond(%3, %0) [
    (%5: f32[4]) {
      %6: f32[4] = mul(%5, %1)
      yield %6
    }
    (%7: f32[4]) {
      yield %0
    }
  ]
  return %4
}
)";
  Case c = parseCase(text);
  EXPECT_EQ(validateCase(c), "");
  ASSERT_EQ(c.spec.levels.size(), 1u);
  EXPECT_EQ(c.spec.levels[0].size, 3);
  EXPECT_EQ(c.spec.levels[0].in_dims[1], std::nullopt);
  EXPECT_EQ(c.spec.levels[0].out_dims[0], -1);
  EXPECT_EQ(c.spec.levels[0].chunk_size, 2);
  EXPECT_EQ(c.spec.data_seed, 42u);
  EXPECT_EQ(c.program.body.stmts.size(), 3u);
  EXPECT_EQ(c.program.body.stmts[2].regions.size(), 2u);
  EXPECT_EQ(parseCase(printCase(c)), c);
}

TEST(TextFormat, ErrorsGiveLineAndColumn) {
  const char *text = "func(%0: f32[2]) {\n  %1: f32[2] = neg(%0\n  return %1\n}\n";
  try {
    parseCase(text);
    FAIL() << "expected a parse error";
  } catch (const ParseError &e) {
    EXPECT_EQ(e.line, 3);
    EXPECT_EQ(e.col, 3);
    EXPECT_NE(std::string(e.what()).find("expected ')'"), std::string::npos) << e.what();
  }
}

TEST(TextFormat, UnknownDTypeIsAnError) {
  EXPECT_THROW(parseCase("func(%0: f33[2]) {\n return %0\n}\n"), ParseError);
}
