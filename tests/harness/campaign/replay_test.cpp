// The one replay routine (vmapfuzz replay, nightly's regression corpus): a harness-bug fails
// a replay as a finding does, and each failing run is filed with its replay line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "harness/campaign/replay.h"
#include "tests/harness/fake_backend.h"

using namespace vf;
using vf::fake::FakeBackend;

TEST(Replay, EveryRunnerRunsAndFailuresIncludeHarnessBugs) {
  FakeBackend pass, mismatch, harnessBug;
  mismatch.batched = vf::fake::ok(FakeBackend::Wrong);
  harnessBug.batched = vf::fake::ok(FakeBackend::Wrong);
  harnessBug.perExample = vf::fake::ok(FakeBackend::Wrong);
  Runner a(pass), b(mismatch), c(harnessBug);
  auto runs = replayCase(vf::fake::negCase(), {&a, &b, &c}, nullptr, "", "case.vf");
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].result.verdict, Verdict::Pass);
  EXPECT_FALSE(runs[0].failing);
  EXPECT_EQ(runs[1].result.verdict, Verdict::Mismatch);
  EXPECT_TRUE(runs[1].failing);
  EXPECT_EQ(runs[2].result.verdict, Verdict::HarnessBug);
  EXPECT_TRUE(runs[2].failing);
  for (const auto &r : runs) EXPECT_FALSE(r.filed) << "no store, nothing filed";
}

TEST(Replay, FailingRunsAreFiledWithTheirReplayLine) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("vf-replay-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  FindingStore store(dir.string());
  FakeBackend pass, crash;
  crash.batched = vf::fake::failing(Outcome::Status::Crash, "", "signal 11");
  Runner a(pass), b(crash);
  auto runs = replayCase(vf::fake::negCase(), {&a, &b}, &store, " --fault f1", "corpus/x.vf");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_FALSE(runs[0].filed);
  ASSERT_TRUE(runs[1].filed);
  EXPECT_TRUE(runs[1].filed->isNew);
  std::ifstream meta(runs[1].filed->dir + "/meta.json");
  std::stringstream text;
  text << meta.rdbuf();
  EXPECT_NE(text.str().find("vmapfuzz replay --fault f1 --mode eager corpus/x.vf"), std::string::npos) << text.str();
  fs::remove_all(dir);
}
