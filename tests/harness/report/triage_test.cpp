// Triage (issue 16): root causes across modes, and the filed reports closest to a new signature.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "harness/report/filed_reports.h"
#include "harness/report/findings.h"
#include "harness/report/triage.h"
#include "ir/text.h"
#include "tests/e2e/test_cases.h"

using namespace vf;
namespace fs = std::filesystem;

namespace {

const std::string kPytree =
    "eager|cpu|batched-error|ValueError|treespec.unflatten(leaves): `leaves` has length N but the spec refers to N "
    "items|utils/_pytree.py:unflatten";
const std::string kPytreeOtherWords =
    "direct|cpu|batched-error|ValueError|treespec.unflatten: expected N leaves|utils/_pytree.py:unflatten";
const std::string kDimRange =
    "eager|cpu|batched-error|RuntimeError|Dimension is out of range (expected to be in range of [-N, ...], but got [-N]|";
const std::string kCondOuter =
    "eager|cpu|mismatch|cond,|cond.predicate:batched@outer,cond.predicate:unbatched@inner,nested,|shape:all";
const std::string kCondOuterValues =
    "direct|cpu|mismatch|cond,|cond.predicate:batched@outer,nested,|values:all";
const std::string kScan = "eager|cpu|mismatch|scan,|scan.xs:batched@vmap,|values:some";

std::string tempDir(const std::string &name) {
  auto d = fs::temp_directory_path() / ("vmapfuzz-triage-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

} // namespace

TEST(Triage, ParsesErrorAndMismatchSignatures) {
  auto e = parseSignature(kPytree);
  EXPECT_EQ(e.system, "eager|cpu");
  EXPECT_EQ(e.verdict, "batched-error");
  EXPECT_EQ(e.errorType, "ValueError");
  EXPECT_EQ(e.frame, "utils/_pytree.py:unflatten");
  EXPECT_NE(e.message.find("treespec.unflatten"), std::string::npos);

  auto m = parseSignature(kCondOuter);
  EXPECT_EQ(m.verdict, "mismatch");
  EXPECT_EQ(m.constructs, (std::vector<std::string>{"cond"}));
  EXPECT_EQ(m.features.size(), 3u);
  EXPECT_EQ(m.kind, "shape:all");

  // An old key, kept as an alias: only the constructs.
  auto old = parseSignature("eager|cpu|mismatch|cond,");
  EXPECT_EQ(old.constructs, (std::vector<std::string>{"cond"}));
  EXPECT_TRUE(old.features.empty());
  EXPECT_EQ(old.kind, "");
  // A frame-less error keeps an empty frame, not the message's tail.
  EXPECT_EQ(parseSignature(kDimRange).frame, "");
  EXPECT_NE(parseSignature(kDimRange).message.find("out of range"), std::string::npos);
}

TEST(Triage, ParsesAnErrorsCulpritKeyWithItsFeaturesAndAnOldOne) {
  auto e = parseSignature("eager|cpu|batched-error|culprit:hop:scan|in_dims>0@inner,scan.xs:batched@inner,|RuntimeError||c++ from the program");
  EXPECT_EQ(e.culprit, "hop:scan");
  EXPECT_EQ(e.features, (std::vector<std::string>{"in_dims>0@inner", "scan.xs:batched@inner"}));
  EXPECT_EQ(e.errorType, "RuntimeError");
  EXPECT_EQ(e.message, "");
  EXPECT_EQ(e.frame, "c++ from the program");
  auto none = parseSignature("eager|cpu|batched-error|culprit:hop:cond||ValueError||utils/_pytree.py:unflatten");
  EXPECT_TRUE(none.features.empty());
  EXPECT_EQ(none.errorType, "ValueError");
  EXPECT_EQ(none.frame, "utils/_pytree.py:unflatten");
  // Before the features (kept as aliases): the exception comes right after the culprit.
  auto old = parseSignature("eager|cpu|batched-error|culprit:hop:scan|RuntimeError|Index tensor must have the same number|");
  EXPECT_EQ(old.errorType, "RuntimeError");
  EXPECT_EQ(old.message, "Index tensor must have the same number");
  EXPECT_EQ(old.frame, "");
}

TEST(Triage, TheSameBugInTwoModesIsOneRootCause) {
  std::string direct = "direct|cpu" + kCondOuter.substr(std::string("eager|cpu").size());
  EXPECT_EQ(rootCauseOf(kCondOuter), rootCauseOf(direct));
  EXPECT_NE(rootCauseOf(kCondOuter), rootCauseOf(kCondOuterValues));
  EXPECT_EQ(rootCauseOf(kCondOuter).rfind("mismatch|cond,|", 0), 0u) << rootCauseOf(kCondOuter);
}

TEST(Triage, ClosestReportsRankTheSameFrameAndSharedFeaturesFirst) {
  std::vector<std::pair<std::string, std::string>> filed = {
      {"batched-error-dim", kDimRange}, {"batched-error-pytree", kPytree}, {"mismatch-cond", kCondOuter}, {"mismatch-scan", kScan}};
  auto err = closestReports(kPytreeOtherWords, filed);
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err[0].report, "batched-error-pytree");
  EXPECT_NE(err[0].shares.find("the same torch frame"), std::string::npos) << err[0].shares;
  EXPECT_NE(err[0].differs.find("message differs"), std::string::npos) << err[0].differs;
  EXPECT_NE(err[0].differs.find("filed from eager|cpu"), std::string::npos) << err[0].differs;
  for (const auto &c : err) EXPECT_EQ(c.report.rfind("batched-error", 0), 0u) << "another verdict compared: " << c.report;

  auto mis = closestReports(kCondOuterValues, filed);
  ASSERT_FALSE(mis.empty());
  EXPECT_EQ(mis[0].report, "mismatch-cond");
  EXPECT_NE(mis[0].shares.find("cond.predicate:batched@outer"), std::string::npos) << mis[0].shares;
  EXPECT_NE(mis[0].differs.find("cond.predicate:unbatched@inner"), std::string::npos) << mis[0].differs;
  EXPECT_GT(mis[0].score, mis.size() > 1 ? mis[1].score : 0.0);

  // Never itself, at most n, nothing below the threshold.
  EXPECT_TRUE(closestReports(kScan, {{"mismatch-scan", kScan}}).empty());
  EXPECT_LE(closestReports(kCondOuterValues, filed, 1).size(), 1u);
  EXPECT_TRUE(closestReports(kCondOuterValues, filed, 3, 1.01).empty());
}

TEST(Triage, ReportsAreGroupedPerRootCauseWithTheirHitsSummed) {
  std::vector<FiledReport> reports = {
      {"r/mismatch-a", {{"signature", kCondOuter}, {"hits", 2}, {"status", "fixed"}}},
      {"r/mismatch-b", {{"signature", "direct|cpu" + kCondOuter.substr(9)}, {"hits", 5}, {"status", "open"}}},
      {"r/batched-error-c", {{"signature", kDimRange}, {"hits", 3}}},
  };
  auto g = groupByRootCause(reports);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].hits, 7);
  EXPECT_EQ(g[0].reports, (std::vector<std::string>{"mismatch-a", "mismatch-b"}));
  EXPECT_EQ(g[0].systems, (std::vector<std::string>{"eager|cpu", "direct|cpu"}));
  EXPECT_TRUE(g[0].open);
  EXPECT_EQ(g[1].hits, 3);
  std::string md = reportsMarkdown(reports);
  EXPECT_NE(md.find("2 root cause(s) in 3 report(s)"), std::string::npos) << md;
  EXPECT_NE(md.find("| 7 | mismatch | cond; needs "), std::string::npos) << md;
  // The per-report table names each one's closest other root cause; one root cause is never its own.
  reports.push_back({"r/mismatch-d", {{"signature", kCondOuterValues}, {"hits", 1}}});
  md = reportsMarkdown(reports);
  EXPECT_NE(md.find("`mismatch-d` | `mismatch-a` ("), std::string::npos) << md;
  EXPECT_EQ(md.find("`mismatch-a` | `mismatch-b`"), std::string::npos) << md;
}

