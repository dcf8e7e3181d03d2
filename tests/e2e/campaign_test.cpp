// End-to-end through the CLI binary: exit codes, findings on disk, repro scripts.
#include <gtest/gtest.h>

#include <tuple>

#include "tests/e2e/e2e.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "ir/text.h"

namespace fs = std::filesystem;

namespace {

using vf::test::kBin;
using vf::test::campaignExitOf;
using vf::test::sh;
using vf::test::Shell;
using vf::test::tempDir;




} // namespace

TEST(Cli, BadCaseFileGetsLineColumnAndExit2) {
  std::string d = tempDir("bad");
  std::ofstream(d + "/bad.vf") << "func(%0: f32[2]) {\n  %1: f32[2] = neg(%0\n  return %1\n}\n";
  Shell r = sh(kBin + " replay " + d + "/bad.vf");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("bad.vf:3:3: error: expected ')'"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "one line: " << r.out;
}

TEST(Cli, BadFlagsAreUsageErrors) {
  EXPECT_EQ(sh(kBin + " fuzz --bogus").code, 2);
  EXPECT_EQ(sh(kBin + " fuzz --time soon").code, 2);
  EXPECT_EQ(sh(kBin + " frobnicate").code, 2);
  Shell r = sh(kBin + " replay /nonexistent/case.vf");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("cannot read"), std::string::npos) << r.out;
}

TEST(Cli, MissingPythonIsAnEnvironmentError) {
  Shell r = sh(kBin + " fuzz --cases 1 --python /nonexistent/python3 --out " + tempDir("nopy"));
  EXPECT_EQ(r.code, 3) << r.out;
}

TEST(Cli, ACampaignThatFindsNothingNewExitsZero) {
  std::string d = tempDir("clean");
  // The first run may find real torch bugs (exit 1) and files them; the same campaign again
  // meets only filed signatures, so it exits 0. Either way our reference never disagrees with
  // torch's own per-example run.
  // Every case in both default modes, so the second run makes exactly the runs of the first.
  const std::string cmd = kBin + " fuzz --cases 12 --time 600 --seed 3 --other-modes-share 100 --out " + d;
  Shell first = sh(cmd);
  EXPECT_NE(first.out.find("== vmapfuzz summary =="), std::string::npos) << first.out;
  EXPECT_EQ(first.code, campaignExitOf(first.out)) << first.out;
  Shell again = sh(cmd);
  auto at = again.out.find("harness-bug");
  ASSERT_NE(at, std::string::npos) << again.out;
  EXPECT_EQ(std::stoi(again.out.substr(at + 11)), 0) << "our reference and torch's per-example run disagreed:\n" << again.out;
  EXPECT_EQ(again.code, 0) << again.out;
}

namespace {
int countReports(const std::string &dir, const std::string &prefix) {
  int n = 0;
  for (auto &e : fs::directory_iterator(dir)) n += e.path().filename().string().rfind(prefix, 0) == 0;
  return n;
}
} // namespace

TEST(Cli, PlantedCondBugIsFoundShrunkAndFiledOnce) {
  std::string d = tempDir("planted"), reports = d + "/reports", corpus = d + "/corpus";
  // Single-output conds, one vmap level, no nesting: the parts of torch 2.14's cond rule that
  // are right, so that the planted fault is what the campaign finds.
  const std::string gen = " --gen max_region_outputs=1 --gen max_levels=1 --gen max_depth=1";
  const std::string fault = " --fault cond-batched-pred-swapped";
  Shell r = sh(kBin + " fuzz --cases 40 --time 600 --seed 12" + gen + fault + " --out " + d + " --reports " + reports +
               " --corpus " + corpus);
  ASSERT_EQ(r.code, 1) << r.out;
  ASSERT_EQ(countReports(reports, "mismatch"), 1) << r.out;
  for (auto &e : fs::directory_iterator(reports)) {
    if (e.path().filename().string().rfind("mismatch", 0) != 0) continue;
    for (const char *f : {"case.vf", "repro.py", "report.md", "meta.json", "result.txt"})
      ASSERT_TRUE(fs::exists(e.path() / f)) << f;
    // Shrunk: at most 4 statements besides the cond itself.
    std::stringstream text;
    text << std::ifstream(e.path() / "case.vf").rdbuf();
    vf::Case shrunk = vf::parseCase(text.str());
    EXPECT_LE(shrunk.program.size(), 5u) << text.str();
    EXPECT_TRUE(fs::exists(corpus / e.path().filename().replace_extension(".vf")) ||
                fs::exists(fs::path(corpus) / (e.path().filename().string() + ".vf")));
    // The repro runs on plain torch, so the planted fault is absent: it must pass there,
    // and with the fault planted it must fail.
    Shell plain = sh("python3 " + (e.path() / "repro.py").string());
    EXPECT_EQ(plain.code, 0) << plain.out;
    Shell faulty = sh("python3 -c \"import sys; sys.path.insert(0, '" VMAPFUZZ_SOURCE_DIR "/harness/backends/torch/worker'); "
                      "import vmapfuzz_faults; vmapfuzz_faults.plant(['cond-batched-pred-swapped']); "
                      "sys.argv=['repro']; exec(open('" + (e.path() / "repro.py").string() + "').read())\"");
    EXPECT_EQ(faulty.code, 1) << faulty.out;
    Shell replay = sh(kBin + " replay --fault cond-batched-pred-swapped " + (e.path() / "case.vf").string());
    EXPECT_EQ(replay.code, 1) << replay.out;
    // Culprit localisation names the rule the fault is planted in (culprit_e2e_test.cpp has more).
    nlohmann::json meta = vf::test::readJson(e.path() / "meta.json");
    EXPECT_EQ(meta["culprits"]["culprit"], "hop:cond") << meta.dump(2);
  }
  // Another seed finds the same bug again: no new report, only more hits.
  Shell again = sh(kBin + " fuzz --cases 40 --time 600 --seed 13" + gen + fault + " --out " + d + " --reports " + reports);
  EXPECT_EQ(countReports(reports, "mismatch"), 1) << again.out;
  EXPECT_NE(again.out.find("known "), std::string::npos) << again.out;
  // (A real torch 2.14 bug may show up as a new batched-error; the planted one must not be new.)
  EXPECT_EQ(again.out.find("NEW   1x mismatch"), std::string::npos) << again.out;
  EXPECT_EQ(again.out.find("NEW mismatch"), std::string::npos) << again.out;
}

