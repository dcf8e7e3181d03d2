// End-to-end: --preload runs a python file in every worker before any case. With the example
// vmap rule for while_loop (docs/preload/while_loop_vmap_rule.py) while_loop cases are checked
// instead of unsupported, and a fault planted in that rule is found and filed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/e2e/e2e.h"

namespace fs = std::filesystem;

namespace {

using vf::test::kBin;
using vf::test::readJson;
using vf::test::campaignExitOf;
using vf::test::sh;
using vf::test::Shell;
using vf::test::slurp;
using vf::test::tempDir;

const std::string kRule = VMAPFUZZ_SOURCE_DIR "/docs/preload/while_loop_vmap_rule.py";
/// Cases with while_loop as their only construct, in eager mode.
/// No conds, so no predicate input either (drawn by nothing at 0: the seed's cases as measured).
const std::string kWhileOnly = " --mode eager --gen cond_weight=0 --gen scan_weight=0 --gen switch_weight=0 --gen pred_input_percent=0";
/// The example rule's line that keeps finished lanes' carries.
const std::string kKeepLine = "torch.where(_per_lane(active, o), b, o)";

/// A copy of the example rule with one line changed: finished lanes take the body's result too.
std::string faultyRule(const std::string &dir) {
  std::istringstream in(slurp(kRule));
  std::ostringstream out;
  int changed = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find(kKeepLine) != std::string::npos) {
      line = "        return tuple(new)  # planted fault: finished lanes run on";
      ++changed;
    }
    out << line << "\n";
  }
  EXPECT_EQ(changed, 1) << "the example rule no longer has the line the fault changes";
  std::string path = dir + "/while_loop_vmap_rule_faulty.py";
  std::ofstream(path) << out.str();
  return path;
}

} // namespace

TEST(Preload, WithTheExampleRuleWhileLoopCasesAreCheckedNotUnsupported) {
  std::string d = tempDir("campaign");
  const std::string cmd = kBin + " fuzz" + kWhileOnly + " --cases 30 --seed 2 --out " + d;
  // keep_unsupported: the control run generates and runs while_loop cases although the start-up
  // probes find no rule for them.
  Shell control = sh(cmd + " --gen keep_unsupported=1 --summary-json " + d + "/control.json");
  ASSERT_EQ(control.code, campaignExitOf(control.out)) << control.out;
  EXPECT_GT(readJson(d + "/control.json")["verdicts"]["unsupported"].get<int>(), 0) << "torch has no while_loop rule";

  Shell r = sh(cmd + " --preload " + kRule + " --summary-json " + d + "/summary.json");
  // 1: torch's own bugs elsewhere may be filed; the rule must not add any.
  ASSERT_EQ(r.code, campaignExitOf(r.out)) << r.out;
  EXPECT_NE(r.out.find("preloaded: " + kRule + " (sha256 "), std::string::npos) << r.out;
  auto s = readJson(d + "/summary.json");
  EXPECT_EQ(s["verdicts"]["unsupported"], 0) << r.out;
  EXPECT_EQ(s["verdicts"]["mismatch"], 0) << r.out;
  EXPECT_EQ(s["verdicts"]["harness-bug"], 0) << r.out;
  EXPECT_GE(s["verdicts"]["pass"].get<int>(), 15) << r.out;
  EXPECT_GE(s["coverage"]["while_loop"].get<int>(), 10) << r.out;
}

TEST(Preload, CapsShowsWhileLoopWithTheRule) {
  Shell r = sh(kBin + " caps --mode eager --device cpu --preload " + kRule);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("preloaded: " + kRule + " (sha256 "), std::string::npos) << r.out;
  std::istringstream lines(r.out);
  int rows = 0;
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("while_loop ", 0) == 0) {
      ++rows;
      EXPECT_NE(line.find(" ok"), std::string::npos) << line;
    }
  EXPECT_EQ(rows, 2) << r.out;
}

TEST(Preload, AFaultPlantedInTheRuleIsFoundAndFiledWithItsPreload) {
  std::string d = tempDir("fault"), reports = d + "/reports";
  std::string faulty = faultyRule(d);
  Shell r = sh(kBin + " fuzz" + kWhileOnly + " --cases 30 --seed 2 --preload " + faulty + " --reports " + reports +
               " --out " + d + "/out");
  ASSERT_EQ(r.code, 1) << r.out;
  std::string found;
  for (auto &e : fs::directory_iterator(reports))
    if (e.path().filename().string().rfind("mismatch-", 0) == 0) found = e.path().string();
  ASSERT_FALSE(found.empty()) << r.out;
  auto meta = readJson(found + "/meta.json");
  EXPECT_EQ(meta["environment"]["preload"][0]["path"], faulty);
  EXPECT_EQ(meta["environment"]["preload"][0]["sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(meta["standalone"], "confirmed") << "repro.py runs the preload itself";
  EXPECT_EQ(slurp(found + "/preload/while_loop_vmap_rule_faulty.py"), slurp(faulty));
  EXPECT_NE(slurp(found + "/result.txt").find("preload: " + faulty + " sha256 "), std::string::npos);
  EXPECT_NE(slurp(found + "/report.md").find(faulty), std::string::npos);
  // The filed case is the rule's fault: with the example rule itself it passes.
  EXPECT_EQ(sh(kBin + " replay --preload " + faulty + " " + found + "/case.vf").code, 1);
  Shell fixed = sh(kBin + " replay --preload " + kRule + " " + found + "/case.vf");
  EXPECT_EQ(fixed.code, 0) << fixed.out;
}

TEST(Preload, ARuleThatRaisesIsAnEnvironmentErrorNamingTheFile) {
  std::string d = tempDir("bad");
  std::ofstream(d + "/broken_rule.py") << "import torch\nraise ValueError('no such op in this torch')\n";
  Shell r = sh(kBin + " caps --mode eager --device cpu --preload " + d + "/broken_rule.py");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("--preload " + d + "/broken_rule.py failed: ValueError: no such op in this torch"), std::string::npos)
      << r.out;
  Shell missing = sh(kBin + " fuzz --cases 1 --preload " + d + "/absent.py");
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_NE(missing.out.find("--preload " + d + "/absent.py: no such file"), std::string::npos) << missing.out;
  EXPECT_EQ(sh(kBin + " fuzz --cases 1 --backend libtorch --preload " + kRule).code, 2);
}
