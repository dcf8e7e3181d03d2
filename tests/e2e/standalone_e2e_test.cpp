// End-to-end: a new finding's repro.py is confirmed in a fork of the start-up image
// (StandaloneRunner, worker/vmapfuzz_confirm.py) rather than a fresh python; the verdict, the
// output and the limit must be a fresh python's.
#include <gtest/gtest.h>

#include "harness/backends/torch/standalone.h"
#include "tests/e2e/e2e.h"

#include <fstream>

namespace {

using vf::test::sh;

/// What a fresh python's exit status means to the campaign (FindingStore's confirmation).
std::string freshVerdict(const std::string &dir, const std::string &script) {
  const int code = sh("cd " + dir + " && python3 " + script + " > fresh.out 2>&1").code;
  return code == 1 ? "confirmed" : code == 0 ? "not reproduced" : "not checked (repro.py exited " + std::to_string(code) + ")";
}

TEST(Standalone, AForkOfTheImageGivesAFreshPythonsVerdictAndOutput) {
  const std::string dir = vf::test::tempDir("standalone");
  const std::vector<std::pair<std::string, std::string>> scripts = {
      {"fails.py", "import sys, torch\nprint('FAIL: torch', torch.__version__)\nsys.exit(1)\n"},
      {"passes.py", "import torch\nassert torch.ones(2).sum() == 2\nprint('PASS')\n"},
      {"raises.py", "import torch\nraise RuntimeError('the script itself raised')\n"},
      {"exits3.py", "import sys\nsys.exit(3)\n"},
      {"message.py", "import sys\nsys.exit('a message exits 1')\n"},
      {"main.py", "import sys, os\nsys.exit(0 if __name__ == '__main__' and os.path.exists('main.py') else 5)\n"}};
  vf::StandaloneRunner runner("python3");
  for (const auto &[name, text] : scripts) {
    std::ofstream(dir + "/" + name) << text;
    const auto got = runner(name, dir, 120);
    ASSERT_TRUE(got.has_value()) << name;
    EXPECT_EQ(*got, freshVerdict(dir, name)) << name;
  }
  std::ofstream(dir + "/prints.py") << "print('to stdout')\nimport sys\nprint('to stderr', file=sys.stderr)\n";
  ASSERT_EQ(runner("prints.py", dir, 120), std::optional<std::string>("not reproduced"));
  const std::string printed = vf::test::slurp(dir + "/repro.out");
  EXPECT_NE(printed.find("to stdout"), std::string::npos) << printed;
  EXPECT_NE(printed.find("to stderr"), std::string::npos) << printed;
  EXPECT_EQ(runner("missing.py", dir, 120), std::optional<std::string>("not checked (repro.py exited 2)"));
}

TEST(Standalone, AScriptPastItsLimitIsStoppedAndNotChecked) {
  const std::string dir = vf::test::tempDir("standalone-limit");
  std::ofstream(dir + "/sleeps.py") << "import time\ntime.sleep(600)\n";
  vf::StandaloneRunner runner("python3");
  EXPECT_EQ(runner("sleeps.py", dir, 3), std::optional<std::string>("not checked (repro.py still ran after 3 s)"));
  // The runner goes on: the next script runs.
  std::ofstream(dir + "/quick.py") << "import sys\nsys.exit(1)\n";
  EXPECT_EQ(runner("quick.py", dir, 60), std::optional<std::string>("confirmed"));
}

} // namespace
