// `fuzz --known DIR` (issue 31): a campaign that meets bugs filed in DIR shows them as known,
// files nothing for them under its own OUT/findings, leaves DIR untouched and exits 0.
#include <filesystem>
#include <map>

#include "tests/e2e/e2e.h"

namespace fs = std::filesystem;
using vf::test::kBin;
using vf::test::Shell;
using vf::test::sh;
using vf::test::tempDir;

namespace {

/// Each report folder under `dir` with its meta.json's text.
std::map<std::string, std::string> metas(const std::string &dir) {
  std::map<std::string, std::string> m;
  if (!fs::is_directory(dir)) return m;
  for (const auto &e : fs::directory_iterator(dir))
    if (fs::exists(e.path() / "meta.json")) m[e.path().filename().string()] = vf::test::slurp(e.path() / "meta.json");
  return m;
}

} // namespace

TEST(Known, ACampaignMeetingOnlyKnownBugsShowsThemKnownFilesNothingAndExitsZero) {
  std::string d = tempDir("known");
  // A planted mismatch (cond's batched predicate swapped) on single-output, one-level conds, in
  // direct mode only: the same campaign finds it the same way each time. Its filed signature
  // holds features ablated on the shrunk case, so the second campaign shrinks and ablates it
  // again before it can tell that it is known.
  const std::string campaign = kBin + " fuzz --mode direct --cases 40 --time 600 --seed 12 --fault cond-batched-pred-swapped"
                                      " --gen max_region_outputs=1 --gen max_levels=1 --gen max_depth=1";
  Shell first = sh(campaign + " --known none --out " + d + "/first");
  ASSERT_EQ(first.code, 1) << first.out; // the planted bug is new there
  const auto filed = metas(d + "/first/findings");
  ASSERT_FALSE(filed.empty()) << first.out;

  Shell again = sh(campaign + " --known " + d + "/first/findings --out " + d + "/again");
  EXPECT_EQ(again.code, 0) << again.out; // every finding is filed in the known folder
  EXPECT_NE(again.out.find("known: "), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("known (filed in "), std::string::npos) << again.out; // the summary's section
  EXPECT_EQ(again.out.find("NEW "), std::string::npos) << again.out;
  EXPECT_TRUE(metas(d + "/again/findings").empty()) << again.out; // nothing filed for them
  EXPECT_EQ(metas(d + "/first/findings"), filed);                  // the known folder is read only
  auto hits = vf::test::readJson(d + "/again/known.json");          // their hits are counted in OUT
  ASSERT_TRUE(hits["folders"].is_object()) << hits.dump();
  int64_t total = 0;
  for (const auto &[folder, h] : hits["folders"].items()) {
    EXPECT_TRUE(filed.count(folder)) << folder;
    total += h.value("hits", int64_t{0});
  }
  EXPECT_GT(total, 0) << hits.dump();
}

TEST(Known, TheDefaultIsTheCheckoutsReportsInsideItAndNothingElsewhere) {
  std::string d = tempDir("flag");
  Shell missing = sh(kBin + " fuzz --cases 1 --known " + d + "/absent --out " + d + "/out");
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_NE(missing.out.find("--known"), std::string::npos) << missing.out;
  // Outside the checkout the default knows nothing but the campaign's own findings.
  Shell outside = sh("cd " + d + " && " + kBin + " fuzz --mode direct --cases 1 --out out");
  EXPECT_TRUE(outside.code == 0 || outside.code == 1) << outside.out;
  EXPECT_EQ(outside.out.find("known bugs:"), std::string::npos) << outside.out;
  // Inside it: the project's reports/, shown by their path from there; --known none turns it off.
  const std::string inside = std::string("cd ") + VMAPFUZZ_SOURCE_DIR + " && " + kBin + " fuzz --mode direct --cases 1 --out " + d;
  Shell on = sh(inside + "/on");
  EXPECT_TRUE(on.code == 0 || on.code == 1) << on.out;
  EXPECT_NE(on.out.find("known bugs: reports/ ("), std::string::npos) << on.out;
  Shell off = sh(inside + "/off --known none");
  EXPECT_EQ(off.out.find("known bugs:"), std::string::npos) << off.out;
}
