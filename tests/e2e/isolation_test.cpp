// End-to-end: faults in the worker process itself (segfault, abort, os._exit, a hang, a huge
// allocation, an error in its own serialisation), compile modes, devices and capabilities, through the CLI binary.
#include <gtest/gtest.h>

#include "tests/e2e/e2e.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace {

using vf::test::kBin;
using vf::test::campaignExitOf;
using vf::test::sh;
using vf::test::Shell;
using vf::test::slurp;
using vf::test::tempDir;




/// The count in the summary's verdict table, e.g. "  crash        3".
int verdictCount(const std::string &out, const std::string &verdict) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex("\n  " + verdict + " +([0-9]+)\n"))) return -1;
  return std::stoi(m[1]);
}

int summaryCases(const std::string &out) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex("\ncases: ([0-9]+) in"))) return -1;
  return std::stoi(m[1]);
}


/// The worker faults fire on every second batched run of a worker process. One mode: one verdict
/// table. Look-behind off: its re-runs of cases that end on a filed bug would each meet the fault
/// too and replace the worker again, which adds minutes and tests nothing more here.
const std::string kCampaign = " --cases 6 --time 600 --seed 5 --no-shrink --mode eager --gen look_behind=0";

struct WorkerFault {
  const char *fault;
  const char *verdict;
  const char *evidence; ///< in the filed result.txt: the signal, status or error
  const char *extra;    ///< further flags
};

class WorkerFaults : public ::testing::TestWithParam<WorkerFault> {};

} // namespace

TEST_P(WorkerFaults, TheCampaignFinishesWithTheRightVerdictAndFilesIt) {
  const auto &p = GetParam();
  std::string d = tempDir(p.fault);
  Shell r = sh(kBin + " fuzz" + kCampaign + " --fault " + p.fault + " " + p.extra + " --out " + d);
  EXPECT_EQ(r.code, 1) << r.out; // the fault is a new finding
  EXPECT_EQ(summaryCases(r.out), 6) << r.out; // nothing lost: every case ran
  int hit = verdictCount(r.out, p.verdict);
  EXPECT_GE(hit, 1) << r.out;
  EXPECT_LT(hit, 6) << "every case hit the fault: the test shows nothing about going on\n" << r.out;
  int filed = 0;
  for (auto &e : fs::directory_iterator(d + "/findings")) {
    if (e.path().filename().string().rfind(p.verdict, 0) != 0) continue;
    ++filed;
    std::string res = slurp(e.path() / "result.txt");
    EXPECT_NE(res.find(p.evidence), std::string::npos) << res;
    EXPECT_TRUE(fs::exists(e.path() / "repro.py"));
  }
  EXPECT_EQ(filed, 1) << "one signature per fault";
  if (std::string(p.verdict) == "hang") {
    // A hung run is torch's time up to the deadline (4 s each here), not "unaccounted".
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex("\n  torch +([0-9.]+) "))) << r.out;
    EXPECT_GE(std::stod(m[1]), 4.0 * hit) << r.out;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Isolation, WorkerFaults,
    ::testing::Values(WorkerFault{"worker-segfault", "crash", "SIGSEGV", ""},
                      WorkerFault{"worker-abort", "crash", "SIGABRT", ""},
                      WorkerFault{"worker-exit", "crash", "exited with status 7", ""},
                      WorkerFault{"worker-hang", "hang", "no answer within 4000 ms", "--timeout-ms 4000"},
                      WorkerFault{"worker-huge-alloc", "oom", "can't allocate memory", "--memory-mb 4096"},
                      // The worker's own code failing is the harness's bug, never torch's.
                      WorkerFault{"worker-serialise-error", "harness-bug", "the harness failed around the batched run", ""}),
    [](const auto &info) {
      std::string n = info.param.fault;
      for (auto &ch : n)
        if (ch == '-') ch = '_';
      return n;
    });

TEST(Modes, ACampaignRunsEveryCaseInEveryModeAndTabulatesThem) {
  std::string d = tempDir("modes");
  Shell r = sh(kBin + " fuzz --cases 4 --time 600 --seed 2 --no-shrink --mode eager,compile-aot_eager --out " + d);
  EXPECT_EQ(r.code, campaignExitOf(r.out)) << r.out;
  EXPECT_EQ(summaryCases(r.out), 4) << r.out;
  EXPECT_NE(r.out.find("verdicts per mode (8 runs)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("compile-aot_eager|cpu"), std::string::npos) << r.out;
}

TEST(Modes, AStaleCompiledResultAtAnotherBatchSizeIsAMismatch) {
  // The planted fault makes torch.compile keep its first result whatever the next call's shapes
  // are: a guard that never fails. The first call is right; the second, at another batch size,
  // must be caught.
  const std::string seed = std::string(VMAPFUZZ_SOURCE_DIR) + "/corpus/seeds/cond_batched_pred.vf";
  Shell clean = sh(kBin + " replay --mode compile-eager " + seed);
  EXPECT_EQ(clean.code, 0) << clean.out;
  Shell stale = sh(kBin + " replay --mode compile-eager --fault compile-guards-never-fail " + seed);
  EXPECT_EQ(stale.code, 1) << stale.out;
  EXPECT_NE(stale.out.find("mismatch: called again at batch size 5 (first 4)"), std::string::npos) << stale.out;
}

TEST(Modes, ParallelJobsRunEveryCaseOnce) {
  std::string d = tempDir("jobs");
  Shell r = sh(kBin + " fuzz --cases 6 --time 600 --seed 4 --no-shrink --jobs 2 --out " + d);
  EXPECT_EQ(r.code, campaignExitOf(r.out)) << r.out;
  EXPECT_EQ(summaryCases(r.out), 6) << r.out;
  EXPECT_NE(r.out.find("jobs: 2"), std::string::npos) << r.out;
}

TEST(Devices, AnAbsentCudaDeviceIsSkippedNotAnError) {
  Shell probe = sh("python3 -c 'import torch; raise SystemExit(0 if torch.cuda.is_available() else 1)'");
  if (probe.code == 0) GTEST_SKIP() << "this machine has a cuda device";
  std::string d = tempDir("nocuda");
  Shell r = sh(kBin + " fuzz --cases 2 --device cuda --out " + d);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("skipped: no cuda device"), std::string::npos) << r.out;
}

TEST(Caps, EveryProbeGetsACapabilityInEveryMode) {
  Shell r = sh(kBin + " caps --mode eager,compile-eager");
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char *row : {"batched predicate", "unbatched predicate", "batched index", "unbatched index",
                          "batched trip count", "unbatched trip count", "batched xs", "batched carry only"}) {
    std::smatch m;
    const std::string cell = "(ok|(no rule|WRONG RESULT|rejected unbatched|FAILS: [a-z-]+) \\[[0-9]+\\])";
    std::string line = std::string("\n[a-z_]+ +") + row + " +" + cell + " +" + cell + " *\n";
    EXPECT_TRUE(std::regex_search(r.out, m, std::regex(line))) << row << "\n" << r.out;
  }
}

TEST(Cli, BadModeAndDeviceAreUsageErrors) {
  EXPECT_EQ(sh(kBin + " fuzz --cases 1 --mode jit").code, 2);
  EXPECT_EQ(sh(kBin + " fuzz --cases 1 --device tpu").code, 2);
  EXPECT_EQ(sh(kBin + " fuzz --cases 1 --jobs 0").code, 2);
  EXPECT_EQ(sh(kBin + " fuzz --cases 1 --shard 2/2").code, 2);
  EXPECT_EQ(sh(kBin + " fuzz --cases 1 --memory-mb lots").code, 2);
}
