// Unit tests of issue 16's signatures: error peeling and normalisation on real wrapped messages
// (from reports/*/result.txt), the ablation's features on a case with a synthetic failure rule,
// lookup by alias, and a shrink that never changes the cheap key it keeps.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "generators/case_gen.h"
#include "harness/report/ablation.h"
#include "harness/report/error_signature.h"
#include "harness/report/findings.h"
#include "harness/report/shrinker.h"
#include "harness/report/triage.h"
#include "harness/run/runner.h"
#include "ir/text.h"

using namespace vf;
namespace fs = std::filesystem;

namespace {

// reports/batched-error-04404d75 (abridged in the middle, as the worker sends it).
const char *kFakeTensorWrapped =
    "RuntimeError when making fake tensor call\n"
    "  Explanation: Dynamo failed to run FX node with fake tensors: call_function squeeze(*(BatchedTensor(lvl=1, bdim=0, value=\n"
    "        FakeTensor(..., size=(1,), dtype=torch.bool)\n"
    "    ), -1), **{}): got RuntimeError('Dimension is out of range (expected to be in range of [-1, 0], but got [-1]')\n"
    "  Hint: Your code may result in an error when running in eager.\n";

const char *kUncaptured =
    "This higher order operator doesn't work unless it is captured completely with torch.compile. Got graph break/error:\n\n"
    "raised exception ValueError('treespec.unflatten(leaves): `leaves` has length 1 but the spec refers to a pytree that "
    "holds 2 items (TreeSpec(tuple, None, [*,\\n  *])).')\n  Higher Order Operator: torch.cond\n";

// reports/batched-error-04404d75/also/batched-error-aa54ccfc's traceback: the cause's frames in "from user code:".
const char *kUncapturedTraceback =
    "Traceback (most recent call last):\n"
    "  File \"/usr/lib/python3/dist-packages/torch/_dynamo/eval_frame.py\", line 1272, in compile_wrapper\n"
    "    raise e.with_traceback(\n"
    "torch._dynamo.exc.UncapturedHigherOrderOpError: This higher order operator doesn't work ...\n"
    "from user code:\n"
    "   File \"/usr/lib/python3/dist-packages/torch/_higher_order_ops/cond.py\", line 241, in _cond_op_wrapper\n"
    "    return cond_op(*args, **kwargs)\n"
    "  File \"/usr/lib/python3/dist-packages/torch/utils/_pytree.py\", line 1507, in tree_unflatten\n"
    "    return treespec.unflatten(leaves)\n"
    "  File \"/usr/lib/python3/dist-packages/torch/utils/_pytree.py\", line 1315, in unflatten\n"
    "    raise ValueError(\n";

// reports/batched-error-3ad5105a/also/batched-error-810cf0d1's traceback (end): a C++ op called from torch's Python code.
const char *kCppTraceback =
    "Traceback (most recent call last):\n"
    "  File \"/usr/lib/python3/dist-packages/torch/_higher_order_ops/cond.py\", line 779, in cond_batch_rule\n"
    "    result = torch.vmap(fn, in_dims=in_dims)(*tensors)\n"
    "  File \"/usr/lib/python3/dist-packages/torch/_higher_order_ops/cond.py\", line 776, in fn\n"
    "    return torch.where(p, t[0], f[0])\n"
    "           ~~~~~~~~~~~^^^^^^^^^^^^^^^\n"
    "RuntimeError: The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 2\n";

// A Python raise inside torch, not wrapped.
const char *kPythonRaise =
    "Traceback (most recent call last):\n"
    "  File \"<vmapfuzz-case-12>\", line 9, in program\n"
    "  File \"/usr/lib/python3/dist-packages/torch/_functorch/vmap.py\", line 507, in _flat_vmap\n"
    "    batched_outputs = func(*batched_inputs, **kwargs)\n"
    "  File \"/usr/lib/python3/dist-packages/torch/_functorch/vmap.py\", line 61, in _validate_and_get_batch_size\n"
    "    raise ValueError(\n"
    "ValueError: vmap: Expected all tensors to have the same size in the mapped dimension, got sizes [2, 3]\n";

std::string tempDir(const std::string &name) {
  auto d = fs::temp_directory_path() / ("vmapfuzz-sig-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

} // namespace

TEST(ErrorSignature, PeelsDynamosWrappersToThePlainError) {
  const std::string plain = "Dimension is out of range (expected to be in range of [-1, 0], but got [-1]";
  InnerError w = peelError("torch._dynamo.exc.TorchRuntimeError", kFakeTensorWrapped);
  EXPECT_TRUE(w.peeled);
  EXPECT_EQ(w.type, "RuntimeError");
  EXPECT_EQ(w.message, plain);
  InnerError internal = peelError("torch._dynamo.exc.InternalTorchDynamoError", "RuntimeError: " + plain);
  EXPECT_EQ(internal.type, "RuntimeError");
  EXPECT_EQ(internal.message, plain);
  InnerError p = peelError("RuntimeError", plain);
  EXPECT_FALSE(p.peeled);
  // All three: one signature (no frame: the plain one comes from C++, the wrapped ones hide it).
  std::string s = errorSignature("RuntimeError", plain, "");
  EXPECT_EQ(errorSignature("torch._dynamo.exc.TorchRuntimeError", kFakeTensorWrapped, ""), s);
  EXPECT_EQ(errorSignature("torch._dynamo.exc.InternalTorchDynamoError", "RuntimeError: " + plain, ""), s);
  EXPECT_EQ(s, "RuntimeError|Dimension is out of range (expected to be in range of [-N, ...], but got [-N]|");
  InnerError u = peelError("torch._dynamo.exc.UncapturedHigherOrderOpError", kUncaptured);
  EXPECT_EQ(u.type, "ValueError");
  EXPECT_EQ(u.message.rfind("treespec.unflatten(leaves): `leaves` has length 1", 0), 0u) << u.message;
}

TEST(ErrorSignature, NormalisesWhatVariesBetweenHitsOfOneBug) {
  // batched-error-72c06e84 and -b6e2506c: one assertion, worded with one value or two.
  EXPECT_EQ(normaliseMessage("expected b_val == 1 when a_val == 1, got b_val=0"),
            normaliseMessage("expected b_val == 0 when a_val == 0, got a_val=0, b_val=1"));
  EXPECT_EQ(normaliseMessage("in true_fn_12 at 0x7f3725126672"), normaliseMessage("in false_fn_3 at 0x55f6225bce0e"));
  EXPECT_EQ(normaliseMessage("got sizes [1, 2, 1] for the mapped dimension"), normaliseMessage("got sizes [3, 5] for the mapped dimension"));
  EXPECT_EQ(normaliseMessage("l_args_0_ has shape (2, 3)"), normaliseMessage("l_args_1_closure_3_cell_contents has shape (4, 5)"));
  // A list of classes, one per argument: its order and length vary, its set of classes not.
  const std::string fake = "<class 'torch._subclasses.fake_tensor.FakeTensor'>", sym = "<class 'torch.SymInt'>",
                    plain = "<class 'torch.Tensor'>";
  EXPECT_EQ(normaliseMessage("Cond inputs must be a list of tensors, got [" + plain + ", " + fake + ", " + sym + "]"),
            normaliseMessage("Cond inputs must be a list of tensors, got [" + fake + ", " + fake + ", " + sym + ", " + plain + "]"));
  EXPECT_NE(normaliseMessage("Cond inputs must be a list of tensors, got [" + fake + ", " + sym + "]"),
            normaliseMessage("Cond inputs must be a list of tensors, got [" + fake + ", " + plain + "]"));
  EXPECT_EQ(normaliseMessage("got [" + plain + ", " + sym + "]"), "got [classes: torch.SymInt torch.Tensor]");
  // Different bugs stay apart.
  EXPECT_NE(normaliseMessage("Index tensor must have the same number of dimensions as src tensor"),
            normaliseMessage("Dimension is out of range (expected to be in range of [-1, 0], but got [-1]"));
}

TEST(ErrorSignature, TheFrameThatRaisedIt) {
  EXPECT_EQ(raisingFrame(kPythonRaise, false), "_functorch/vmap.py:_validate_and_get_batch_size");
  EXPECT_EQ(raisingFrame(kUncapturedTraceback, true), "utils/_pytree.py:unflatten");
  EXPECT_EQ(raisingFrame(kCppTraceback, false), ""); // raised in C++: the Python line is a call
  EXPECT_EQ(raisingFrame("", false), "");           // libtorch backend: no Python traceback
  // fx's GraphModule.__call__ re-raises what ATen raised: a re-raise is no raising frame, so the
  // bug has the signature it has without fx in between.
  const std::string viaFx =
      "Traceback (most recent call last):\n"
      "  File \"/usr/lib/python3/dist-packages/torch/fx/graph_module.py\", line 514, in __call__\n"
      "    raise e\n"
      "RuntimeError: The size of tensor a (13) must match the size of tensor b (2) at non-singleton dimension 1\n";
  EXPECT_EQ(raisingFrame(viaFx, false), "");
  std::string withTraceback = viaFx;
  withTraceback.replace(withTraceback.find("raise e\n"), 8, "raise e.with_traceback(None)  # noqa: B904\n");
  EXPECT_EQ(raisingFrame(withTraceback, false), "");
  // dynamo's compile_wrapper re-raises its own error over several lines: the first one is
  // `raise e.with_traceback(`. Whether a run shows that frame or not must not split a signature.
  const std::string viaCompileWrapper =
      "Traceback (most recent call last):\n"
      "  File \"/usr/lib/python3/dist-packages/torch/_dynamo/eval_frame.py\", line 1272, in compile_wrapper\n"
      "    raise e.with_traceback(\n"
      "torch._dynamo.exc.UncapturedHigherOrderOpError: Expected init and carry to have same metadata\n";
  EXPECT_EQ(raisingFrame(viaCompileWrapper, false), "");
  std::string fresh = viaFx;
  fresh.replace(fresh.find("raise e\n"), 8, "raise RuntimeError(msg)\n");
  EXPECT_EQ(raisingFrame(fresh, false), "fx/graph_module.py:__call__");
  // The frames make two errors with one message two signatures.
  EXPECT_NE(errorSignature("ValueError", "x", kPythonRaise), errorSignature("ValueError", "x", ""));
}

TEST(ErrorSignature, WhereAnErrorComesFrom) {
  // Raised in torch's Python: the raising frame, as raisingFrame.
  EXPECT_EQ(errorSite(kPythonRaise, false), "_functorch/vmap.py:_validate_and_get_batch_size");
  EXPECT_EQ(errorSite(kUncapturedTraceback, true), "utils/_pytree.py:unflatten");
  // Raised in C++ from a function of torch's own (here the per-example function of cond's rule).
  EXPECT_EQ(errorSite(kCppTraceback, false), "c++ from _higher_order_ops/cond.py:fn");
  // Raised in C++ from the program, called directly or through the GraphModule of a traced body.
  const std::string program = "Traceback (most recent call last):\n  File \"<vmapfuzz-case-3>\", line 7, in program\n"
                              "    %5 = torch.select(x, 1, 0)\n";
  EXPECT_EQ(errorSite(program, false), "c++ from the program");
  const std::string viaFx = "Traceback (most recent call last):\n"
                            "  File \"/usr/lib/python3/dist-packages/torch/fx/graph_module.py\", line 1007, in call_wrapped\n"
                            "    return self._wrapped_call(self, *args, **kwargs)\n"
                            "  File \"/usr/lib/python3/dist-packages/torch/fx/graph_module.py\", line 512, in __call__\n"
                            "    raise e.with_traceback(None)  # noqa: B904\n";
  EXPECT_EQ(errorSite(viaFx, false), "c++ from the program");
  EXPECT_EQ(errorSite("", false), ""); // the libtorch backend: no Python traceback
  // dynamo wrapped it and shows the user code's frames only, ending in the call it traced.
  const std::string hidden = "torch._dynamo.exc.TorchRuntimeError: RuntimeError when making fake tensor call\n\nfrom user code:\n"
                             "   File \"/usr/lib/python3/dist-packages/torch/_higher_order_ops/cond.py\", line 241, in _cond_op_wrapper\n"
                             "    return cond_op(pred, true_fn, false_fn, operands)\n";
  EXPECT_EQ(errorSite(hidden, true), "hidden by dynamo");
}

TEST(CulpritSignature, AnErrorHiddenByDynamoIsNotTheCulpritsOwnAndTheTracingKeepsItsMessages) {
  CaseResult r;
  r.verdict = Verdict::BatchedError;
  r.system = *SystemId::parse("eager|cpu");
  r.errorType = "torch._dynamo.exc.TorchRuntimeError";
  r.errorMessage = "RuntimeError when making fake tensor call got RuntimeError('vmap: Expected at least one Tensor to vmap over')";
  r.traceback = "from user code:\n   File \"/usr/lib/python3/dist-packages/torch/_higher_order_ops/cond.py\", line 241, in "
                "_cond_op_wrapper\n    return cond_op(pred, true_fn, false_fn, operands)\n";
  // The frame shown is cond's wrapper calling the op it traced: not cond's rule raising.
  EXPECT_EQ(failureClass(r, "hop:cond"), "eager|cpu|batched-error|error||elsewhere");
  // The public API's tracing as the culprit: two of its errors are told apart by what they say.
  CaseResult other = r;
  other.errorMessage = "RuntimeError when making fake tensor call got RuntimeError('The sorted order of strides of the two branches')";
  EXPECT_FALSE(sameFailureClass(r, other, "dynamo:eager"));
  EXPECT_TRUE(sameFailureClass(r, other, "hop:cond"));
}

namespace {

// reports/mismatch-345244fa: the predicate depends on %0, batched at the outer level only.
Case nestedCond() {
  return parseCase("vmap size=1 in_dims=(0,None) out_dims=(0)\nvmap size=2 in_dims=(None,0) out_dims=(0)\ndata_seed 1\n"
                   "func(%0: f16[], %1: bool[]) {\n  %22: bool[] = gt_scalar(%0) {value=0.0}\n"
                   "  %23: f16[] = cond(%22, %0) [\n    (%24: f16[]) {\n      yield %0\n    }\n"
                   "    (%26: f16[]) {\n      yield %26\n    }\n  ]\n  %29: f16[] = sub(%23, %0)\n  return %29\n}\n");
}

/// A synthetic bug: fails while input 0 is batched at the outer level and not at the inner one.
bool outerOnly(const Case &c) {
  if (c.spec.levels.size() != 2) return false;
  return c.spec.levels[0].in_dims[0].has_value() && !c.spec.levels[1].in_dims[0].has_value();
}

} // namespace

TEST(Ablation, FindsTheEssentialFeaturesOfASyntheticBug) {
  Ablation a = ablate(nestedCond(), outerOnly);
  EXPECT_EQ(a.features, (std::vector<std::string>{"cond.predicate:batched@outer", "cond.predicate:unbatched@inner", "nested"}));
  EXPECT_EQ(essentialSentence(a), "fails only when the predicate of cond is batched at the outer level and not at the inner "
                                  "level and vmap is nested (2 levels)");
  EXPECT_LE(a.probes, 32);
  Ablation again = ablate(nestedCond(), outerOnly);
  EXPECT_EQ(again.features, a.features); // deterministic
  EXPECT_EQ(again.probes, a.probes);
  // A failure that needs nothing of the batching has no essential feature.
  EXPECT_TRUE(ablate(nestedCond(), [](const Case &) { return true; }).features.empty());
  // The budget bounds the runs.
  Ablation capped = ablate(nestedCond(), outerOnly, 1);
  EXPECT_EQ(capped.probes, 1);
  EXPECT_TRUE(capped.capped);
}

TEST(FindingStore, MatchesASignatureAgainstAFoldersAliases) {
  std::string dir = tempDir("alias");
  fs::create_directories(dir + "/mismatch-old");
  nlohmann::json meta = {{"signature", "eager|cpu|mismatch|cond,|new-features|values:all"},
                         {"aliases", {"eager|cpu|mismatch|cond,"}},
                         {"hits", 3}};
  std::ofstream(dir + "/mismatch-old/meta.json") << meta.dump(2);
  FindingStore store(dir);
  EXPECT_TRUE(store.known("eager|cpu|mismatch|cond,"));
  EXPECT_TRUE(store.known("eager|cpu|mismatch|cond,|new-features|values:all"));
  EXPECT_FALSE(store.known("eager|cpu|mismatch|cond,|other|values:all"));
  CaseResult r;
  r.verdict = Verdict::Mismatch;
  auto rec = store.record(nestedCond(), r, "vmapfuzz replay case.vf", "", std::string("eager|cpu|mismatch|cond,"));
  EXPECT_FALSE(rec.isNew);
  EXPECT_EQ(fs::path(rec.dir).filename(), "mismatch-old");
  EXPECT_EQ(rec.hits, 4);
  // No second folder: the only report folder is the old one (beside the folder's lock file).
  int folders = 0;
  for (const auto &e : fs::directory_iterator(dir)) folders += e.is_directory();
  EXPECT_EQ(folders, 1);
}

// A shrink keeps the cheap key (verdict and kind of difference) at every step, so the case it
// ends with fails as the one it started from. The stand-in system: a mismatch whose kind is
// "shape" while some in_dim is negative, "values" while the program holds a cond, else a pass.
RC_GTEST_PROP(Signature, AShrinkNeverChangesTheKindOfFailure, ()) {
  Case c = *genCase(GenPolicy{});
  auto system = [](const Case &k) {
    CaseResult r;
    bool negative = false;
    for (const auto &l : k.spec.levels)
      for (const auto &d : l.in_dims) negative |= d && *d < 0;
    bool cond = constructList(k).find("cond") != std::string::npos;
    if (!negative && !cond) return r;
    r.verdict = Verdict::Mismatch;
    r.expected = {at::zeros({2})};
    r.actual = {negative ? at::zeros({3}) : at::ones({2})};
    return r;
  };
  CaseResult found = system(c);
  RC_PRE(found.verdict == Verdict::Mismatch);
  Case s = shrinkCase(c, [&](const Case &cand) { return failsTheSameWay(found, system(cand)); }, nullptr, 300);
  RC_ASSERT(shrinkKey(system(s)) == shrinkKey(found));
  RC_ASSERT(failsTheSameWay(found, system(s)));
}

TEST(Signature, AShrinkKeyTellsKindsOfDifferenceApart) {
  CaseResult v, sh;
  v.verdict = sh.verdict = Verdict::Mismatch;
  v.expected = sh.expected = {at::zeros({2})};
  v.actual = {at::ones({2})};
  sh.actual = {at::zeros({3})};
  EXPECT_EQ(differenceKind(v, true), "values:all");
  EXPECT_EQ(differenceKind(sh), "shape");
  EXPECT_FALSE(failsTheSameWay(v, sh));
  EXPECT_TRUE(failsTheSameWay(v, v));
}

TEST(Signature, AGradientModesForwardErrorIsTheForwardModesBug) {
  // The same batching rule raises in eager and in eager+grad's forward pass: one signature, so
  // a nightly with gradient modes does not file a known forward bug again. Raised in the
  // backward pass, it is the gradient mode's own.
  Case c = parseCase("vmap size=2 in_dims=(0) out_dims=(0)\nfunc(%0: f32[3]) {\n  %1: f32[3] = neg(%0)\n  return %1\n}\n");
  // The worker names the pass that raised (Outcome::raisingPass) from the traceback's frames.
  auto result = [](const std::string &system, const std::string &traceback, const std::string &pass = "") {
    CaseResult r;
    r.verdict = Verdict::BatchedError;
    r.system = SystemId::parse(system).value();
    r.errorType = "RuntimeError";
    r.errorMessage = "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 2";
    r.traceback = traceback;
    r.raisingPass = pass;
    return r;
  };
  const std::string forward = std::string("Traceback (most recent call last):\n  File \"<vmapfuzz-case-1>\", line 40, in _forward_pass\n") +
                              (kCppTraceback + std::string("Traceback (most recent call last):\n").size());
  const std::string backward = std::string("Traceback (most recent call last):\n  File \"<vmapfuzz-case-1>\", line 50, in _backward_pass\n") +
                               (kCppTraceback + std::string("Traceback (most recent call last):\n").size());
  std::string eager = signatureOf(c, result("eager|cpu", kCppTraceback));
  EXPECT_EQ(signatureOf(c, result("eager+grad|cpu", forward, "forward")), eager);
  EXPECT_EQ(signatureOf(c, result("direct+vmap-grad|cpu", forward, "forward")), signatureOf(c, result("direct|cpu", kCppTraceback)));
  std::string bw = signatureOf(c, result("eager+grad|cpu", backward, "backward"));
  EXPECT_NE(bw, eager);
  EXPECT_EQ(bw.rfind("eager+grad|cpu|batched-error|", 0), 0u) << bw;
}

TEST(Signature, AGradientModesFindingWhoseForwardValuesDifferIsTheForwardModes) {
  // The runner compares the forward values of a gradient mode's finding (CaseResult::forwardDiffers):
  // a forward mismatch met in "direct+vmap-grad|cpu" is filed and matched as "direct|cpu"'s.
  Case c = parseCase("vmap size=2 in_dims=(0) out_dims=(0)\nfunc(%0: f32[3]) {\n  %1: f32[3] = neg(%0)\n  return %1\n}\n");
  auto mismatch = [](const std::string &system, bool forward) {
    CaseResult r;
    r.verdict = Verdict::Mismatch;
    r.system = SystemId::parse(system).value();
    r.forwardDiffers = forward;
    r.expected = {at::zeros({2, 3})};
    r.actual = {at::zeros({2, 1})};
    return r;
  };
  EXPECT_EQ(findingSystem(mismatch("eager+grad|cpu", true)).str(), "eager|cpu");
  EXPECT_EQ(findingSystem(mismatch("eager+grad|cpu", false)).str(), "eager+grad|cpu");
  EXPECT_EQ(signatureOf(c, mismatch("eager+grad|cpu", true)), signatureOf(c, mismatch("eager|cpu", false)));
  EXPECT_NE(signatureOf(c, mismatch("eager+grad|cpu", false)), signatureOf(c, mismatch("eager|cpu", false)));
}

// Issue 27: a finding localised to one culprit is signed by what the failure needs.

TEST(CulpritSignature, KeepsOnlyTheFeaturesOfTheCulpritsInputWithLevelsByWhatTheyAreToIt) {
  const std::vector<std::string> f = {"cond.predicate:batched@level 1 of 3", "cond.predicate:unbatched@level 3 of 3",
                                      "scan.xs:batched@vmap", "nested", "out_dims<0@outer", "in_dims>0@inner",
                                      "chunk_size@level 2 of 3", "dtype=float"};
  EXPECT_EQ(culpritFeatures("hop:cond", f), (std::vector<std::string>{"cond.predicate:batched@outer", "cond.predicate:unbatched@inner",
                                                                     "in_dims>0@inner", "nested"}));
  EXPECT_EQ(culpritFeatures("hop:scan", f), (std::vector<std::string>{"in_dims>0@inner", "nested", "scan.xs:batched@inner"}));
  EXPECT_EQ(culpritFeatures("vmap:front-end", f),
            (std::vector<std::string>{"chunk_size", "in_dims>0", "nested", "out_dims<0"})); // which level is not
  EXPECT_EQ(culpritFeatures("op:where", f), (std::vector<std::string>{"dtype=float"}));
  // One level or three: the predicate batched at the innermost level is the same feature.
  EXPECT_EQ(culpritFeatures("hop:cond", {"cond.predicate:batched@vmap"}), culpritFeatures("hop:cond", {"cond.predicate:batched@inner"}));
}

namespace {

CaseResult mismatchIn(const std::string &system, std::vector<int64_t> expected, std::vector<int64_t> actual) {
  CaseResult r;
  r.verdict = Verdict::Mismatch;
  r.system = *SystemId::parse(system);
  r.expected = {at::zeros(expected)};
  r.actual = {at::ones(actual)};
  return r;
}

/// A batched error raised in torch's Python, by vmap's front end checking batch sizes.
CaseResult frontEndError(const std::string &system) {
  CaseResult r;
  r.verdict = Verdict::BatchedError;
  r.system = *SystemId::parse(system);
  r.errorType = "ValueError";
  r.errorMessage = "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes [1, 5]";
  r.traceback = "Traceback (most recent call last):\n  File \"/usr/lib/python3/dist-packages/torch/_functorch/vmap.py\", line 70, "
                "in _validate_and_get_batch_size\n    raise ValueError(\n";
  return r;
}

Signature localisedTo(const std::string &culprit, std::vector<std::string> features) {
  Signature s;
  s.key = "the ablation's key";
  s.features = std::move(features);
  s.culprits.tried = s.culprits.culprits = {culprit};
  return s;
}

} // namespace

TEST(CulpritSignature, IncidentalDifferencesLeaveTheKey) {
  // vmap-negative-out-dim's variants (issue 27 counted 17): shape or values, one level or two,
  // a scan kept or not, a dtype class essential or not, direct mode or eager: one key.
  Signature a = localisedTo("vmap:front-end", {"out_dims<0@vmap"});
  Signature b = localisedTo("vmap:front-end", {"nested", "out_dims<0@outer", "out_dims>0@inner"});
  Signature c = localisedTo("vmap:front-end", {"dtype=float", "out_dims<0@vmap"});
  const std::string ka = culpritKey(mismatchIn("eager|cpu", {2, 3}, {3, 2}), a);
  EXPECT_EQ(ka, "rules|cpu|fails|culprit:vmap:front-end|out_dims<0,");
  EXPECT_EQ(culpritKey(mismatchIn("eager|cpu", {2}, {2}), c), ka);
  EXPECT_EQ(culpritKey(mismatchIn("direct|cpu", {2}, {2}), a), ka);
  EXPECT_EQ(culpritKey(mismatchIn("compile-inductor|cpu", {2}, {2}), a), ka);
  // Which level is incidental to the front end (it runs once per level)...
  EXPECT_EQ(culpritKey(mismatchIn("eager|cpu", {2}, {2}), localisedTo("vmap:front-end", {"out_dims<0@outer"})), ka);
  // ...but a positive out_dim is its input, and so is a level running inside another.
  EXPECT_NE(culpritKey(mismatchIn("eager|cpu", {2}, {2}), b), ka);
  EXPECT_EQ(culpritKey(mismatchIn("eager|cpu", {2}, {2}), localisedTo("vmap:front-end", {"nested", "out_dims<0@outer"})),
            "rules|cpu|fails|culprit:vmap:front-end|nested,out_dims<0,");
  // Another device is another report.
  EXPECT_EQ(culpritKey(mismatchIn("eager|cuda", {2}, {2}), a), "rules|cuda|fails|culprit:vmap:front-end|out_dims<0,");
  // Not localised: the ablation's key stays.
  Signature none = a;
  none.culprits.culprits.clear();
  applyCulprit(none, mismatchIn("eager|cpu", {2}, {2}));
  EXPECT_EQ(none.key, "the ablation's key");
}

TEST(CulpritSignature, TwoSilentBugsInOneRuleStayTwoAndAnotherRuleIsAnotherKey) {
  const CaseResult r = mismatchIn("eager|cpu", {2}, {2});
  const std::string swapped = culpritKey(r, localisedTo("hop:cond", {"cond.predicate:batched@vmap"}));
  const std::string bdim = culpritKey(r, localisedTo("hop:cond", {"cond.operands:batched@vmap", "in_dims>0@vmap"}));
  const std::string scan = culpritKey(r, localisedTo("hop:scan", {"cond.predicate:batched@vmap"}));
  EXPECT_NE(swapped, bdim);
  EXPECT_NE(swapped, scan);
  // A filed bug that needs nesting (reports/mismatch-3dccbe8b: the predicate batched at the inner
  // level of two) is not a single-level bug with the predicate batched (a planted one).
  EXPECT_NE(culpritKey(r, localisedTo("hop:cond", {"cond.predicate:batched@inner", "nested"})), swapped);
  EXPECT_EQ(parseSignature(swapped).culprit, "hop:cond");
  EXPECT_EQ(parseSignature(swapped).features, (std::vector<std::string>{"cond.predicate:batched@inner"}));
}

TEST(CulpritSignature, AnErrorThroughARuleIsOneRootCauseWithItsSilentWrongResults) {
  // A rule that hands on a wrong value is met silently or by whatever raises on it, wherever:
  // vmap-negative-in-dim was filed under 17 messages, vmap-chunk-split-dim0 raised in three
  // functions of the front end and after it. One root cause, one key, with what of the
  // rule's input it needs.
  const CaseResult py = frontEndError("eager|cpu");
  Signature s = localisedTo("vmap:front-end", {"in_dims<0@vmap"});
  const std::string key = "rules|cpu|fails|culprit:vmap:front-end|in_dims<0,";
  EXPECT_EQ(culpritKey(py, s), key);
  CaseResult cpp = py; // raised by an op of the program that met the wrong batch dim
  cpp.traceback = "Traceback (most recent call last):\n  File \"x.py\", line 1, in f\n    torch.sum(x, -1)\n";
  cpp.errorType = "RuntimeError";
  cpp.errorMessage = "Dimension out of range (expected to be in range of [-1, 0], but got 1)";
  EXPECT_EQ(culpritKey(cpp, s), key);
  CaseResult bare = cpp; // without a Python traceback (the libtorch backend)
  bare.traceback.clear();
  EXPECT_EQ(culpritKey(bare, s), key);
  EXPECT_EQ(culpritKey(mismatchIn("direct|cpu", {2}, {2}), s), key);
  EXPECT_EQ(culpritKey(cpp, localisedTo("op:sum", {})), "rules|cpu|fails|culprit:op:sum|");
  EXPECT_EQ(culpritKey(cpp, localisedTo("hop:scan", {"scan.xs:batched@inner"})), "rules|cpu|fails|culprit:hop:scan|scan.xs:batched@inner,");
  // What of the culprit's input it needs tells two bugs of one rule apart.
  EXPECT_NE(culpritKey(cpp, localisedTo("vmap:front-end", {})), key);
  // The key parses back: the culprit, its features, the pseudo-verdict.
  const SignatureParts p = parseSignature(key);
  EXPECT_EQ(p.verdict, kFailsThrough);
  EXPECT_EQ(p.culprit, "vmap:front-end");
  EXPECT_EQ(p.features, (std::vector<std::string>{"in_dims<0"}));
  EXPECT_EQ(rootCauseOf(key), "fails|culprit:vmap:front-end|in_dims<0,");
}

TEST(CulpritSignature, TheTracingsErrorsKeepTheirModeExceptionAndFrame) {
  // dynamo raises many bugs of its own, most wrapped: they stay told apart by what they raise.
  const CaseResult py = frontEndError("eager|cpu");
  const std::string k = culpritKey(py, localisedTo("dynamo:eager", {}));
  EXPECT_EQ(k.rfind("eager|cpu|batched-error|culprit:dynamo:eager|", 0), 0u) << k;
  EXPECT_NE(k.find("ValueError"), std::string::npos) << k;
  CaseResult other = py;
  other.errorType = "RuntimeError";
  EXPECT_NE(culpritKey(other, localisedTo("dynamo:eager", {})), k);
  EXPECT_EQ(culpritKey(mismatchIn("eager|cpu", {2}, {2}), localisedTo("dynamo:eager", {"in_dims>0@vmap"})),
            "eager|cpu|mismatch|culprit:dynamo:eager||in_dims>0@inner,|silent");
}

TEST(FailureClass, EveryMismatchIsSilentAndAnErrorIsItsExceptionAndFrame) {
  // What shrinking keeps once the culprit is known: shape and values are one class...
  const CaseResult shape = mismatchIn("direct|cpu", {2, 3}, {3, 2}), values = mismatchIn("direct|cpu", {2}, {2});
  EXPECT_EQ(failureClass(shape), "direct|cpu|mismatch|silent");
  EXPECT_TRUE(sameFailureClass(shape, values));
  EXPECT_FALSE(failsTheSameWay(shape, values)); // the cheap key without a culprit tells them apart
  // ...another system is not.
  EXPECT_FALSE(sameFailureClass(shape, mismatchIn("eager|cpu", {2}, {2})));
  // An error: its exception and raising frame; another message at the same frame is the same class.
  const CaseResult e = frontEndError("direct|cpu");
  CaseResult again = e;
  again.errorMessage = "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes [7]";
  EXPECT_TRUE(sameFailureClass(e, again));
  CaseResult elsewhere = e;
  elsewhere.traceback = "Traceback (most recent call last):\n  File \"/usr/lib/python3/dist-packages/torch/_higher_order_ops/scan.py\", "
                        "line 9, in _validate_input\n    raise ValueError(\n";
  EXPECT_FALSE(sameFailureClass(e, elsewhere));
  EXPECT_FALSE(sameFailureClass(e, values));
  // Relative to a culprit: both raised outside cond's rule, so one class ("elsewhere") for it;
  // for the front end, the first is its own raise and the second elsewhere.
  EXPECT_TRUE(sameFailureClass(e, elsewhere, "hop:cond"));
  EXPECT_FALSE(sameFailureClass(e, elsewhere, "vmap:front-end"));
  EXPECT_EQ(failureClass(elsewhere, "hop:cond"), "direct|cpu|batched-error|error||elsewhere");
}

TEST(CulpritSignature, WhereTheRuleRunsAmongTheProgramsOwnVmapsIsPartOfItsInput) {
  // reports/batched-error-444c8d80: a cond inside a vmap inside a scan's body. The shrink drops
  // a vmap the failure does not need, so one that stayed is part of what cond's rule is given.
  const Case c = parseCase(R"(vmap size=2 in_dims=(0,0) out_dims=(0)
data_seed 1
func(%0: f32[3], %1: f32[3]) {
  %2: f32[3] = vmap(%0, %1) {in_dims=[0,0], out_dims=[0]} [
    (%3: f32[], %4: f32[]) {
      %5: bool[] = gt_scalar(%3) {value=0.0}
      %6: f32[] = cond(%5, %4) [
        (%7: f32[]) {
          yield %7
        }
        (%8: f32[]) {
          %9: f32[] = neg(%8)
          yield %9
        }
      ]
      yield %6
    }
  ]
  return %2
}
)");
  EXPECT_EQ(placementFeatures(c, "hop:cond"), (std::vector<std::string>{kInVmap}));
  EXPECT_TRUE(placementFeatures(c, "hop:scan").empty()); // no scan in it
  EXPECT_TRUE(placementFeatures(c, "vmap:front-end").empty()); // the vmap is not inside a region
  // Running under the program's own vmap is cond's input (which of its operands are batched is
  // the route there); for the front end, a vmap in a region is.
  EXPECT_EQ(culpritFeatures("hop:cond", {"vmap.operands:batched@vmap", kInVmap, "scan.xs:batched@vmap"}),
            (std::vector<std::string>{kInVmap}));
  EXPECT_EQ(culpritFeatures("vmap:front-end", {kVmapInRegion, kInVmap}), (std::vector<std::string>{kVmapInRegion}));
  const Case inRegion = parseCase(R"(vmap size=2 in_dims=(0) out_dims=(0)
data_seed 1
func(%0: f32[3]) {
  %1: f32[] = sum_all(%0)
  %2: bool[] = gt_scalar(%1) {value=0.0}
  %3: f32[3] = cond(%2, %0) [
    (%4: f32[3]) {
      %5: f32[3] = vmap(%4) {in_dims=[0], out_dims=[0]} [
        (%6: f32[]) {
          %7: f32[] = neg(%6)
          yield %7
        }
      ]
      yield %5
    }
    (%8: f32[3]) {
      yield %8
    }
  ]
  return %3
}
)");
  EXPECT_EQ(placementFeatures(inRegion, "vmap:front-end"), (std::vector<std::string>{kVmapInRegion}));
  EXPECT_TRUE(placementFeatures(inRegion, "hop:cond").empty()); // the cond holds the vmap, not the other way round
}

// A rule's construct under a torch.func.grad of the program runs under a gradient level (its
// backward batched too): kInGrad, for the rule and for a vmap under the grad; a grad is no
// control-flow region, so a vmap in it is not kVmapInRegion.
TEST(Signature, APlacementUnderAGradOfTheProgramIsInGrad) {
  const Case c = parseCase(R"(vmap size=2 in_dims=(0) out_dims=(0)
data_seed 1
func(%0: f32[3]) {
  %1: f32[3] = grad(%0) {argnums=[0]} [
    (%2: f32[3]) {
      %3: f32[] = sum_all(%2)
      %4: bool[] = gt_scalar(%3) {value=0.0}
      %5: f32[3] = cond(%4, %2) [
        (%6: f32[3]) {
          %7: f32[3] = sin(%6)
          yield %7
        }
        (%8: f32[3]) {
          %9: f32[3] = vmap(%8) {in_dims=[0], out_dims=[0]} [
            (%10: f32[]) {
              %11: f32[] = neg(%10)
              yield %11
            }
          ]
          yield %9
        }
      ]
      %12: f32[] = sum_all(%5)
      yield %12
    }
  ]
  return %1
}
)");
  EXPECT_EQ(placementFeatures(c, "hop:cond"), (std::vector<std::string>{kInGrad}));
  EXPECT_EQ(placementFeatures(c, "vmap:front-end"), (std::vector<std::string>{kVmapInRegion, kInGrad})); // the vmap sits in cond's branch
  EXPECT_TRUE(placementFeatures(c, "hop:scan").empty());
  EXPECT_TRUE(placementFeatures(c, "op:sin").empty());
  EXPECT_EQ(culpritFeatures("hop:cond", {kInGrad, "grad.operands:batched@vmap"}), (std::vector<std::string>{kInGrad}));
  EXPECT_EQ(culpritFeatures("vmap:front-end", {kInGrad}), (std::vector<std::string>{kInGrad}));
  EXPECT_TRUE(culpritFeatures("op:sin", {kInGrad}).empty());
}