TEST(Cli, HelpAfterACommandPrintsTheUsageAndExitsZero) {
  // The usage of the app, or of the command named, with every flag and its default.
  for (auto [cmd, usage, flag] : {std::tuple{" --help", "usage: vmapfuzz COMMAND", "nightly"},
                                  std::tuple{" fuzz --help", "usage: vmapfuzz fuzz", "--mutate-share INT [10]"},
                                  std::tuple{" replay -h", "usage: vmapfuzz replay FILE|DIR...", "--reports"}}) {
    Shell r = sh(kBin + cmd);
    EXPECT_EQ(r.code, 0) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find(usage), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(flag), std::string::npos) << r.out;
  }
}

TEST(Cli, ABadFlagIsNamedWithExit2) {
  for (auto [cmd, named] : {std::pair{" fuzz --bogus", "--bogus"}, std::pair{" fuzz --time soon", "--time"},
                            std::pair{" gen --size 5000", "--size"}, std::pair{" fuzz --seed -3", "--seed"},
                            std::pair{" nightly --jobs", "--jobs"}, std::pair{" frobnicate", "frobnicate"}}) {
    Shell r = sh(kBin + cmd);
    EXPECT_EQ(r.code, 2) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find(named), std::string::npos) << cmd << "\n" << r.out;
  }
}

TEST(Cli, ShrinkKeepsAPlantedMismatchAndReplayFilesIt) {
  std::string d = tempDir("shrink");
  const std::string seed = VMAPFUZZ_SOURCE_DIR "/corpus/seeds/cond_batched_pred.vf";
  const std::string fault = " --fault cond-batched-pred-swapped";
  Shell s = sh(kBin + " shrink" + fault + " " + seed + " --out " + d + "/small.vf");
  ASSERT_EQ(s.code, 1) << s.out;
  vf::Case before = vf::parseCase(vf::test::slurp(seed));
  vf::Case after = vf::parseCase(vf::test::slurp(d + "/small.vf"));
  EXPECT_LT(after.program.size(), before.program.size()) << vf::printCase(after);
  // Still the same failure, and replay files it once, then counts a known hit.
  const std::string replay = kBin + " replay" + fault + " --reports " + d + "/reports " + d + "/small.vf";
  Shell first = sh(replay);
  EXPECT_EQ(first.code, 1) << first.out;
  EXPECT_NE(first.out.find("small.vf: mismatch"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("filed: "), std::string::npos) << first.out;
  EXPECT_EQ(countReports(d + "/reports", "mismatch"), 1);
  Shell second = sh(replay);
  EXPECT_NE(second.out.find("known: "), std::string::npos) << second.out;
  EXPECT_EQ(countReports(d + "/reports", "mismatch"), 1);
  // A passing case has nothing to shrink: a usage error, not a silent copy.
  Shell clean = sh(kBin + " shrink " + seed);
  EXPECT_EQ(clean.code, 2) << clean.out;
  EXPECT_NE(clean.out.find("nothing to shrink"), std::string::npos) << clean.out;
}

TEST(Cli, ReplayTakesADirectory) {
  Shell r = sh(kBin + " replay " VMAPFUZZ_SOURCE_DIR "/corpus/seeds");
  EXPECT_NE(r.out.find("cond_batched_pred.vf: pass"), std::string::npos) << r.out;
}

TEST(Reports, EveryFiledReproFailsAsItsReportSays) {
  // The checked-in reports were filed against one torch; on that torch each repro.py must
  // still fail (exit 1). On another torch `vmapfuzz recheck` says which are fixed.
  Shell v = sh("python3 -c 'import torch; print(torch.__version__)'");
  std::string torch = v.out.substr(0, v.out.find('\n'));
  int ran = 0, otherTorch = 0;
  for (auto &e : fs::directory_iterator(VMAPFUZZ_SOURCE_DIR "/reports")) {
    if (!fs::exists(e.path() / "meta.json")) continue;
    std::ifstream in(e.path() / "meta.json");
    auto meta = nlohmann::json::parse(in);
    if (meta["environment"].value("torch", "") != torch) {
      ++otherTorch;
      continue;
    }
    Shell r = sh("cd '" + e.path().string() + "' && python3 repro.py");
    EXPECT_EQ(r.code, 1) << e.path() << " should still fail on torch " << torch << ":\n" << r.out;
    EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
    ++ran;
  }
  if (ran == 0) GTEST_SKIP() << otherTorch << " reports were filed against another torch than " << torch;
}
