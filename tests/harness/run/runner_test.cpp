// The runner's classification, with a fake backend that returns scripted outcomes: a verdict
// is decided only by what the system says in its batched and per-example runs.
#include <gtest/gtest.h>

#include "harness/run/runner.h"
#include "tests/harness/fake_backend.h"

using namespace vf;
using vf::fake::failing;
using vf::fake::FakeBackend;
using vf::fake::ok;

namespace {

using Script = FakeBackend::Script;
const Script kRight = ok(FakeBackend::Right), kWrong = ok(FakeBackend::Wrong);

struct Classified {
  CaseResult result;
  std::vector<RunMode> calls; ///< the runs the runner asked the backend for
};

/// Runs vmap(neg) on a fake backend whose runs return what is scripted. `again`: the backend
/// keeps compiled state, and its second call (at another batch size) returns this.
Classified classify(Script batched, Script perExample = kRight, std::optional<Script> again = std::nullopt) {
  FakeBackend b;
  b.batched = batched;
  b.perExample = perExample;
  b.twice = again.has_value();
  if (again) b.again = *again;
  Runner runner(b);
  CaseResult r = runner.run(vf::fake::negCase());
  return {r, b.calls};
}

Script error(std::string msg) { return failing(Outcome::Status::Error, "RuntimeError", std::move(msg)); }
Script harnessError() { return failing(Outcome::Status::HarnessError, "TypeError", "cannot serialise"); }

const std::vector<RunMode> kBatchedOnly = {RunMode::Batched}, kBoth = {RunMode::Batched, RunMode::PerExample};

} // namespace

TEST(Runner, PassWhenBatchedEqualsTheReference) {
  auto c = classify(kRight);
  EXPECT_EQ(c.result.verdict, Verdict::Pass) << c.result.summary;
  EXPECT_EQ(c.calls, kBatchedOnly) << "no per-example run is needed for a pass";
  EXPECT_EQ(c.result.system.str(), "eager|cpu");
}

TEST(Runner, MismatchOnlyWhenTheSystemsOwnPerExampleRunAgreesWithTheReference) {
  auto c = classify(kWrong, kRight);
  EXPECT_EQ(c.result.verdict, Verdict::Mismatch) << c.result.summary;
  EXPECT_EQ(c.calls, kBoth);
  EXPECT_NE(c.result.summary.find("elements differ"), std::string::npos) << c.result.summary;
  EXPECT_EQ(c.result.actual.size(), 1u);
  EXPECT_EQ(c.result.expected.size(), 1u);
}

TEST(Runner, HarnessBugWhenThePerExampleRunDisagreesWithTheReference) {
  auto c = classify(kWrong, kWrong);
  EXPECT_EQ(c.result.verdict, Verdict::HarnessBug) << c.result.summary;
  EXPECT_NE(c.result.summary.find("reference and torch's per-example run disagree"), std::string::npos);
}

TEST(Runner, InvalidWhenThePerExampleRunFailsAfterADifference) {
  EXPECT_EQ(classify(kWrong, error("no")).result.verdict, Verdict::Invalid);
}

TEST(Runner, HarnessBugWhenTheHarnessAroundARunFails) {
  auto c = classify(harnessError());
  EXPECT_EQ(c.result.verdict, Verdict::HarnessBug);
  EXPECT_NE(c.result.summary.find("the harness failed around the batched run: TypeError: cannot serialise"), std::string::npos)
      << c.result.summary;
  EXPECT_EQ(classify(kWrong, harnessError()).result.verdict, Verdict::HarnessBug);
  EXPECT_EQ(classify(error("boom"), harnessError()).result.verdict, Verdict::HarnessBug);
}

TEST(Runner, BatchedErrorWhenEveryExampleRunsAlone) {
  auto c = classify(error("boom\n  at line 3"));
  EXPECT_EQ(c.result.verdict, Verdict::BatchedError);
  EXPECT_EQ(c.result.summary, "RuntimeError: boom");
  EXPECT_EQ(c.calls, kBoth);
}

TEST(Runner, InvalidWhenThePerExampleRunFailsToo) {
  auto c = classify(error("boom"), error("boom"));
  EXPECT_EQ(c.result.verdict, Verdict::Invalid);
  EXPECT_NE(c.result.summary.find("torch rejects the program unbatched too"), std::string::npos);
  for (auto s : {Outcome::Status::Crash, Outcome::Status::Hang, Outcome::Status::Oom}) {
    auto r = classify(error("boom"), failing(s, "", "died")).result;
    EXPECT_EQ(r.verdict, Verdict::Invalid);
    EXPECT_NE(r.summary.find("the per-example run also fails"), std::string::npos) << r.summary;
  }
}

TEST(Runner, UnsupportedWhenTorchSaysItHasNoBatchingRule) {
  for (const char *msg : {"There is no vmap rule for this op", "vmap: batching rule not implemented for aten::foo"})
    EXPECT_EQ(classify(error(msg)).result.verdict, Verdict::Unsupported) << msg;
  // The same words from a program torch rejects anyway: invalid.
  EXPECT_EQ(classify(error("There is no vmap rule"), error("no")).result.verdict, Verdict::Invalid);
}

TEST(Runner, CrashHangAndOomNeedNoPerExampleRun) {
  const std::pair<Outcome::Status, Verdict> cases[] = {
      {Outcome::Status::Crash, Verdict::Crash}, {Outcome::Status::Hang, Verdict::Hang}, {Outcome::Status::Oom, Verdict::Oom}};
  for (const auto &[status, verdict] : cases) {
    auto c = classify(failing(status, "MemoryError", "signal 11"));
    EXPECT_EQ(c.result.verdict, verdict) << verdictName(verdict);
    EXPECT_EQ(c.calls, kBatchedOnly);
  }
}

TEST(Runner, ASecondCallAtAnotherBatchSizeIsChecked) {
  auto c = classify(kRight, kRight, kWrong);
  EXPECT_EQ(c.result.verdict, Verdict::Mismatch);
  EXPECT_EQ(c.result.againBatchSize, 3);
  EXPECT_NE(c.result.summary.find("called again at batch size 3 (first 2)"), std::string::npos) << c.result.summary;
  EXPECT_EQ(classify(kRight, kRight, kRight).result.verdict, Verdict::Pass);
}

// vmap's in-place rule in each of torch's wordings (a program that breaks it is invalid): a
// shape of any rank, eagerly and under dynamo; another broadcast error is not it.
TEST(Runner, KnowsVmapsInplaceRuleInEachWording) {
  EXPECT_TRUE(vf::saysInplaceRule("vmap: inplace arithmetic(self, *extra_args) is not possible because ..."));
  EXPECT_TRUE(vf::saysInplaceRule("output with shape [2] doesn't match the broadcast shape [3, 2]"));
  EXPECT_TRUE(vf::saysInplaceRule("output with shape [1, 1] doesn't match the broadcast shape [2, 1, 1]"));
  EXPECT_TRUE(vf::saysInplaceRule("output with shape torch.Size([1, 4]) doesn't match the broadcast shape torch.Size([3, 1, 4])"));
  EXPECT_FALSE(vf::saysInplaceRule("The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"));
}
