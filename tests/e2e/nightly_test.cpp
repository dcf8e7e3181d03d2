// End-to-end: the nightly job's exit rule, and shards that merge into one campaign.
#include <gtest/gtest.h>

#include "tests/e2e/e2e.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

using vf::test::kBin;
using vf::test::campaignExitOf;
using vf::test::sh;
using vf::test::Shell;
using vf::test::readJson;
using vf::test::slurp;
using vf::test::tempDir;






} // namespace

TEST(Nightly, FailsOnlyForSignaturesNotYetFiled) {
  std::string d = tempDir("rule"), reports = d + "/reports", regressions = d + "/regressions";
  fs::create_directories(regressions);
  // The planted cond fault is a bug the reports directory does not know yet. Look-behind is off:
  // the second night would step around the bugs the first one filed and may meet new ones behind
  // them (a new failure, rightly: tests/e2e/look_behind_e2e_test.cpp), and this test is about the
  // same cases meeting the same bugs.
  const std::string cmd = kBin + " nightly --budget 900 --cases 30 --seed 12 --gen max_region_outputs=1 --gen max_levels=1"
                                 " --gen max_depth=1 --gen look_behind=0 --fault cond-batched-pred-swapped --no-recheck --reports " +
                          reports + " --regressions " + regressions;
  Shell first = sh(cmd + " --out " + d + "/night1");
  ASSERT_EQ(first.code, 1) << first.out;
  auto s1 = readJson(d + "/night1/summary.json");
  EXPECT_GE(s1["new_findings"].get<int>(), 1);
  EXPECT_TRUE(fs::exists(d + "/night1/new")) << first.out;
  EXPECT_NE(slurp(d + "/night1/junit.xml").find("<failure"), std::string::npos);
  EXPECT_NE(slurp(d + "/night1/summary.md").find("**NEW**"), std::string::npos);
  // The next night meets the same bugs, filed now: it passes, and says they are known.
  Shell second = sh(cmd + " --out " + d + "/night2");
  EXPECT_EQ(second.code, 0) << second.out;
  auto s2 = readJson(d + "/night2/summary.json");
  EXPECT_EQ(s2["new_findings"], 0);
  EXPECT_FALSE(s2["findings"].empty());
  EXPECT_EQ(slurp(d + "/night2/junit.xml").find("<failure"), std::string::npos);
  EXPECT_FALSE(fs::exists(d + "/night2/new"));
}

TEST(Nightly, TwoShardsMergeIntoTheUnshardedCampaign) {
  std::string d = tempDir("shards");
  // Every case in every mode (the default share of time for eager depends on timing) and no
  // mutants (they come from the coverage corpus, which a shard builds from its own cases): so
  // shards and the whole campaign run the same cases the same way.
  const std::string base =
      kBin + " fuzz --cases 10 --time 900 --seed 3 --no-shrink --other-modes-share 100 --mutate-share 0";
  Shell whole = sh(base + " --out " + d + "/whole --summary-json " + d + "/whole.json");
  ASSERT_EQ(whole.code, campaignExitOf(whole.out)) << whole.out;
  for (int i = 0; i < 2; ++i) {
    std::string n = std::to_string(i);
    Shell part = sh(base + " --shard " + n + "/2 --out " + d + "/s" + n + " --summary-json " + d + "/s" + n + ".json");
    ASSERT_EQ(part.code, campaignExitOf(part.out)) << part.out;
  }
  Shell merged = sh(kBin + " merge " + d + "/s0.json " + d + "/s1.json --json " + d + "/merged.json");
  auto w = readJson(d + "/whole.json"), m = readJson(d + "/merged.json");
  ASSERT_EQ(merged.code, m.value("new_findings", 0) > 0 ? 1 : 0) << merged.out; // 1 only for new findings
  EXPECT_EQ(m["case_indices"], w["case_indices"]);
  EXPECT_EQ(m["cases"], 10);
  EXPECT_EQ(m["coverage"], w["coverage"]); // the same cases, generated the same way
  EXPECT_EQ(m["verdicts"], w["verdicts"]);
  std::set<std::string> ws, ms;
  for (const auto &f : w["findings"]) ws.insert(f["signature"].get<std::string>());
  for (const auto &f : m["findings"]) ms.insert(f["signature"].get<std::string>());
  EXPECT_EQ(ms, ws);
  // Merging a shard with itself is refused.
  EXPECT_EQ(sh(kBin + " merge " + d + "/s0.json " + d + "/s0.json").code, 2);
}
