// Shard summaries: merging adds up, and refuses what is not one campaign.
#include <gtest/gtest.h>

#include "harness/campaign/summary.h"

using namespace vf;

namespace {
nlohmann::json shard(int i, std::vector<int64_t> idx, bool fresh) {
  return {{"version", 1}, {"seed", 9}, {"shard", i}, {"shards", 2}, {"cases", idx.size()}, {"case_indices", idx},
          {"seconds", 10.0 + i}, {"verdicts", {{"pass", idx.size()}}}, {"by_mode", {{"eager|cpu", {{"pass", idx.size()}}}}},
          {"coverage", {{"cond", 1}}}, {"unsupported", nlohmann::json::object()},
          {"findings", {{{"signature", "eager|cpu|crash|x"}, {"verdict", "crash"}, {"new", fresh}, {"hits", 1}, {"dir", "d"}}}},
          {"new_findings", fresh ? 1 : 0}, {"phase_seconds", {{"torch", 1.5 + i}, {"culprits", 0.25}}}};
}
} // namespace

TEST(Summary, ShardsMergeIntoOneCampaign) {
  auto m = mergeSummaries({shard(0, {0, 2, 4}, false), shard(1, {1, 3}, true)});
  EXPECT_EQ(m["cases"], 5);
  EXPECT_EQ(m["case_indices"], nlohmann::json({0, 1, 2, 3, 4}));
  EXPECT_EQ(m["verdicts"]["pass"], 5);
  EXPECT_EQ(m["by_mode"]["eager|cpu"]["pass"], 5);
  EXPECT_EQ(m["coverage"]["cond"], 2);
  EXPECT_EQ(m["seconds"], 11.0); // side by side: the longest shard
  EXPECT_DOUBLE_EQ(m["phase_seconds"]["torch"].get<double>(), 4.0); // each phase summed, fractions kept
  EXPECT_DOUBLE_EQ(m["phase_seconds"]["culprits"].get<double>(), 0.5);
  ASSERT_EQ(m["findings"].size(), 1u);
  EXPECT_EQ(m["findings"][0]["hits"], 2);
  EXPECT_EQ(m["new_findings"], 1); // new in one shard is new
  EXPECT_NE(summaryJUnit(m).find("<failure"), std::string::npos);
  EXPECT_NE(summaryMarkdown(m).find("**NEW**"), std::string::npos);
}

TEST(Summary, WhatIsNotOneCampaignIsRefused) {
  EXPECT_THROW(mergeSummaries({shard(0, {0, 2}, false), shard(0, {4}, false)}), std::invalid_argument);   // shard twice
  EXPECT_THROW(mergeSummaries({shard(0, {0, 2}, false), shard(1, {2, 3}, false)}), std::invalid_argument); // overlap
  auto other = shard(1, {1}, false);
  other["seed"] = 10;
  EXPECT_THROW(mergeSummaries({shard(0, {0}, false), other}), std::invalid_argument);
  EXPECT_THROW(mergeSummaries({}), std::invalid_argument);
}

TEST(Summary, KnownFindingsAreSkippedNotFailedInJUnit) {
  auto m = mergeSummaries({shard(0, {0}, false), shard(1, {1}, false)});
  std::string x = summaryJUnit(m);
  EXPECT_EQ(x.find("<failure"), std::string::npos) << x;
  EXPECT_NE(x.find("<skipped message=\"known"), std::string::npos) << x;
}