TEST(Triage, ReportsAreGroupedPerCulprit) {
  const std::string condA = "eager|cpu|mismatch|culprit:hop:cond||cond.predicate:batched@inner,|silent";
  const std::string condB = "eager|cpu|batched-error|culprit:hop:cond|ValueError||_higher_order_ops/cond.py:cond_batch_rule";
  std::vector<FiledReport> reports = {
      {"r/mismatch-a", {{"signature", condA}, {"hits", 2}, {"status", "fixed"}}},
      {"r/mismatch-a2", {{"signature", "direct|cpu" + condA.substr(9)}, {"hits", 1}}}, // one root cause in two modes
      {"r/batched-error-b", {{"signature", condB}, {"hits", 4}}},
      // Signed by its ablation (an older report), the culprit in its meta.json.
      {"r/mismatch-c", {{"signature", kScan}, {"hits", 9}, {"culprits", {{"culprit", "hop:scan"}}}}},
      {"r/batched-error-d", {{"signature", kDimRange}, {"hits", 50}, {"culprits", {{"culprit", nullptr}}}}},
  };
  auto g = groupByCulprit(reports);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].culprit, "hop:scan"); // the most hit first...
  EXPECT_EQ(g[1].culprit, "hop:cond");
  EXPECT_EQ(g[1].reports, (std::vector<std::string>{"mismatch-a", "mismatch-a2", "batched-error-b"}));
  EXPECT_EQ(g[1].rootCauses, 2u);
  EXPECT_EQ(g[1].hits, 7);
  EXPECT_EQ(g[1].open, 2);
  EXPECT_EQ(g[2].culprit, ""); // ...the ones localised to none last, however often hit
  const std::string md = reportsMarkdown(reports);
  EXPECT_NE(md.find("## Reports per culprit"), std::string::npos) << md;
  EXPECT_NE(md.find("| `hop:cond` | the vmap rule of cond | 2 | `mismatch-a`, `mismatch-a2`, `batched-error-b` | 2 | 7 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| (not localised) |"), std::string::npos) << md;
}

