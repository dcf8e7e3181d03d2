// Look-behind end to end (issue 29): two faults planted at once, a frequent one in cond's rule,
// filed beforehand, and one in torch's `sum` batching that lives only where the first is met.
// With look-behind a campaign steps around the filed cond bug, finds the sum bug behind it and
// files it as new, under its own culprit, from a case file that replays and fails; without it,
// every case that meets the sum bug ends on the filed cond bug and the sum bug stays hidden.
#include <filesystem>
#include <string>

#include "tests/e2e/e2e.h"

namespace fs = std::filesystem;
using vf::test::kBin;
using vf::test::Shell;
using vf::test::sh;
using vf::test::tempDir;

namespace {

// Every statement of the top level is a cond (its ops live in branches), its predicate batched.
const std::string kOnlyBatchedConds = " --gen cond_percent=100 --gen scan_weight=0 --gen unbatched_selector_percent=0"
                                      " --gen python_bool_percent=0 --gen unbatched_input_percent=0"
                                      " --gen vmap_weight=0 --gen grad_weight=0 --gen jvp_weight=0"
                                      " --gen pred_input_percent=0"; // a computed predicate: the planted fault's trigger
const std::string kCondFault = " --fault cond-batched-pred-swapped";
const std::string kSumFault = " --fault aten-sum-negative-dim";

/// The report folders under `dir` whose signature names culprit `culprit`.
std::vector<fs::path> filedWithCulprit(const std::string &dir, const std::string &culprit) {
  std::vector<fs::path> out;
  for (const auto &e : fs::directory_iterator(dir))
    if (fs::exists(e.path() / "meta.json") &&
        vf::test::readJson(e.path() / "meta.json").value("signature", "").find("|culprit:" + culprit + "|") != std::string::npos)
      out.push_back(e.path());
  return out;
}

} // namespace

TEST(LookBehindE2E, ABugBehindAFrequentFiledOneIsFiledAsNewOnlyWithLookBehind) {
  const std::string d = tempDir("look-behind");
  const std::string campaign = kBin + " fuzz --mode direct --cases 120 --time 600 --known none" + kOnlyBatchedConds;
  // The frequent bug, alone, filed first (with the real torch bugs these programs meet).
  Shell first = sh(campaign + " --seed 5" + kCondFault + " --reports " + d + "/reports --out " + d + "/first");
  ASSERT_EQ(first.code, 1) << first.out;
  ASSERT_FALSE(filedWithCulprit(d + "/reports", "hop:cond").empty()) << first.out;
  fs::copy(d + "/reports", d + "/reports-off", fs::copy_options::recursive);

  // Both faults, the same cases with and without look-behind.
  const std::string both = campaign + " --seed 6" + kCondFault + kSumFault;
  Shell off = sh(both + " --gen look_behind=0 --reports " + d + "/reports-off --out " + d + "/off");
  EXPECT_TRUE(filedWithCulprit(d + "/reports-off", "op:sum").empty()) << off.out; // hidden behind the cond bug
  const auto offSummary = vf::test::readJson(d + "/off/summary.json");
  EXPECT_GT(offSummary["look_behind"]["cases_ended"].get<int64_t>(), 60) << offSummary["look_behind"].dump();

  Shell on = sh(both + " --reports " + d + "/reports --out " + d + "/on");
  EXPECT_EQ(on.code, 1) << on.out;
  const auto sum = filedWithCulprit(d + "/reports", "op:sum");
  ASSERT_EQ(sum.size(), 1u) << on.out;
  const auto meta = vf::test::readJson(sum[0] / "meta.json");
  EXPECT_EQ(meta["reproduce"].get<std::string>().find("vmapfuzz gen"), std::string::npos) << meta.dump(); // its own case.vf
  EXPECT_TRUE(meta["step_around"].is_array() && !meta["step_around"].empty()) << meta.dump();
  const auto summary = vf::test::readJson(d + "/on/summary.json");
  EXPECT_GE(summary["look_behind"]["filed_new"].get<int64_t>(), 1) << summary["look_behind"].dump();
  EXPECT_LT(summary["look_behind"]["cases_ended"].get<int64_t>(), offSummary["look_behind"]["cases_ended"].get<int64_t>() / 4)
      << summary["look_behind"].dump();
  // No false alarm: the filed case replays and fails from its own files, with the faults planted.
  Shell replay = sh("cd " + sum[0].string() + " && " + kBin + " replay --mode direct" + kCondFault + kSumFault + " case.vf");
  EXPECT_EQ(replay.code, 1) << replay.out;
}
