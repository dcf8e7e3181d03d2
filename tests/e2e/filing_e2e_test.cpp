// Filing that survives company and faults (docs/filing.md): several campaigns on one reports
// folder at once, one of them killed, and a reports folder that runs out of space.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "harness/report/safe_files.h"
#include "tests/e2e/e2e.h"

namespace fs = std::filesystem;
using vf::test::kBin;
using vf::test::readJson;
using vf::test::sh;
using vf::test::slurp;
using vf::test::tempDir;

namespace {

/// A planted bug in cond's batching rule that a short direct-mode campaign meets within a few
/// cases (as in campaign_test's PlantedCondBugIsFoundShrunkAndFiledOnce), real torch bugs besides.
const std::string kPlanted = " --mode direct --jobs 1 --gen max_region_outputs=1 --gen max_levels=1 --gen max_depth=1"
                             " --fault cond-batched-pred-swapped";

std::string campaign(const std::string &seconds, int seed, const std::string &out, const std::string &reports) {
  return kBin + " fuzz --time " + seconds + " --seed " + std::to_string(seed) + kPlanted + " --out " + out + " --reports " + reports;
}

/// Starts `cmd` in the background, its output in LOG and its exit code in LOG.rc; returns its pid.
pid_t start(const std::string &cmd, const std::string &log) {
  sh("(" + cmd + " > " + log + " 2>&1 & echo $! > " + log + ".pid; wait $!; echo $? > " + log + ".rc) > /dev/null 2>&1 &");
  while (!fs::exists(log + ".pid") || slurp(log + ".pid").empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return static_cast<pid_t>(std::stol(slurp(log + ".pid")));
}

/// Waits until LOG.rc is there; returns the exit code it holds.
int finish(const std::string &log) {
  while (!fs::exists(log + ".rc") || slurp(log + ".rc").empty()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return std::stoi(slurp(log + ".rc"));
}

/// Every report folder's meta.json (each must parse), by folder name; fails on a folder without
/// one and on anything a writer leaves while writing.
std::map<std::string, nlohmann::json> wholeReports(const std::string &reports) {
  std::map<std::string, nlohmann::json> metas;
  for (const auto &e : fs::recursive_directory_iterator(reports))
    EXPECT_FALSE(vf::isFilingTemporary(e.path().filename().string())) << "left while writing: " << e.path();
  for (const auto &e : fs::directory_iterator(reports)) {
    const std::string name = e.path().filename().string();
    if (name[0] == '.') continue; // the lock
    EXPECT_TRUE(fs::exists(e.path() / "meta.json")) << "a report folder without its meta.json: " << e.path();
    if (fs::exists(e.path() / "meta.json")) metas[name] = readJson(e.path() / "meta.json");
  }
  return metas;
}

} // namespace

TEST(Filing, FourCampaignsOnOneReportsFolderFileEachSignatureOnceAndAddUpTheirHits) {
  const std::string d = tempDir("four"), reports = d + "/reports";
  const std::vector<int> seeds = {11, 11, 12, 13}; // two alike: the same findings at the same moments
  for (size_t i = 0; i < seeds.size(); ++i)
    start(campaign("15", seeds[i], d + "/out" + std::to_string(i), reports), d + "/log" + std::to_string(i));
  std::map<std::string, int64_t> hitsBySignature; // summed over the campaigns' summaries
  for (size_t i = 0; i < seeds.size(); ++i) {
    const std::string log = d + "/log" + std::to_string(i), out = d + "/out" + std::to_string(i);
    int code = finish(log);
    EXPECT_TRUE(code == 0 || code == 1) << "campaign " << i << " exited " << code << ":\n" << slurp(log);
    ASSERT_TRUE(fs::exists(out + "/summary.json")) << slurp(log);
    auto summary = readJson(out + "/summary.json");
    EXPECT_EQ(summary["complete"], true);
    for (const auto &f : summary["findings"]) hitsBySignature[f["signature"]] += f["hits"].get<int64_t>();
  }
  std::map<std::string, int> folders;
  int64_t hits = 0;
  for (const auto &[name, meta] : wholeReports(reports)) {
    const std::string sig = meta["signature"];
    folders[sig]++;
    hits += meta["hits"].get<int64_t>();
    EXPECT_EQ(meta["hits"].get<int64_t>(), hitsBySignature[sig]) << name << ": " << sig;
  }
  for (const auto &[sig, n] : folders) EXPECT_EQ(n, 1) << "filed " << n << " times: " << sig;
  for (const auto &[sig, n] : hitsBySignature) EXPECT_EQ(folders.count(sig), 1u) << "counted but not filed: " << sig;
  EXPECT_GT(hits, 0) << "the planted bug was not met: nothing to check";
}

TEST(Filing, AReportsFolderThatRunsOutOfSpaceIsAnEnvironmentErrorAfterTheSummary) {
  const std::string d = tempDir("full"), reports = d + "/reports", out = d + "/out";
  fs::create_directories(reports);
  // Three pages: the lock fits, a finding's folder (case, program, repro.py, report, meta) does not.
  if (sh("mount -t tmpfs -o size=12k vmapfuzz-full " + reports).code != 0) GTEST_SKIP() << "cannot mount a tmpfs here";
  auto r = sh(kBin + " fuzz --time 300 --cases 60 --seed 12" + kPlanted + " --out " + out + " --reports " + reports);
  auto metas = wholeReports(reports); // none half-written: every folder there is whole
  sh("umount " + reports);
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("vmapfuzz: error: cannot file a finding into " + reports + "/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No space left on device"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("== vmapfuzz summary =="), std::string::npos) << r.out;
  ASSERT_TRUE(fs::exists(out + "/summary.json")) << r.out;
  auto summary = readJson(out + "/summary.json");
  EXPECT_NE(summary.value("filing_error", "").find("No space left on device"), std::string::npos) << summary.dump(2);
  ASSERT_FALSE(summary["unchecked"].empty()) << "the finding that could not be filed is kept: " << summary.dump(2);
  for (const auto &u : summary["unchecked"]) EXPECT_TRUE(fs::exists(u.get<std::string>())) << u;
  EXPECT_TRUE(metas.empty()) << "nothing fits: nothing filed";
}

TEST(Filing, ACampaignKilledBesideAnotherLeavesWholeReportsAndTheNextOneResumes) {
  const std::string d = tempDir("kill"), reports = d + "/reports";
  const std::string killedLog = d + "/killed", otherLog = d + "/other";
  pid_t victim = start(campaign("60", 11, d + "/out-killed", reports), killedLog);
  start(campaign("20", 11, d + "/out-other", reports), otherLog);
  // Kill it mid-way: as it shrinks or files its first finding (the other one files the same).
  auto busy = [&] {
    std::string log = fs::exists(killedLog) ? slurp(killedLog) : "";
    return log.find("shrinking a new") != std::string::npos || log.find("NEW ") != std::string::npos ||
           fs::exists(killedLog + ".rc");
  };
  while (!busy()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  kill(victim, SIGKILL);
  int killed = finish(killedLog), other = finish(otherLog);
  EXPECT_EQ(killed, 137) << slurp(killedLog);
  EXPECT_TRUE(other == 0 || other == 1) << slurp(otherLog);
  // The killed one's summary.json, written as it went, is whole where it is there at all.
  if (fs::exists(d + "/out-killed/summary.json")) {
    EXPECT_EQ(readJson(d + "/out-killed/summary.json")["complete"], false);
  }
  // A rerun on the same folder resumes: it removes what the dead one left mid-write, counts its
  // hits on the folders filed, and leaves every report whole.
  auto rerun = sh(campaign("10", 11, d + "/out-rerun", reports));
  EXPECT_TRUE(rerun.code == 0 || rerun.code == 1) << rerun.out;
  EXPECT_NE(rerun.out.find("== vmapfuzz summary =="), std::string::npos) << rerun.out;
  auto metas = wholeReports(reports);
  EXPECT_FALSE(metas.empty()) << slurp(otherLog);
  std::set<std::string> signatures;
  for (const auto &[name, meta] : metas) EXPECT_TRUE(signatures.insert(meta["signature"]).second) << "twice: " << name;
}
