// The campaign's use of several modes: a direct-mode finding is re-run through the public API
// before it is filed, and set aside when the public API rejects the program; modes after the
// first keep to their share of the time. Fake backends, no python.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/backends/backend.h"
#include "harness/backends/libtorch/libtorch_backend.h"
#include "harness/campaign/campaign.h"
#include "harness/run/runner.h"
#include "ir/text.h"

namespace vf {
namespace {

namespace fs = std::filesystem;

/// A system that raises in its batched run, and in its per-example run when told to.
class FakeBackend : public Backend {
public:
  FakeBackend(std::string name, bool perExampleFails, int sleepMs = 0)
      : name_(std::move(name)), perExampleFails_(perExampleFails), sleepMs_(sleepMs) {}
  SystemId id() const override { return SystemId::parse(name_).value(); }
  Outcome run(const Case &, const std::vector<at::Tensor> &, RunMode mode) override {
    ++runs;
    if (sleepMs_) std::this_thread::sleep_for(std::chrono::milliseconds(sleepMs_));
    Outcome o;
    if (mode == RunMode::Batched || perExampleFails_) {
      o.status = Outcome::Status::Error;
      o.errorType = "RuntimeError";
      o.errorMessage = mode == RunMode::Batched ? "planted batched failure" : "planted rejection of the program";
    }
    return o;
  }
  int runs = 0;

private:
  std::string name_;
  bool perExampleFails_;
  int sleepMs_;
};

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("vf-modes-" + std::to_string(::getpid()) + "-" +
                                               std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  ~TempDir() { fs::remove_all(path); }
};

CampaignOptions fewCases(int64_t n) {
  CampaignOptions opt;
  opt.seconds = 600;
  opt.maxCases = n;
  opt.seed = 3;
  return opt;
}

TEST(CampaignModes, ADirectFailureThePublicApiRejectsIsSetAsideNotFiled) {
  FakeBackend direct("direct|cpu", false), eager("eager|cpu", /*perExampleFails=*/true);
  Runner rd(direct), re(eager);
  TempDir dir;
  FindingStore store(dir.path.string());
  std::ostringstream log;
  CampaignStats s = runCampaign(fewCases(3), std::vector<RunnerSet>{{&rd, &re}}, store, log);
  EXPECT_EQ(store.unique(), 0u) << log.str();
  EXPECT_GE(s.setAside, 1) << log.str();
  EXPECT_NE(log.str().find("set aside (not a torch bug)"), std::string::npos) << log.str();
  EXPECT_FALSE(fs::exists(dir.path) && !fs::is_empty(dir.path)) << "nothing may be filed";
}

TEST(CampaignModes, ADirectFailureThatShowsThroughThePublicApiIsFiledAsThePublicRun) {
  FakeBackend direct("direct|cpu", false), eager("eager|cpu", false);
  Runner rd(direct), re(eager);
  TempDir dir;
  FindingStore store(dir.path.string());
  std::ostringstream log;
  CampaignOptions opt = fewCases(1);
  opt.otherModesShare = 0; // eager runs no case of its own: the finding comes from direct
  CampaignStats s = runCampaign(opt, std::vector<RunnerSet>{{&rd, &re}}, store, log);
  ASSERT_EQ(store.unique(), 1u) << log.str();
  const auto &[sig, rec] = *store.all().begin();
  EXPECT_EQ(sig.rfind("eager|cpu|batched-error", 0), 0u) << sig;
  std::ifstream meta(rec.dir + "/meta.json");
  auto j = nlohmann::json::parse(meta);
  EXPECT_NE(j.value("other_modes", "").find("found in direct mode"), std::string::npos) << j.dump(2);
  // Its reproduce line replays it where it was filed: through the public API.
  EXPECT_NE(j.value("reproduce", "").find("replay --mode eager case.vf"), std::string::npos) << j.dump(2);
  EXPECT_EQ(s.setAside, 0);
}

TEST(CampaignModes, ModesAfterTheFirstKeepToTheirShareOfTheTime) {
  // direct passes nothing (every run raises) but costs nothing; eager costs 20 ms a run.
  FakeBackend direct("direct|cpu", false), eager("eager|cpu", false, 20);
  Runner rd(direct), re(eager);
  TempDir dir;
  FindingStore store(dir.path.string());
  std::ostringstream log;
  CampaignOptions opt = fewCases(40);
  opt.shrink = false;
  opt.otherModesShare = 0.25;
  CampaignStats s = runCampaign(opt, std::vector<RunnerSet>{{&rd, &re}}, store, log);
  EXPECT_EQ(s.cases, 40);
  EXPECT_GT(s.skipped["eager|cpu"], 0) << log.str();
  EXPECT_EQ(s.skipped.count("direct|cpu"), 0u) << "the first mode runs every case";
  EXPECT_LT(eager.runs, direct.runs);
}

TEST(CampaignModes, AConstructASystemCannotBatchIsNotRunThere) {
  FakeBackend direct("direct|cpu", false), eager("eager|cpu", false);
  Runner rd(direct), re(eager);
  TempDir dir;
  FindingStore store(dir.path.string());
  std::ostringstream log;
  CampaignOptions opt = fewCases(30);
  opt.shrink = false;
  for (const char *c : {"cond", "switch", "while_loop", "scan"}) opt.unsupportedIn[*SystemId::parse("eager|cpu")].insert(c);
  CampaignStats s = runCampaign(opt, std::vector<RunnerSet>{{&rd, &re}}, store, log);
  // Every program with a construct skips eager; with 30 cases some have one.
  EXPECT_GT(s.skipped["eager|cpu"], 0) << log.str();
  EXPECT_EQ(s.byMode["direct|cpu"][static_cast<int>(Verdict::BatchedError)], 30);
}

TEST(CampaignModes, ANewFailureFoundWithNoTimeLeftForItsChecksIsKeptUncheckedNotFiledLate) {
  // The first case takes longer than the whole campaign (eager: 200 ms a run, a batched and
  // per-example runs), so neither mode's new failure has time left for its checks (direct's
  // cross-check runs through eager): each is kept as a case file to replay, and nothing runs
  // past the deadline for them.
  FakeBackend direct("direct|cpu", false), eager("eager|cpu", false, 200);
  Runner rd(direct), re(eager);
  TempDir dir, unchecked;
  FindingStore store(dir.path.string());
  std::ostringstream log;
  CampaignOptions opt = fewCases(5);
  opt.seconds = 0.3;
  opt.uncheckedDir = unchecked.path.string();
  CampaignStats s = runCampaign(opt, std::vector<RunnerSet>{{&rd, &re}}, store, log);
  EXPECT_EQ(s.cases, 1) << log.str();
  EXPECT_EQ(store.unique(), 0u) << "nothing filed unchecked:\n" << log.str();
  ASSERT_EQ(s.unchecked.size(), 2u) << log.str();
  EXPECT_NE(s.unchecked[1].find("batched-error-"), std::string::npos) << s.unchecked[1];
  std::ifstream f(s.unchecked[0]);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("vmapfuzz replay --mode direct,eager --reports"), std::string::npos) << text.str();
  EXPECT_NO_THROW(parseCase(text.str())) << "the kept file is a case replay reads:\n" << text.str();
  EXPECT_GT(eager.runs, 0);
  EXPECT_NE(log.str().find("kept unchecked"), std::string::npos) << log.str();
  std::ostringstream summary;
  printSummary(s, store, summary);
  EXPECT_NE(summary.str().find(s.unchecked[0]), std::string::npos) << summary.str();
}

/// functorch's C++ vmap (the libtorch backend) under a direct mode's name: a system whose runs
/// mostly pass, so the campaign's re-specs of passing programs can be counted.
class PassingDirect : public Backend {
public:
  SystemId id() const override { return *SystemId::parse("direct|cpu"); }
  Outcome run(const Case &c, const std::vector<at::Tensor> &inputs, RunMode mode) override {
    if (mode == RunMode::Batched) ++batchedRuns;
    return inner_.run(c, inputs, mode);
  }
  int batchedRuns = 0;

private:
  LibtorchBackend inner_;
};

TEST(CampaignModes, APassingProgramRunsAgainWithOtherBatchSpecsInDirectModeOnly) {
  for (int respecs : {0, 2}) {
    PassingDirect direct;
    Runner rd(direct);
    TempDir dir;
    FindingStore store(dir.path.string());
    std::ostringstream log;
    CampaignOptions opt = fewCases(12);
    opt.shrink = false;
    opt.policy.respecsPerPass = respecs;
    CampaignStats s = runCampaign(opt, rd, store, log);
    const int64_t passed = s.byVerdict[static_cast<int>(Verdict::Pass)];
    EXPECT_EQ(s.caseIndices.size(), 12u) << "re-specs run under their program's index";
    EXPECT_EQ(s.cases, 12 + s.respecCases);
    if (respecs == 0) {
      EXPECT_EQ(s.respecCases, 0);
      continue;
    }
    EXPECT_GT(s.respecCases, 0) << log.str();
    EXPECT_LE(s.respecCases, 2 * passed) << "only passing programs are re-specced, at most twice each";
    EXPECT_EQ(direct.batchedRuns, s.cases);
  }
  // Not in a first mode that is not direct: there a run costs a dynamo trace, not milliseconds.
  FakeBackend eager("eager|cpu", false);
  Runner re(eager);
  TempDir dir;
  FindingStore store(dir.path.string());
  std::ostringstream log;
  CampaignOptions opt = fewCases(3);
  opt.shrink = false;
  opt.policy.respecsPerPass = 2;
  EXPECT_EQ(runCampaign(opt, re, store, log).respecCases, 0);
}

} // namespace
} // namespace vf
