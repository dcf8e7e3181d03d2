// Coverage guidance without python: the LCOV tracefile, greedy corpus merging, the mutator
// (every mutant validates: a RapidCheck property) and the corpus directory.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "generators/case_gen.h"
#include "harness/campaign/guided.h"
#include "ir/text.h"
#include "ir/validate.h"

using namespace vf;

namespace {

// The table the worker sends for tests/e2e/data/toy_cov.py (pinned by the e2e test).
const char *kToyTable = R"({"toy_cov.py": [
  {"name": "pick", "first": 2, "lines": [3, 4, 6, 7], "branches": [[3, 4, 6]], "first_branch": 0},
  {"name": "never", "first": 10, "lines": [11], "branches": [], "first_branch": 1},
  {"name": "loop", "first": 14, "lines": [15, 16, 17, 18], "branches": [[16, 16, 18]], "first_branch": 1}]})";

PyCovTable toyTable() { return PyCovTable::fromJson(nlohmann::json::parse(kToyTable)); }

} // namespace

TEST(Guided, TableCountsLinesAndBranchEdges) {
  auto t = toyTable();
  ASSERT_EQ(t.funcs.size(), 3u);
  EXPECT_EQ(t.lineCount(), 9);
  EXPECT_EQ(t.branchEdgeCount(), 4);
  EXPECT_EQ(t.funcs[2].firstBranch, 1);
}

TEST(Guided, CoverageCountsNewKeysOnce) {
  PyCoverage c;
  EXPECT_EQ(c.add({lineKey("toy_cov.py", 3), lineKey("toy_cov.py", 4), branchKey("toy_cov.py", 0, 0)}), 3);
  EXPECT_EQ(c.add({lineKey("toy_cov.py", 3), lineKey("toy_cov.py", 6)}), 1);
  EXPECT_EQ(c.lines(), 3);
  EXPECT_EQ(c.branchEdges(), 1);
  EXPECT_EQ(c.hitsOf(lineKey("toy_cov.py", 3)), 2);
}

TEST(Guided, LcovTracefileHasEveryRecord) {
  auto t = toyTable();
  PyCoverage c;
  // pick(3) twice: lines 3, 4, 7 and the left edge of line 3's branch; loop and never not run.
  for (int i = 0; i < 2; ++i)
    c.add({lineKey("toy_cov.py", 3), lineKey("toy_cov.py", 4), lineKey("toy_cov.py", 7), branchKey("toy_cov.py", 0, 0)});
  std::string lcov = lcovTrace(t, c);
  // Every line is a known LCOV record.
  std::istringstream in(lcov);
  std::regex record(R"(^(TN:.*|SF:.+|FN:\d+,.+|FNDA:\d+,.+|FNF:\d+|FNH:\d+|DA:\d+,\d+|BRDA:\d+,\d+,\d+,(\d+|-)|BRF:\d+|BRH:\d+|LF:\d+|LH:\d+|end_of_record)$)");
  int lines = 0;
  for (std::string l; std::getline(in, l); ++lines) EXPECT_TRUE(std::regex_match(l, record)) << l;
  EXPECT_GT(lines, 10);
  for (const char *want : {"SF:toy_cov.py\n", "FN:2,pick\n", "FN:10,never\n", "FNDA:2,pick\n", "FNDA:0,never\n",
                           "FNDA:0,loop\n", "FNF:3\n", "FNH:1\n", "DA:3,2\n", "DA:4,2\n", "DA:6,0\n", "DA:7,2\n",
                           "DA:11,0\n", "BRDA:3,0,0,2\n", "BRDA:3,0,1,0\n", "BRDA:16,1,0,-\n", "BRDA:16,1,1,-\n",
                           "BRF:4\n", "BRH:1\n", "LF:9\n", "LH:3\n", "end_of_record\n"})
    EXPECT_NE(lcov.find(want), std::string::npos) << want << " in\n" << lcov;
}

