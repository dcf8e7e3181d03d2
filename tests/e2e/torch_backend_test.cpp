// End-to-end: the real torch worker. These tests start python3 with torch.
#include <gtest/gtest.h>

#include <iostream>

#include "generators/case_gen.h"
#include "generators/data.h"
#include "harness/run/runner.h"
#include "harness/backends/torch/torch_backend.h"
#include "ir/text.h"
#include "ir/walk.h"
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

// A scan whose combine_fn updates a buffer in place (scan's mutable additional inputs): the
// direct mode passes mutated_arg_indices to scan_op as dynamo does, the eager mode lets dynamo
// find the mutation of the captured buffer; both must agree with the reference.
TEST(TorchBackend, ScanWithAnInPlaceBufferPassesInDirectAndEagerModes) {
  auto worker = std::make_shared<WorkerProcess>(config());
  Case c = parseCase(vf::test::kScanBuffer);
  for (const char *mode : {"direct", "eager"}) {
    TorchBackend b(worker, parseModes(mode).front(), "cpu");
    Runner r(b);
    CaseResult res = r.run(c);
    EXPECT_EQ(verdictName(res.verdict), "pass") << mode << ": " << res.summary << "\n" << res.traceback;
  }
}

// vmap's in-place rule (an update batched where its buffer is not) is the program's fault:
// `invalid`, never a batched-error (ir/buffers.h).
TEST(TorchBackend, AnUnbatchedBufferWithABatchedUpdateIsInvalid) {
  auto worker = std::make_shared<WorkerProcess>(config());
  std::string text = vf::test::kScanBuffer;
  text.replace(text.find("scan(%15, %0, %4)"), 17, "scan(%15, %0, %1)"); // the unbatched input itself
  Case c = parseCase(text);
  for (const char *op : {"add_", "copy_"}) {
    Case k = c;
    forEachBlock(k.program.body, [&](Block &b, int) {
      for (auto &s : b.stmts)
        if (s.op == "add_") s.op = op;
    });
    TorchBackend b(worker, parseModes("direct").front(), "cpu");
    CaseResult res = Runner(b).run(k);
    EXPECT_EQ(verdictName(res.verdict), "invalid") << op << ": " << res.summary;
    EXPECT_NE(res.summary.find("vmap's in-place rule"), std::string::npos) << res.summary;
  }
}

// Generated scans with buffers (every scan gets one) are consistent with the reference per
// example, and batched they are never a harness bug or a batched-error of vmap's in-place rule.
TEST(TorchBackend, GeneratedScansWithBuffersRunInDirectAndEagerModes) {
  auto worker = std::make_shared<WorkerProcess>(config());
  GenPolicy p;
  p.condPercent = 60;
  p.weight(ConstructKind::Scan) = 20;
  p.scanInplacePercent = 100;
  int passed = 0;
  std::string verdicts;
  for (const char *mode : {"direct", "eager"}) {
    TorchBackend b(worker, parseModes(mode).front(), "cpu");
    Runner r(b);
    for (uint64_t s = 0; s < (std::string(mode) == "direct" ? 24u : 6u); ++s) {
      Case c = generateCase(s * 104729 + 3, 30, p);
      CaseResult res = r.run(c);
      EXPECT_NE(res.verdict, Verdict::HarnessBug) << mode << ": " << res.summary << "\n" << printCase(c);
      EXPECT_EQ(res.summary.find("inplace arithmetic"), std::string::npos) << mode << ": " << res.summary;
      EXPECT_EQ(res.summary.find("doesn't match the broadcast shape"), std::string::npos) << mode << ": " << res.summary;
      passed += res.verdict == Verdict::Pass;
      verdicts += std::string(mode) + " " + std::string(verdictName(res.verdict)) + ": " + res.summary.substr(0, 160) + "\n";
    }
  }
  // Some meet scan bugs filed without buffers (a carry whose batching changes between steps).
  EXPECT_GE(passed, 12) << verdicts;
}

namespace {
// A transform inside the program (issue 28), generated often, in direct mode and through the
// public API: never a harness bug (our reference and torch's own per-example run agree), and
// most such programs pass (a failure here is a torch finding, not the construct's). Every run
// compares the reference (vmap: the function on each slice alone; grad and jvp: LibTorch's C++
// autograd over the interpreter) with torch's own per-example run (the program's vmaps as
// Python loops over the slices, its grads and jvps torch.func's on one example): a harness bug is a
// disagreement between the two. 100 programs with the transform in direct mode, 12 in eager.
void generatedTransformsAreNeverHarnessBugs(ConstructKind kind) {
  auto worker = std::make_shared<WorkerProcess>(config());
  GenPolicy p;
  p.condPercent = 60;
  p.weight(kind) = 20;
  const std::string needle = "= " + constructDef(kind).name + "(";
  int passed = 0, with = 0;
  std::string verdicts;
  for (const char *mode : {"direct", "eager"}) {
    TorchBackend b(worker, parseModes(mode).front(), "cpu");
    Runner r(b);
    const int want = std::string(mode) == "direct" ? 100 : 12;
    int here = 0;
    for (uint64_t s = 0; s < 1000 && here < want; ++s) {
      Case c = generateCase(s * 7919 + 11, 30, p);
      if (printCase(c).find(needle) == std::string::npos) continue;
      ++with, ++here;
      CaseResult res = r.run(c);
      EXPECT_NE(res.verdict, Verdict::HarnessBug) << mode << ": " << res.summary << "\n" << printCase(c);
      passed += res.verdict == Verdict::Pass;
      verdicts += std::string(mode) + " " + std::string(verdictName(res.verdict)) + ": " + res.summary.substr(0, 160) + "\n";
    }
  }
  EXPECT_EQ(with, 112);
  EXPECT_GE(passed, with / 3) << verdicts;
  std::cerr << verdicts;
}
} // namespace

TEST(TorchBackend, GeneratedVmapsInsideProgramsAreNeverHarnessBugs) { generatedTransformsAreNeverHarnessBugs(ConstructKind::Vmap); }

// torch.func.grad inside the program: per-example gradients of control flow, under the batch
// spec's levels (per-sample gradients) and inside batched regions.
TEST(TorchBackend, GeneratedGradsInsideProgramsAreNeverHarnessBugs) { generatedTransformsAreNeverHarnessBugs(ConstructKind::Grad); }

// torch.func.jvp inside the program: forward-mode derivatives along tangents the program computes.
TEST(TorchBackend, GeneratedJvpsInsideProgramsAreNeverHarnessBugs) { generatedTransformsAreNeverHarnessBugs(ConstructKind::Jvp); }
