// End-to-end: the real torch worker. These tests start python3 with torch.
#include <gtest/gtest.h>

#include "generators/case_gen.h"
#include "generators/data.h"
#include "harness/run/runner.h"
#include "harness/backends/torch/torch_backend.h"
#include "ir/text.h"
#include "oracles/compare.h"
#include "oracles/reference.h"
#include "tests/e2e/e2e.h"
#include "tests/e2e/test_cases.h"

using namespace vf;

namespace {

WorkerConfig config(std::vector<std::string> faults = {}) {
  WorkerConfig w = vf::test::testWorker();
  w.faults = std::move(faults);
  return w;
}

using vf::test::kCond; // tests/e2e/test_cases.h

bool branchesSplit(const Case &c) {
  // The test is only meaningful when the examples of the batch take different branches.
  auto in = makeInputs(c);
  auto sums = in[0].sum(0);
  return (sums > 0).any().item<bool>() && (sums <= 0).any().item<bool>();
}

} // namespace

TEST(TorchBackend, WorkerReportsItsTorch) {
  TorchBackend b(config());
  auto info = b.hello();
  EXPECT_EQ(info["v"], 2);
  EXPECT_FALSE(info.value("torch", "").empty());
}

TEST(TorchBackend, BatchedCondAgreesWithTheReference) {
  TorchBackend b(config());
  Case c = parseCase(kCond);
  ASSERT_TRUE(branchesSplit(c));
  Runner r(b);
  CaseResult res = r.run(c);
  EXPECT_EQ(verdictName(res.verdict), "pass") << res.summary << "\n" << res.traceback;
}

TEST(TorchBackend, PerExampleRunOfTorchAgreesWithOurReference) {
  // Emitter + reference consistency on generated programs: a disagreement is our bug.
  TorchBackend b(config());
  int checked = 0;
  for (uint64_t s = 0; s < 60; ++s) {
    Case c = generateCase(s * 7919 + 1, 40, GenPolicy{});
    auto in = makeInputs(c);
    RefResult ref = runReference(c, in);
    ASSERT_EQ(ref.error, "") << printCase(c);
    Outcome o = b.run(c, in, RunMode::PerExample);
    if (o.status != Outcome::Status::Ok) continue; // torch rejects the program: counted as invalid elsewhere
    auto cmp = compareOutputs(ref.outputs, o.outputs);
    EXPECT_TRUE(cmp.equal) << cmp.detail << "\n" << printCase(c);
    ++checked;
  }
  EXPECT_GE(checked, 50);
}

TEST(TorchBackend, PlantedCondFaultIsAMismatch) {
  TorchBackend b(config({"cond-batched-pred-swapped"}));
  Runner r(b);
  CaseResult res = r.run(parseCase(kCond));
  EXPECT_EQ(verdictName(res.verdict), "mismatch") << res.summary << "\n" << res.traceback;
}

TEST(TorchBackend, ADyingWorkerIsACrashAndIsReplaced) {
  WorkerProcess w(config());
  nlohmann::json req = {{"v", 2}, {"op", "run"}, {"id", 1}, {"mode", "batched"}, {"tensors", nlohmann::json::array()},
                        {"source", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"}};
  auto rep = w.request(req, {});
  EXPECT_EQ(rep.kind, WorkerReply::Kind::Died);
  EXPECT_NE(rep.how.find("SIGSEGV"), std::string::npos) << rep.how;
  auto hello = w.request({{"v", 2}, {"op", "hello"}}, {});
  EXPECT_EQ(hello.kind, WorkerReply::Kind::Ok);
  EXPECT_EQ(w.restarts(), 1);
}

TEST(TorchBackend, AHangingWorkerTimesOut) {
  WorkerConfig cfg = config();
  cfg.timeout = std::chrono::milliseconds(3000);
  WorkerProcess w(cfg);
  ASSERT_EQ(w.request({{"v", 2}, {"op", "hello"}}, {}).kind, WorkerReply::Kind::Ok);
  nlohmann::json req = {{"v", 2}, {"op", "run"}, {"id", 1}, {"mode", "batched"}, {"tensors", nlohmann::json::array()},
                        {"source", "while True:\n    pass\n"}};
  EXPECT_EQ(w.request(req, {}).kind, WorkerReply::Kind::TimedOut);
  EXPECT_EQ(w.request({{"v", 2}, {"op", "hello"}}, {}).kind, WorkerReply::Kind::Ok);
}
