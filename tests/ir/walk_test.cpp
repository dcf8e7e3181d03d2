// The one program-tree walk: every block and statement, outermost first, with depths.
#include <gtest/gtest.h>

#include "ir/text.h"
#include "ir/walk.h"

using namespace vf;

namespace {

Program nested() {
  return parseProgram(
      "func(%0: f32[3]) {\n"
      "  %1: f32[] = sum_all(%0)\n"
      "  %2: bool[] = gt_scalar(%1) {value=0.0}\n"
      "  %3: f32[3] = cond(%2, %0) [\n"
      "    (%4: f32[3]) {\n"
      "      %5: f32[3] = cond(%2, %4) [\n"
      "        (%6: f32[3]) { %7: f32[3] = neg(%6)\n yield %7 }\n"
      "        (%8: f32[3]) { yield %8 }\n"
      "      ]\n"
      "      yield %5\n"
      "    }\n"
      "    (%9: f32[3]) { yield %9 }\n"
      "  ]\n"
      "  %10: f32[3] = abs(%3)\n"
      "  return %10\n"
      "}\n");
}

} // namespace

TEST(Walk, StatementsPreOrderWithDepth) {
  std::vector<std::pair<std::string, int>> seen;
  forEachStmt(nested().body, [&](const Stmt &s, int depth) { seen.emplace_back(s.op, depth); });
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, int>>{
                      {"sum_all", 0}, {"gt_scalar", 0}, {"cond", 0}, {"cond", 1}, {"neg", 2}, {"abs", 0}}));
}

TEST(Walk, BlocksPreOrderWithDepth) {
  std::vector<std::pair<ValueId, int>> seen; // first parameter (or -1), depth
  forEachBlock(nested().body, [&](const Block &b, int depth) {
    seen.emplace_back(b.params.empty() ? -1 : b.params[0].id, depth);
  });
  EXPECT_EQ(seen, (std::vector<std::pair<ValueId, int>>{{0, 0}, {4, 1}, {6, 2}, {8, 2}, {9, 1}}));
}

TEST(Walk, AMutableWalkMayDropStatementsBeforeTheirRegionsAreVisited) {
  Program p = nested();
  int visited = 0;
  forEachBlock(p.body, [&](Block &b, int depth) {
    ++visited;
    if (depth == 1) b.stmts.clear(); // the inner cond goes, with its two regions
  });
  EXPECT_EQ(visited, 3); // the body and the outer cond's two regions
  EXPECT_EQ(p.size(), 4u);
}

TEST(Walk, ProgramMeasuresComeFromIt) {
  Program p = nested();
  EXPECT_EQ(p.size(), 6u);
  EXPECT_EQ(p.depth(), 2);
  EXPECT_EQ(p.nextId(), 11);
  EXPECT_EQ(outputTypes(p), std::vector<Type>{(Type{DType::f32, {3}})});
}