TEST(Triage, ANewSignatureIsFiledWithItsClosestReports) {
  std::string dir = tempDir("closest");
  FindingStore store(dir);
  Case c = parseCase(vf::test::kCond);
  CaseResult r;
  r.verdict = Verdict::BatchedError;
  r.errorType = "ValueError";
  r.errorMessage = "treespec.unflatten";
  auto first = store.record(c, r, "vmapfuzz replay case.vf", "", kPytree);
  auto second = store.record(c, r, "vmapfuzz replay case.vf", "", kPytreeOtherWords);
  ASSERT_TRUE(first.isNew);
  ASSERT_TRUE(second.isNew);
  std::ifstream in(second.dir + "/meta.json");
  auto meta = nlohmann::json::parse(in);
  ASSERT_TRUE(meta.contains("closest")) << meta.dump(2);
  EXPECT_EQ(meta["closest"][0]["report"], fs::path(first.dir).filename().string());
  std::ifstream md(second.dir + "/report.md");
  std::string text((std::istreambuf_iterator<char>(md)), {});
  EXPECT_NE(text.find("## Closest filed reports"), std::string::npos) << text;
  // The first one had nothing filed before it.
  std::ifstream in1(first.dir + "/meta.json");
  EXPECT_FALSE(nlohmann::json::parse(in1).contains("closest"));
}

TEST(Triage, FailuresThroughARuleAreComparedByCulpritAndFeatures) {
  // "rules|DEVICE|fails|culprit:C|FEATURES" (signature.h: culpritKey): no verdict, no message.
  const std::string a = "rules|cpu|fails|culprit:hop:cond|cond.predicate:batched@inner,";
  const std::string b = "rules|cpu|fails|culprit:hop:cond|cond.predicate:batched@inner,in_dims>0@inner,";
  const std::string c = "rules|cpu|fails|culprit:hop:scan|scan.xs:batched@inner,";
  const auto close = closestReports(a, {{"mismatch-b", b}, {"batched-error-c", c}, {"mismatch-old", kScan}});
  // Another rule needing another feature shares nothing; the older key has another verdict.
  ASSERT_EQ(close.size(), 1u);
  EXPECT_EQ(close[0].report, "mismatch-b");
  EXPECT_NE(close[0].shares.find("the same culprit (hop:cond)"), std::string::npos) << close[0].shares;
  EXPECT_NE(close[0].differs.find("needs in_dims>0@inner only there"), std::string::npos) << close[0].differs;
  EXPECT_GT(close[0].score, 0.5);
  const auto md = reportsMarkdown({{"r/mismatch-b", {{"signature", b}, {"hits", 1}}}});
  EXPECT_NE(md.find("`hop:cond` gives a wrong result; needs cond.predicate:batched@inner, in_dims>0@inner"), std::string::npos) << md;
}
