// The runner's decision table (harness/run/classify.h), without a backend: each test scripts
// what the runs observe and checks both the verdict and which runs the decision asked for.
#include <gtest/gtest.h>

#include "harness/run/classify.h"
#include "harness/run/runner.h"

using namespace vf;
using Need = Decision::Need;
using Status = Outcome::Status;

namespace {

Comparison same() { return {}; }
Comparison differs(std::string detail = "output 0: 2 elements differ") { return {false, std::move(detail)}; }

RunObservation ran(Status s = Status::Ok, Comparison cmp = {}, std::string type = "", std::string message = "") {
  return {s, std::move(type), std::move(message), std::move(cmp)};
}

/// What the scripted runs observe when the decision asks for them.
struct Script {
  Status batched = Status::Ok;
  Comparison first;
  std::optional<Comparison> second; ///< a compiled function's second call
  std::string errorType = "RuntimeError", errorMessage = "planted";
  RunObservation forward, perExample, perExampleFunc;
};

struct Trace {
  Decision decision;
  std::vector<Need> asked; ///< the runs asked for, in order
};

/// Classifies `o`, making each run the decision asks for from `s`, until a verdict.
Trace decide(Observations o, const Script &s) {
  Trace t;
  for (;;) {
    Decision d = classify(o);
    if (d.need == Need::Nothing) {
      t.decision = d;
      return t;
    }
    t.asked.push_back(d.need);
    EXPECT_LE(t.asked.size(), 5u) << "a run asked for twice";
    if (t.asked.size() > 5) return t;
    switch (d.need) {
    case Need::Batched:
      o.batchedRan = true;
      o.batched = s.batched;
      o.first = s.first;
      o.second = s.second;
      o.again = s.second.has_value() || o.failedOnSecondCall;
      o.errorType = s.batched == Status::Ok ? "" : s.errorType;
      o.errorMessage = s.batched == Status::Ok ? "" : s.errorMessage;
      break;
    case Need::Forward: o.forward = s.forward; break;
    case Need::PerExample: o.perExample = s.perExample; break;
    case Need::PerExampleFunc: o.perExampleFunc = s.perExampleFunc; break;
    case Need::Nothing: break;
    }
  }
}

const std::vector<Need> kBatched = {Need::Batched}, kBoth = {Need::Batched, Need::PerExample};

Observations gradient(Grad g) {
  Observations o;
  o.grad = g;
  return o;
}

} // namespace

TEST(Classify, AProgramTheReferenceRejectsIsInvalidBeforeAnyRun) {
  Observations o;
  o.referenceError = "index 3 is out of bounds\nmore";
  Trace t = decide(o, {});
  EXPECT_EQ(t.decision.verdict, Verdict::Invalid);
  EXPECT_EQ(t.decision.summary, "the reference interpreter rejects the program: index 3 is out of bounds");
  EXPECT_TRUE(t.asked.empty());
  Observations g = gradient(Grad::OfVmap);
  g.gradInputs = false;
  EXPECT_EQ(decide(g, {}).decision.summary, "no floating input: no gradient to compare");
  g.gradInputs = true;
  g.derivativeError = "no derivative";
  EXPECT_EQ(decide(g, {}).decision.verdict, Verdict::Invalid);
  EXPECT_TRUE(decide(g, {}).asked.empty());
}

TEST(Classify, EqualResultsPassWithOneRun) {
  Trace t = decide({}, {});
  EXPECT_EQ(t.decision.verdict, Verdict::Pass);
  EXPECT_EQ(t.asked, kBatched);
}

TEST(Classify, ADifferenceIsAMismatchOnlyWhenThePerExampleRunAgreesWithTheReference) {
  Script s;
  s.first = differs();
  s.perExample = ran(Status::Ok, same());
  Trace t = decide({}, s);
  EXPECT_EQ(t.decision.verdict, Verdict::Mismatch);
  EXPECT_EQ(t.decision.summary, "output 0: 2 elements differ");
  EXPECT_EQ(t.asked, kBoth);
  s.perExample = ran(Status::Ok, differs("output 0: 1 element differs"));
  t = decide({}, s);
  EXPECT_EQ(t.decision.verdict, Verdict::HarnessBug);
  EXPECT_EQ(t.decision.summary, "reference and torch's per-example run disagree: output 0: 1 element differs");
  s.perExample = ran(Status::Error, {}, "TypeError", "unsupported operand");
  EXPECT_EQ(decide({}, s).decision.verdict, Verdict::Invalid);
  s.perExample = ran(Status::HarnessError, {}, "TypeError", "cannot serialise");
  EXPECT_EQ(decide({}, s).decision.summary, "the harness failed around the per-example run: TypeError: cannot serialise");
}