TEST(Guided, ReportListsNeverReachedLines) {
  auto t = toyTable();
  PyCoverage c;
  c.add({lineKey("toy_cov.py", 3), lineKey("toy_cov.py", 4), lineKey("toy_cov.py", 7), branchKey("toy_cov.py", 0, 0)});
  std::ostringstream os;
  printPyCoverage(t, c, os, "pick", true);
  EXPECT_NE(os.str().find("toy_cov.py:pick"), std::string::npos);
  EXPECT_NE(os.str().find("lines   3/  4, branch edges   1/  2"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("never reached: lines 6"), std::string::npos) << os.str();
  EXPECT_EQ(os.str().find("loop"), std::string::npos);
}

TEST(Guided, MergeKeepsCoverageAndDropsRedundantCases) {
  std::vector<std::vector<std::string>> sets = {{"a", "b"}, {"a"}, {"b", "c", "d"}, {"c"}, {"e"}, {"d", "b"}};
  auto keep = minimalCover(sets);
  std::set<std::string> all, kept;
  for (const auto &s : sets) all.insert(s.begin(), s.end());
  for (size_t i : keep) kept.insert(sets[i].begin(), sets[i].end());
  EXPECT_EQ(kept, all);
  EXPECT_EQ(keep, (std::vector<size_t>{0, 2, 4})); // {a} {c} {d,b} are redundant
}

RC_GTEST_PROP(Guided, MutantsAlwaysValidate, ()) {
  GenPolicy policy;
  const auto parent = *genCase(policy);
  const auto seed = *rc::gen::arbitrary<uint64_t>();
  auto m = mutateCase(parent, seed, policy);
  RC_PRE(m.has_value());
  RC_ASSERT(validateCase(m->c).empty());
  RC_ASSERT(!(m->c == parent));
  RC_ASSERT(!m->how.empty());
  // Deterministic for (parent, seed).
  auto again = mutateCase(parent, seed, policy);
  RC_ASSERT(again.has_value() && again->c == m->c && again->how == m->how);
}

TEST(Guided, MostMutantDrawsSucceedAndEveryKindOccurs) {
  GenPolicy policy;
  std::set<std::string> kinds;
  int ok = 0, tried = 0;
  for (uint64_t s = 1; s <= 60; ++s) {
    Case parent = generateCase(s, 40, policy);
    for (uint64_t k = 0; k < 5; ++k, ++tried) {
      auto m = mutateCase(parent, s * 1000 + k, policy);
      if (!m) continue;
      ++ok;
      kinds.insert(m->how);
      ASSERT_EQ(validateCase(m->c), "");
    }
  }
  EXPECT_GE(ok, tried * 9 / 10);
  EXPECT_EQ(kinds, (std::set<std::string>{"batch size", "batch spec", "chunk size", "data seed", "in dims", "op", "out dims"}));
}

TEST(Guided, GuideKeepsCasesWithNewCoverageAndMutatesThem) {
  GenPolicy policy;
  GuidedOptions opt;
  opt.on = true;
  opt.mutateShare = 1.0;
  opt.table = toyTable();
  Guide g(opt);
  EXPECT_FALSE(g.next(7, policy).has_value()); // empty corpus: a fresh case
  Case a = generateCase(1, 30, policy), b = generateCase(2, 30, policy);
  EXPECT_EQ(g.observe(a, {lineKey("toy_cov.py", 3)}, nullptr, 0.1), 1);
  EXPECT_EQ(g.observe(b, {lineKey("toy_cov.py", 3)}, nullptr, 0.2), 0); // nothing new: not kept
  EXPECT_EQ(g.stats().corpus, 1);
  auto m = g.next(7, policy);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(validateCase(m->c), "");
  EXPECT_EQ(g.observe(m->c, {lineKey("toy_cov.py", 6)}, &*m, 0.3), 1);
  auto s = g.stats();
  EXPECT_EQ(s.corpus, 2);
  EXPECT_EQ(s.mutants, 1);
  EXPECT_EQ(s.mutantsNew, 1);
  EXPECT_EQ(s.freshNew, 1);
}

TEST(Guided, CorpusDirRoundTripsAndIsReadFirst) {
  auto dir = std::filesystem::temp_directory_path() / ("vf-guided-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  GenPolicy policy;
  Case a = generateCase(3, 30, policy), b = generateCase(4, 30, policy);
  std::string pa = saveCorpusCase(dir.string(), a);
  saveCorpusCase(dir.string(), b);
  saveCorpusCase(dir.string(), a); // same content, same name
  EXPECT_EQ(std::filesystem::path(pa).filename().string(), caseHash(a) + ".vf");
  std::ofstream(dir / "broken.vf") << "not a case";
  auto loaded = loadCorpusDir(dir.string());
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_TRUE((loaded[0] == a && loaded[1] == b) || (loaded[0] == b && loaded[1] == a));
  GuidedOptions opt;
  opt.on = true;
  opt.seeds = loaded;
  Guide g(opt);
  auto first = g.next(1, policy), second = g.next(2, policy);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->how, "corpus");
  EXPECT_TRUE(first->c == loaded[0] && second->c == loaded[1]);
  EXPECT_FALSE(g.next(3, policy).has_value());
  std::filesystem::remove_all(dir);
}
