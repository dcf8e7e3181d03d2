// End-to-end property (issues 16 and 27): a shrink never changes a finding's culprit, failure
// class or signature, over faults planted in torch's batching rules
// (harness/backends/torch/worker/vmapfuzz_faults.py), not a stand-in system. For each fault,
// RapidCheck enlarges the fault's smallest case at random (batch size, inputs' data, an extra
// input batched or not, extra statements and outputs); the enlarged case, found failing in direct
// mode with the fault planted, is shrunk as a campaign shrinks (shrinkFinding: its culprit
// localised first and kept), and on the shrunk case the culprit localised again must be the
// component the fault is planted in, the failure class the one found, and the filed signature
// (ablation and culprit included) the one the smallest case gets. Every step of the shrink must
// keep the failure, never grow the case, and stay valid.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdlib>
#include <map>
#include <sstream>

#include "harness/backends/torch/torch_backend.h"
#include "harness/report/shrink_finding.h"
#include "harness/report/signature.h"
#include "harness/run/runner.h"
#include "ir/text.h"
#include "ir/validate.h"
#include "tests/e2e/e2e.h"

using namespace vf;

namespace {

/// One planted fault and the shape of its smallest case.
struct Fault {
  const char *name;
  const char *component;  ///< where it is planted (vmapfuzz_faults.COMPONENT)
  int n;                  ///< per-example length of the input
  int inDim;              ///< in_dim of the input that carries the fault
  int outDim;             ///< out_dim of the result that shows it
  bool cond;              ///< the result comes through a cond with a batched predicate
  std::vector<int> sizes; ///< batch sizes at which the fault is this silent mismatch, see below
};

// A fault can show as another failure at some batch sizes, another signature by design:
// - cond-operand-bdim-zero reads the batch dim of an operand batched at dim 1 from dim 0, which
//   is a silent wrong result only when the batch size equals that dim's size (3); at other sizes
//   vmap raises "Expected all tensors to have the same size in the mapped dimension".
// - vmap-negative-out-dim puts the batch dim of an [S, N] result at 0 instead of 1: a shape
//   difference, except at S == N, where the shapes agree and only the values differ.
const Fault kFaults[] = {
    {"cond-batched-pred-swapped", "hop:cond", 2, 0, 0, true, {2, 3, 4, 5}},
    {"cond-operand-bdim-zero", "hop:cond", 3, 1, 0, true, {3}},
    {"vmap-negative-out-dim", "vmap:front-end", 3, 0, -1, false, {2, 4, 5}},
};

/// How a fault's smallest case is made bigger.
struct Enlargement {
  int size = 2;               ///< batch size
  uint64_t dataSeed = 3;      ///< the inputs' data
  int extraInput = 0;         ///< 0 none, 1 unbatched (in_dim None), 2 batched at 0
  std::vector<int> extraOps;  ///< a chain of unary ops after the result, each an extra output
};

const char *kUnary[] = {"neg", "sin", "cos", "tanh", "abs"};

std::string caseText(const Fault &f, const Enlargement &e) {
  std::string t = "f32[" + std::to_string(f.n) + "]";
  std::ostringstream os;
  os << "vmap size=" << e.size << " in_dims=(" << f.inDim << (e.extraInput == 1 ? ",None" : e.extraInput == 2 ? ",0" : "")
     << ") out_dims=(" << f.outDim;
  for (size_t i = 0; i < e.extraOps.size(); ++i) os << ",0";
  os << ")\ndata_seed " << e.dataSeed << "\nfunc(%0: " << t << (e.extraInput ? ", %1: " + t : "") << ") {\n";
  int next = 2;
  int result = next;
  if (f.cond) {
    os << "  %2: f32[] = sum_all(%0)\n  %3: bool[] = gt_scalar(%2) {value=0.0}\n";
    os << "  %4: " << t << " = cond(%3, %0) [\n    (%5: " << t << ") {\n      %6: " << t << " = neg(%5)\n      yield %6\n    }\n"
       << "    (%7: " << t << ") {\n      %8: " << t << " = sin(%7)\n      yield %8\n    }\n  ]\n";
    result = 4;
    next = 9;
  } else {
    os << "  %2: " << t << " = sin(%0)\n";
    next = 3;
  }
  std::vector<int> outs = {result};
  int prev = result;
  for (int op : e.extraOps) {
    int id = next++;
    if (e.extraInput && op % 2 == 0) { // every other extra statement also reads the extra input
      os << "  %" << id << ": " << t << " = add(%" << prev << ", %1)\n";
    } else {
      os << "  %" << id << ": " << t << " = " << kUnary[op % 5] << "(%" << prev << ")\n";
    }
    outs.push_back(id);
    prev = id;
  }
  os << "  return ";
  for (size_t i = 0; i < outs.size(); ++i) os << (i ? ", " : "") << "%" << outs[i];
  os << "\n}\n";
  return os.str();
}

WorkerConfig config(const std::string &fault) {
  WorkerConfig w = test::testWorker();
  w.faults = {fault};
  return w;
}

ExecConfig direct() {
  ExecConfig e;
  e.api = Api::Direct;
  return e;
}

/// What a campaign files for finding `found` of `c`: shrunk keeping its culprit, then signed.
struct Filed {
  Case shrunk;
  int64_t attempts = 0;
  std::string keptCulprit; ///< the culprit the shrink kept
  std::string culprit;     ///< the culprit localised again on the shrunk case
  CaseResult result;       ///< the shrunk case's run
  std::string signature;
};

Filed file(Runner &runner, const Case &c, const CaseResult &found) {
  Filed f;
  FindingShrink fs = shrinkFinding(c, found, runner, /*culpritRuns=*/24, /*maxAttempts=*/3000);
  f.shrunk = fs.shrunk;
  f.attempts = fs.stats.attempts;
  f.keptCulprit = fs.culprit;
  f.result = runner.run(f.shrunk);
  const Signature s = signFinding(f.shrunk, f.result, runner, findCulprits(f.shrunk, f.result, runner, 24));
  f.culprit = s.culprits.culprit();
  f.signature = s.key;
  return f;
}

} // namespace