TEST(Classify, ADifferenceNearADecisionBoundaryIsAmbiguousWithoutAPerExampleRun) {
  Script s;
  s.first = differs();
  Observations o;
  o.boundary = 1e-6;
  Trace t = decide(o, s);
  EXPECT_EQ(t.decision.verdict, Verdict::Ambiguous);
  EXPECT_EQ(t.asked, kBatched);
  Observations d;
  d.domainReason = "log met 0";
  t = decide(d, s);
  EXPECT_EQ(t.decision.verdict, Verdict::Ambiguous);
  EXPECT_EQ(t.decision.summary, "results differ, but log met 0: output 0: 2 elements differ");
}

TEST(Classify, ARaiseIsABatchedErrorOnlyWhereEveryExampleRunsAlone) {
  Script s;
  s.batched = Status::Error;
  s.perExample = ran();
  Trace t = decide({}, s);
  EXPECT_EQ(t.decision.verdict, Verdict::BatchedError);
  EXPECT_EQ(t.decision.summary, "RuntimeError: planted");
  EXPECT_EQ(t.asked, kBoth);
  s.perExample = ran(Status::Error, {}, "RuntimeError", "rejected\nsecond line");
  EXPECT_EQ(decide({}, s).decision.summary, "torch rejects the program unbatched too: RuntimeError: rejected");
  s.perExample = ran(Status::Crash, {}, "", "killed by signal 11");
  EXPECT_EQ(decide({}, s).decision.summary, "the per-example run also fails: killed by signal 11");
}

TEST(Classify, ProcessFailuresOfTheBatchedRunAreTheirOwnVerdicts) {
  for (auto [status, verdict] : {std::pair{Status::Crash, Verdict::Crash}, {Status::Hang, Verdict::Hang}, {Status::Oom, Verdict::Oom},
                                 {Status::HarnessError, Verdict::HarnessBug}}) {
    Script s;
    s.batched = status;
    Trace t = decide({}, s);
    EXPECT_EQ(t.decision.verdict, verdict);
    EXPECT_EQ(t.asked, kBatched) << "no per-example run after a " << verdictName(verdict);
  }
}

TEST(Classify, DocumentedRestrictionsAndMissingRulesAreNotBugs) {
  Script s;
  s.batched = Status::Error;
  s.perExample = ran();
  Observations o;
  o.bufferHazard = "the buffer of scan is not surely batched";
  o.saysInplaceRule = true;
  EXPECT_EQ(decide(o, s).decision.verdict, Verdict::Invalid);
  o.saysInplaceRule = false; // the hazard alone, torch saying something else: a bug
  EXPECT_EQ(decide(o, s).decision.verdict, Verdict::BatchedError);
  Observations u;
  u.saysUnsupported = true;
  EXPECT_EQ(decide(u, s).decision.verdict, Verdict::Unsupported);
  // After save/load the same words are a failure of the loaded artifact.
  u.afterSaveLoad = true;
  Trace t = decide(u, s);
  EXPECT_EQ(t.decision.verdict, Verdict::BatchedError);
  EXPECT_EQ(t.decision.summary, "after save/load: RuntimeError: planted");
}


