// A mode that checks almost nothing (harness/campaign/mode_health.h): found from the runs of one
// campaign and of merged shards, and said in summary.json, summary.md and junit.xml.
#include <gtest/gtest.h>

#include "harness/campaign/mode_health.h"
#include "harness/campaign/summary.h"

using namespace vf;

namespace {

const std::string kNoModule = uncheckedReason("invalid", "ModuleNotFoundError: No module named 'vmapfuzz_case'");

/// A shard's summary.json in which `mode` ran `pass` cases that passed and `invalid` that were
/// invalid for kNoModule, and eager|cpu 30 that passed.
nlohmann::json shard(int index, const std::string &mode, int64_t pass, int64_t invalid) {
  return {{"version", 1}, {"seed", 1}, {"shard", index}, {"shards", 2}, {"cases", pass + invalid},
          {"seconds", 1.0}, {"case_indices", nlohmann::json::array({index})}, {"verdicts", nlohmann::json::object()},
          {"by_mode", {{mode, {{"pass", pass}, {"invalid", invalid}}}, {"eager|cpu", {{"pass", 30}, {"invalid", 0}}}}},
          {"coverage", nlohmann::json::object()}, {"findings", nlohmann::json::array()},
          {"unchecked_reasons", {{mode, {{kNoModule, invalid}}}}}};
}

} // namespace

TEST(ModeHealth, AReasonIsOneCauseWithItsNumbersBlanked) {
  EXPECT_EQ(uncheckedReason("invalid", "shape [3, 4] vs [5]"), "invalid: shape [N, N] vs [N]");
  EXPECT_EQ(uncheckedReason("unsupported", "x"), "unsupported: x");
  EXPECT_EQ(uncheckedReason("invalid", std::string(1000, 'a')).size(), std::string("invalid: ").size() + 320);
}

TEST(ModeHealth, MoreThanHalfTheRunsForOneReasonIsIdle) {
  const std::map<std::string, std::map<std::string, int64_t>> reasons = {
      {"direct|cpu", {{kNoModule, 16}, {"invalid: other", 3}}},          // 16 of 30 for one reason: idle
      {"eager|cpu", {{"invalid: a", 10}, {"unsupported: b", 10}}},       // 20 of 30, but no one reason has half
      {"compile-eager|cpu", {{kNoModule, 15}}}};                         // exactly half: not more than half
  auto idle = idleModes({{"direct|cpu", 30}, {"eager|cpu", 30}, {"compile-eager|cpu", 30}}, reasons);
  ASSERT_EQ(idle.size(), 1u);
  EXPECT_EQ(idle[0].mode, "direct|cpu");
  EXPECT_EQ(idle[0].runs, 30);
  EXPECT_EQ(idle[0].count, 16);
  EXPECT_EQ(idle[0].reason, kNoModule);
  EXPECT_NE(describe(idle[0]).find("direct|cpu checks almost nothing: 16 of its 30 runs ended " + kNoModule), std::string::npos);
}

TEST(ModeHealth, TooFewRunsSayNothing) {
  EXPECT_TRUE(idleModes({{"direct|cpu", kIdleModeMinRuns - 1}}, {{"direct|cpu", {{kNoModule, kIdleModeMinRuns - 1}}}}).empty());
  EXPECT_EQ(idleModes({{"direct|cpu", kIdleModeMinRuns}}, {{"direct|cpu", {{kNoModule, kIdleModeMinRuns}}}}).size(), 1u);
}

TEST(ModeHealth, TheMostIdleComesFirst) {
  auto idle = idleModes({{"a|cpu", 100}, {"b|cpu", 100}}, {{"a|cpu", {{kNoModule, 60}}}, {"b|cpu", {{kNoModule, 90}}}});
  ASSERT_EQ(idle.size(), 2u);
  EXPECT_EQ(idle[0].mode, "b|cpu");
}

TEST(ModeHealth, MergedShardsAreJudgedTogether) {
  // Each shard alone ran too few cases of the mode to say; together they checked almost nothing.
  auto a = shard(0, "direct|cpu", 2, 12), b = shard(1, "direct|cpu", 1, 10);
  EXPECT_TRUE(idleModes(a).empty());
  EXPECT_TRUE(idleModes(b).empty());
  auto m = mergeSummaries({a, b});
  ASSERT_EQ(m["idle_modes"].size(), 1u);
  EXPECT_EQ(m["idle_modes"][0]["mode"], "direct|cpu");
  EXPECT_EQ(m["idle_modes"][0]["count"], 22);
  EXPECT_EQ(m["idle_modes"][0]["runs"], 25);
  EXPECT_EQ(m["idle_modes"][0]["reason"], kNoModule);
}

TEST(ModeHealth, TheCiPagesSayItAndJUnitFailsIt) {
  auto m = mergeSummaries({shard(0, "direct|cpu", 0, 15), shard(1, "direct|cpu", 0, 15)});
  const std::string md = summaryMarkdown(m), xml = summaryJUnit(m);
  EXPECT_NE(md.find("**checks almost nothing**: mode direct|cpu"), std::string::npos) << md;
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"vmapfuzz.mode\" name=\"direct|cpu\">"), std::string::npos) << xml;
  // A healthy campaign: no such line, no such failure.
  auto ok = mergeSummaries({shard(0, "direct|cpu", 15, 0), shard(1, "direct|cpu", 15, 0)});
  EXPECT_TRUE(ok["idle_modes"].empty());
  EXPECT_EQ(summaryMarkdown(ok).find("checks almost nothing"), std::string::npos);
  EXPECT_NE(summaryJUnit(ok).find("failures=\"0\""), std::string::npos);
}
