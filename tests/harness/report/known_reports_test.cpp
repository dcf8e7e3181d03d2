// The read-only set of known bugs (harness/report/known_reports.h): signatures and aliases map to
// their folders, hits are counted outside the folder, and the default is the checkout's reports/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "harness/report/known_reports.h"

using namespace vf;
namespace fs = std::filesystem;

namespace {

std::string tempDir(const std::string &name) {
  auto d = fs::temp_directory_path() / ("vmapfuzz-unit-known-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

void writeMeta(const std::string &folder, const nlohmann::json &meta) {
  fs::create_directories(folder);
  std::ofstream(folder + "/meta.json") << meta.dump(2) << "\n";
}

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Two filed folders: one with an alias (an older signature merged into it).
std::string twoReports(const std::string &name) {
  std::string d = tempDir(name);
  writeMeta(d + "/batched-error-aaaa", {{"signature", "direct|cpu|batched-error|RuntimeError|x"}, {"hits", 3}});
  writeMeta(d + "/mismatch-bbbb", {{"signature", "eager|cpu|mismatch|cond|needs-pred-batched|values:all"},
                                   {"aliases", {"eager|cpu|mismatch|cond|old|values:all"}}});
  fs::create_directories(d + "/not-a-report"); // no meta.json: not a folder of the set
  return d;
}

} // namespace

TEST(KnownReports, FindsASignatureAndAnAliasInTheirFolders) {
  KnownReports k(twoReports("find"), "reports");
  EXPECT_EQ(k.folders(), 2u);
  EXPECT_EQ(k.signatures(), 3u);
  EXPECT_EQ(k.find("direct|cpu|batched-error|RuntimeError|x"), "reports/batched-error-aaaa");
  EXPECT_EQ(k.find("eager|cpu|mismatch|cond|old|values:all"), "reports/mismatch-bbbb");
  EXPECT_EQ(k.find("eager|cpu|mismatch|cond|values:all"), std::nullopt); // an unablated key is not the filed one
}

// Look-behind steps around the folder's signature (its culprit and features), not around an old
// alias it was met under.
TEST(KnownReports, AnAliasIsFiledUnderItsFoldersSignature) {
  KnownReports k(twoReports("filed-under"), "reports");
  EXPECT_EQ(k.filedUnder("eager|cpu|mismatch|cond|old|values:all"), "eager|cpu|mismatch|cond|needs-pred-batched|values:all");
  EXPECT_EQ(k.filedUnder("direct|cpu|batched-error|RuntimeError|x"), "direct|cpu|batched-error|RuntimeError|x");
  EXPECT_EQ(k.filedUnder("not|filed"), "not|filed");
}

TEST(KnownReports, CountsHitsUnderTheFolderAndSaysSoOnce) {
  const std::string dir = twoReports("hits");
  const std::string before = slurp(dir + "/mismatch-bbbb/meta.json");
  KnownReports k(dir, "reports");
  auto first = k.hit("eager|cpu|mismatch|cond|old|values:all", "mismatch", "eager|cpu");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->rfind("known: reports/mismatch-bbbb", 0), 0u) << *first;
  auto second = k.hit("eager|cpu|mismatch|cond|needs-pred-batched|values:all", "mismatch", "eager|cpu");
  ASSERT_TRUE(second);
  EXPECT_EQ(*second, ""); // the same folder: counted, not said again
  EXPECT_FALSE(k.hit("direct|cpu|batched-error|TypeError|y", "batched-error", "direct|cpu"));
  auto hits = k.hits();
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits["mismatch-bbbb"].hits, 2);
  EXPECT_EQ(hits["mismatch-bbbb"].signature, "eager|cpu|mismatch|cond|needs-pred-batched|values:all");
  EXPECT_EQ(k.totalHits(), 2);
  std::ostringstream os;
  printKnown(k, os);
  EXPECT_NE(os.str().find("known 2x eager|cpu|mismatch|cond|needs-pred-batched|values:all"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("known: reports/mismatch-bbbb"), std::string::npos) << os.str();
  EXPECT_EQ(slurp(dir + "/mismatch-bbbb/meta.json"), before); // read only
}

TEST(KnownReports, SaveAddsEachCampaignsHitsToTheOutputFile) {
  const std::string dir = twoReports("save"), out = tempDir("save-out") + "/known.json";
  for (int campaign = 0; campaign < 2; ++campaign) {
    KnownReports k(dir, "reports");
    k.hit("direct|cpu|batched-error|RuntimeError|x", "batched-error", "direct|cpu");
    k.hit("direct|cpu|batched-error|RuntimeError|x", "batched-error", "direct|cpu");
    k.save(out);
  }
  auto j = nlohmann::json::parse(slurp(out));
  EXPECT_EQ(j["folders"]["batched-error-aaaa"]["hits"], 4);
  EXPECT_EQ(j["known"], "reports");
  EXPECT_EQ(nlohmann::json::parse(slurp(dir + "/batched-error-aaaa/meta.json"))["hits"], 3); // untouched
}

TEST(KnownReports, AnUnreadableMetaJsonOrAMissingFolderThrows) {
  std::string d = tempDir("bad");
  fs::create_directories(d + "/x");
  std::ofstream(d + "/x/meta.json") << "{ not json";
  EXPECT_THROW(KnownReports(d, "reports"), std::exception);
  EXPECT_THROW(KnownReports(d + "/absent", "reports"), std::exception);
}

TEST(KnownReports, TheDefaultIsTheCheckoutsReportsWhenRunInsideIt) {
  std::string src = tempDir("checkout");
  fs::create_directories(src + "/reports");
  fs::create_directories(src + "/build/tests");
  std::string elsewhere = tempDir("elsewhere");
  EXPECT_EQ(fs::path(defaultKnownDir(src, src)), fs::canonical(src) / "reports");
  EXPECT_EQ(fs::path(defaultKnownDir(src, src + "/build/tests")), fs::canonical(src) / "reports");
  EXPECT_EQ(defaultKnownDir(src, elsewhere), "");
  EXPECT_EQ(defaultKnownDir("", src), "");
  fs::remove_all(src + "/reports");
  EXPECT_EQ(defaultKnownDir(src, src), ""); // no reports/ there
}

TEST(KnownReports, ShowsAFolderRelativeToTheWorkingDirectory) {
  std::string src = tempDir("shown");
  fs::create_directories(src + "/reports");
  EXPECT_EQ(shownName(src + "/reports", src), "reports");
  EXPECT_EQ(shownName(src + "/reports", tempDir("shown-other")), src + "/reports");
}