TEST(Classify, AnOpThisTorchLacksIsUnsupportedWithoutAPerExampleRun) {
  Script s;
  s.batched = Status::Error;
  s.errorType = "ImportError";
  s.errorMessage = "cannot import name 'switch' from 'torch._higher_order_ops.switch'\nmore";
  // Each example alone would fail the same way: it is not asked for, and not "invalid".
  s.perExample = ran(Status::Error, {}, "ImportError", "cannot import name 'switch'");
  Observations o;
  o.torchLacks = true;
  Trace t = decide(o, s);
  EXPECT_EQ(t.decision.verdict, Verdict::Unsupported);
  EXPECT_EQ(t.asked, kBatched);
  EXPECT_EQ(t.decision.summary,
            "this torch lacks what the program imports: ImportError: cannot import name 'switch' from 'torch._higher_order_ops.switch'");
  // The same error without the worker's "import" stage is torch's own: decided as any raise.
  o.torchLacks = false;
  EXPECT_EQ(decide(o, s).decision.verdict, Verdict::Invalid);
}
TEST(Classify, AGradientFindingWhoseForwardValuesDifferIsThatForwardMismatch) {
  Script s;
  s.batched = Status::Error; // raised in the backward pass
  s.forward = ran(Status::Ok, differs("output 0: shape [2] against [3]"));
  Observations o = gradient(Grad::OfVmap);
  o.gradientPass = kBackwardPassRaises;
  Trace t = decide(o, s);
  EXPECT_EQ(t.decision.verdict, Verdict::Mismatch);
  EXPECT_EQ(t.decision.shown, Shown::ForwardOnly);
  EXPECT_EQ(t.decision.summary, "the forward values already differ, before any derivative: output 0: shape [2] against [3]");
  EXPECT_EQ(t.asked, (std::vector<Need>{Need::Batched, Need::Forward}));
  // Right forward values: the derivative's own error, checked per example.
  s.forward = ran(Status::Ok, same());
  s.perExample = ran();
  t = decide(o, s);
  EXPECT_EQ(t.decision.verdict, Verdict::BatchedError);
  EXPECT_EQ(t.decision.summary, std::string(kBackwardPassRaises) + ": RuntimeError: planted");
  EXPECT_EQ(t.asked, (std::vector<Need>{Need::Batched, Need::Forward, Need::PerExample}));
  // Raised in the forward pass itself: no forward check, it is the forward mode's bug already.
  o.gradientPass = kForwardPassRaises;
  EXPECT_EQ(decide(o, s).asked, kBoth);
  // Forward values near a boundary decide nothing.
  o.gradientPass = kBackwardPassRaises;
  o.forwardBoundary = 1e-7;
  EXPECT_EQ(decide(o, s).asked, kBoth);
}

TEST(Classify, PerSampleGradientsThatTheTransformCannotTakeAloneAreUnsupported) {
  Script s;
  s.batched = Status::Error;
  s.perExample = ran();
  s.forward = ran(Status::Ok, same());
  s.perExampleFunc = ran(Status::Error, {}, "RuntimeError", "vjp of cond");
  Observations o = gradient(Grad::VmapOf);
  o.gradientPass = kForwardPassRaises;
  Trace t = decide(o, s);
  EXPECT_EQ(t.decision.verdict, Verdict::Unsupported);
  EXPECT_EQ(t.decision.summary, "torch.func.vjp fails on each example alone too (no vmap): RuntimeError: vjp of cond");
  EXPECT_EQ(t.asked, (std::vector<Need>{Need::Batched, Need::PerExample, Need::PerExampleFunc}));
  s.perExampleFunc = ran();
  EXPECT_EQ(decide(o, s).decision.verdict, Verdict::BatchedError);
  // A forward-value mode never asks.
  Observations f;
  EXPECT_EQ(decide(f, s).asked, kBoth);
}

TEST(Classify, ACompiledFunctionsStaleSecondCallIsAMismatchOfThatCall) {
  Observations o;
  o.firstSize = 2;
  o.againSize = 3;
  o.precompile = true;
  Script s;
  s.second = differs();
  Trace t = decide(o, s);
  EXPECT_EQ(t.decision.verdict, Verdict::Mismatch);
  EXPECT_EQ(t.decision.shown, Shown::SecondCall);
  EXPECT_EQ(t.decision.summary,
            "after save/load: called again at batch size 3 (first 2), the compiled function returns a wrong result: output 0: 2 elements differ");
  EXPECT_EQ(t.asked, kBatched) << "the second call is compared with its own reference: no per-example run";
  o.againBoundary = 1e-9;
  EXPECT_EQ(decide(o, s).decision.verdict, Verdict::Ambiguous);
  s.second = same();
  EXPECT_EQ(decide(o, s).decision.verdict, Verdict::Pass);
}

TEST(Classify, ARaiseOfTheSecondCallShowsThatCall) {
  Observations o;
  o.againSize = 4;
  o.failedOnSecondCall = true;
  Script s;
  s.batched = Status::Error;
  s.perExample = ran();
  Trace t = decide(o, s);
  EXPECT_EQ(t.decision.verdict, Verdict::BatchedError);
  EXPECT_EQ(t.decision.shown, Shown::SecondCall);
  EXPECT_EQ(t.decision.summary, "on the second call, at batch size 4: RuntimeError: planted");
  s.perExample = ran(Status::Error, {}, "RuntimeError", "no");
  EXPECT_EQ(decide(o, s).decision.shown, Shown::SecondCall);
}