TEST(ShrinkFaultProperty, AShrinkNeverChangesTheCulpritFailureClassOrSignatureOfAPlantedFault) {
  // Twelve enlargements per fault: each is a torch run or two per shrink candidate. RC_PARAMS
  // set by the caller (a seed to replay, more cases) wins.
  setenv("RC_PARAMS", "max_success=12", /*overwrite=*/0);
  for (const Fault &f : kFaults) {
    auto worker = std::make_shared<WorkerProcess>(config(f.name));
    TorchBackend backend(worker, direct(), "cpu");
    Runner runner(backend);
    // The signature the fault's smallest case is filed under, naming the planted component.
    Enlargement plain;
    plain.size = f.sizes.front();
    Case smallest = parseCase(caseText(f, plain));
    CaseResult smallestResult = runner.run(smallest);
    ASSERT_EQ(smallestResult.verdict, Verdict::Mismatch) << f.name << ": " << smallestResult.summary;
    const Filed expected = file(runner, smallest, smallestResult);
    ASSERT_EQ(expected.culprit, f.component) << f.name << ": " << expected.signature;
    EXPECT_NE(expected.signature.find(std::string("culprit:") + f.component), std::string::npos) << expected.signature;

    bool ok = rc::check(std::string("a shrink keeps the culprit, failure class and signature of ") + f.name, [&] {
      Enlargement e;
      e.size = *rc::gen::elementOf(f.sizes);
      e.dataSeed = *rc::gen::inRange<uint64_t>(0, 1000);
      e.extraInput = *rc::gen::inRange(0, 3);
      e.extraOps = *rc::gen::container<std::vector<int>>(*rc::gen::inRange(0, 4), rc::gen::inRange(0, 10));
      Case big = parseCase(caseText(f, e));
      RC_ASSERT(validateCase(big) == "");
      CaseResult found = runner.run(big);
      // Data can hide a fault (every example on one side of the predicate and both branches
      // alike there, say): such a case is no finding, and nothing is shrunk.
      RC_PRE(found.verdict == Verdict::Mismatch);
      const Filed filed = file(runner, big, found);
      RC_LOG() << "enlarged:\n" << printCase(big) << "shrunk (" << filed.attempts << " attempts, keeping culprit '"
               << filed.keptCulprit << "'):\n" << printCase(filed.shrunk) << "signature: " << filed.signature << "\n";
      RC_ASSERT(validateCase(filed.shrunk) == "");
      RC_ASSERT(caseWeight(filed.shrunk) <= caseWeight(big));
      RC_CLASSIFY(caseWeight(filed.shrunk) < caseWeight(big), "shrunk to a smaller case");
      RC_CLASSIFY(filed.shrunk == smallest, "shrunk to the smallest case itself");
      RC_ASSERT(filed.keptCulprit == std::string(f.component)); // localised before the shrink...
      RC_ASSERT(filed.culprit == std::string(f.component));     // ...and after it: the same component
      RC_ASSERT(sameFailureClass(found, filed.result, f.component));
      RC_ASSERT(filed.signature == expected.signature);
    });
    EXPECT_TRUE(ok) << f.name << ": the filed culprit or signature is not stable under shrinking; expected "
                    << expected.signature;
  }
}
