#include "harness/report/signature.h"

#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "harness/report/ablation.h"
#include "harness/report/error_signature.h"
#include "harness/run/runner.h"
#include "ir/constructs.h"
#include "oracles/compare.h"

namespace vf {

namespace {

void constructs(const Block &b, std::map<std::string, int> &seen) {
  for (const auto &s : b.stmts) {
    if (!s.regions.empty()) seen[s.op + (s.results.size() > 1 ? "-multi" : "")]++;
    for (const auto &r : s.regions) constructs(r, seen);
  }
}

/// Mode and device come first: the same bug in eager and under inductor is two reports. A
/// batched error of the in-process libtorch backend is raised by ATen's batching rules, which
/// torch.vmap runs too: the same bug, so torch's name. Its mismatches may be its own
/// lowering's, another bug: they keep the libtorch name. A gradient mode's forward bug (raised in
/// the forward pass, or forward values that already differ) keeps the forward mode's name
/// (findingSystem), so a nightly with gradient modes does not file a known forward bug again.
std::string systemOf(const CaseResult &r) {
  if (r.system.isLibtorch() && r.verdict == Verdict::BatchedError) return SystemId{}.str();
  return findingSystem(r).str();
}

} // namespace

std::string constructList(const Case &c) {
  std::map<std::string, int> seen;
  constructs(c.program.body, seen);
  std::string out;
  for (const auto &[k, v] : seen) out += k + ",";
  return out;
}

std::string differenceKind(const CaseResult &r, bool withOutputs) {
  if (r.expected.size() != r.actual.size()) return "count";
  std::set<std::string> kinds;
  size_t differing = 0;
  for (size_t i = 0; i < r.expected.size(); ++i) {
    const at::Tensor &e = r.expected[i], &a = r.actual[i];
    std::string k;
    if (e.sizes() != a.sizes()) k = "shape";
    else if (e.scalar_type() != a.scalar_type()) k = "dtype";
    else if (!compareOutputs({e}, {a}, i < r.tolerances.size() ? std::vector<Tolerance>{r.tolerances[i]} : std::vector<Tolerance>{}).equal)
      k = "values";
    if (k.empty()) continue;
    kinds.insert(k);
    ++differing;
  }
  std::string out;
  for (const auto &k : kinds) out += (out.empty() ? "" : "+") + k;
  if (out.empty()) out = "values"; // only the second call (compile modes) differs, say
  if (withOutputs) out += differing == r.expected.size() ? ":all" : ":some";
  return out;
}

std::string failureKey(const CaseResult &r) {
  std::string head = std::string(verdictName(r.verdict)) + "|";
  if (r.verdict == Verdict::Mismatch) return head + differenceKind(r);
  return head + errorSignature(r.errorType, r.errorMessage, r.traceback);
}

std::string shrinkKey(const CaseResult &r) { return systemOf(r) + "|" + failureKey(r); }

bool failsTheSameWay(const CaseResult &found, const CaseResult &now) {
  return now.verdict == found.verdict && shrinkKey(now) == shrinkKey(found);
}

std::string signatureOf(const Case &c, const CaseResult &r) {
  if (r.verdict != Verdict::Mismatch) return shrinkKey(r);
  return systemOf(r) + "|mismatch|" + constructList(c) + "|" + differenceKind(r, true);
}

namespace {

/// `s`'s essential features, found by ablation: a feature is essential when, changed, the case
/// no longer passes `stillFails`.
void ablateInto(Signature &s, const Case &c, const StillFailsProbe &stillFails, int maxProbes) {
  Ablation a = ablate(c, stillFails, maxProbes);
  s.features = a.features;
  s.essential = essentialSentence(a);
  s.probes += a.probes;
}

/// Still fails the way `r` did (`failsTheSameWay`: the same message and kind of difference).
StillFailsProbe sameWay(const CaseResult &r, Runner &runner) {
  return [&r, &runner](const Case &cand) { return failsTheSameWay(r, runner.run(cand)); };
}

} // namespace

Signature findingSignature(const Case &c, const CaseResult &r, Runner &runner, int maxProbes) {
  Signature s;
  if (r.verdict != Verdict::Mismatch) {
    s.key = signatureOf(c, r);
    s.frame = raisingFrame(r.traceback, peelError(r.errorType, r.errorMessage).peeled);
    return s;
  }
  ablateInto(s, c, sameWay(r, runner), maxProbes);
  std::string f;
  for (const auto &x : s.features) f += x + ",";
  s.key = systemOf(r) + "|mismatch|" + constructList(c) + "|" + f + "|" + differenceKind(r, true);
  return s;
}

namespace {

/// "cond.predicate:batched@level 1 of 3" -> "cond.predicate:batched@outer"; the innermost level
/// ("vmap", "inner", "level N of N") -> "inner"; `dropLevel`: the level and its '@' removed.
std::string relevelled(const std::string &feature, bool dropLevel) {
  const auto at = feature.find('@');
  if (at == std::string::npos) return feature;
  if (dropLevel) return feature.substr(0, at);
  const std::string level = feature.substr(at + 1);
  if (level == "program") return feature; // a torch.vmap of the program: no level of the batch spec
  static const std::regex nOfN(R"(level (\d+) of (\d+))");
  std::smatch m;
  bool inner = level == "vmap" || level == "inner";
  if (std::regex_match(level, m, nOfN)) inner = m[1] == m[2];
  return feature.substr(0, at + 1) + (inner ? "inner" : "outer");
}

bool startsWith(const std::string &s, const std::string &prefix) { return s.rfind(prefix, 0) == 0; }

} // namespace

std::vector<std::string> culpritFeatures(const std::string &culprit, const std::vector<std::string> &features) {
  std::set<std::string> out;
  const std::string what = culprit.substr(culprit.find(':') + 1);
  for (const auto &f : features) {
    // A rule's input: its construct's roles, where their batch dims sit (in_dims), and whether
    // they carry an enclosing level too (nested: the operands are batched twice).
    // And whether it runs under a vmap of the program's own (kInVmap, issue 28); which of that
    // vmap's operands are batched is how the program got there, as a transpose is for in_dims.
    // Under a torch.func.grad of the program (kInGrad), the rule or the front end runs with a
    // gradient level on the interpreter stack: the backward's own batching.
    if (startsWith(culprit, "hop:") && (startsWith(f, what + ".") || startsWith(f, "in_dims") || f == "nested" || f == kInVmap || f == kInGrad))
      out.insert(relevelled(f, false));
    if (culprit == "vmap:front-end" && (startsWith(f, "in_dims") || startsWith(f, "out_dims") ||
                                        startsWith(f, "chunk_size") || f == "nested" || f == kVmapInRegion || f == kInGrad))
      out.insert(relevelled(f, true));
    if (startsWith(culprit, "op:") && startsWith(f, "dtype=")) out.insert(f);
    if (startsWith(culprit, "dynamo:")) out.insert(relevelled(f, false));
  }
  return {out.begin(), out.end()};
}

namespace {

/// Whether an error raised at `site` (errorSite) was raised by `culprit`'s own code: a rule's
/// module (`_higher_order_ops/cond.py`) or vmap's front end (`_functorch/vmap.py`, `apis.py`). An op's
/// batching rule raises in C++, where the program called it: indistinguishable from an op that
/// met the rule's wrong output later, so never "its own".
bool raisedByCulprit(const std::string &culprit, const std::string &site) {
  const std::string what = culprit.substr(culprit.find(':') + 1);
  if (startsWith(culprit, "hop:")) return startsWith(site, "_higher_order_ops/" + what + ".py:");
  if (culprit == "vmap:front-end") return startsWith(site, "_functorch/vmap.py:") || startsWith(site, "_functorch/apis.py:");
  return false;
}

/// The torch function of an error's site, however it raised: "c++ from F" and F are one place.
std::string siteFunction(const std::string &site) { return startsWith(site, "c++ from ") ? site.substr(9) : site; }

/// An error's failure class relative to `culprit` (failureClass): "error||F" where the culprit's
/// own function F raised it (a Python raise or an out-of-range size in C++ from one check of
/// the front end is one place; the exception's type says little more), "error||elsewhere" where
/// the culprit handed a wrong value on and something else raised (which op or helper it reached
/// first, and what that raised, is incidental: one planted fault in the front end was met as 23
/// messages); without a culprit "TYPE||SITE"; "TYPE|MESSAGE|" without a Python traceback (the
/// libtorch backend).
std::string errorClass(const CaseResult &r, const std::string &culprit) {
  const InnerError e = peelError(r.errorType, r.errorMessage);
  const std::string site = errorSite(r.traceback, e.peeled);
  if (site.empty()) return e.type + "|" + normaliseMessage(e.message) + "|";
  if (culprit.empty()) return e.type + "||" + site;
  // The public API's tracing raises its own errors in many places of dynamo, most of them
  // wrapped and their frames hidden: its classes stay those of the error signature (the
  // exception, its message where no frame raised it, the frame).
  if (startsWith(culprit, "dynamo:")) {
    const std::string frame = raisingFrame(r.traceback, e.peeled);
    return e.type + "|" + (frame.empty() ? normaliseMessage(e.message) : "") + "|" + frame;
  }
  const std::string f = siteFunction(site);
  return raisedByCulprit(culprit, f) ? "error||" + f : "error||elsewhere";
}

} // namespace

std::string failureClass(const CaseResult &r, const std::string &culprit) {
  const std::string head = systemOf(r) + "|" + std::string(verdictName(r.verdict)) + "|";
  return r.verdict == Verdict::Mismatch ? head + "silent" : head + errorClass(r, culprit);
}

bool sameFailureClass(const CaseResult &found, const CaseResult &now, const std::string &culprit) {
  return now.verdict == found.verdict && failureClass(now, culprit) == failureClass(found, culprit);
}

std::vector<std::string> placementFeatures(const Case &c, const std::string &culprit) {
  const std::string what = culprit.substr(culprit.find(':') + 1);
  const bool hop = startsWith(culprit, "hop:");
  bool inVmap = false, vmapInRegion = false, inGrad = false;
  // underVmap: inside a vmap of the program; underRule: inside another construct's region;
  // underGrad: inside a grad or jvp of the program.
  std::function<void(const Block &, bool, bool, bool)> walk = [&](const Block &b, bool underVmap, bool underRule, bool underGrad) {
    for (const auto &st : b.stmts) {
      if (st.regions.empty()) continue;
      const ConstructKind kind = constructOf(st).kind;
      const bool isVmap = kind == ConstructKind::Vmap, isGrad = kind == ConstructKind::Grad || kind == ConstructKind::Jvp;
      inVmap = inVmap || (hop && st.op == what && underVmap);
      vmapInRegion = vmapInRegion || (isVmap && underRule);
      inGrad = inGrad || (underGrad && ((hop && st.op == what) || (!hop && isVmap)));
      for (const auto &r : st.regions) walk(r, underVmap || isVmap, underRule || !constructOf(st).transform, underGrad || isGrad);
    }
  };
  walk(c.program.body, false, false, false);
  std::vector<std::string> out;
  if (inVmap) out.push_back(kInVmap);
  if (culprit == "vmap:front-end" && vmapInRegion) out.push_back(kVmapInRegion);
  if ((hop || culprit == "vmap:front-end") && inGrad) out.push_back(kInGrad);
  return out;
}

bool isBatchingComponent(const std::string &culprit) {
  return startsWith(culprit, "hop:") || startsWith(culprit, "op:") || culprit == "vmap:front-end";
}

namespace {

/// Whether a finding localised to `culprit` is signed by the culprit alone (kFailsThrough).
bool signedByRule(const CaseResult &r, const std::string &culprit) {
  return isBatchingComponent(culprit) && (r.verdict == Verdict::Mismatch || r.verdict == Verdict::BatchedError);
}

/// "rules|DEVICE", "rules+grad|DEVICE": a batching rule's findings are one root cause in every
/// mode; a gradient mode's own failure (its derivatives) stays apart from the forward one.
std::string rulesSystem(const CaseResult &r) {
  const SystemId id = findingSystem(r);
  const std::string mode = id.modeName();
  const auto plus = mode.find('+');
  return "rules" + (plus == std::string::npos ? std::string() : mode.substr(plus)) + "|" + id.device;
}

std::string featureList(const std::string &culprit, const std::vector<std::string> &features) {
  std::string f;
  for (const auto &x : culpritFeatures(culprit, features)) f += x + ",";
  return f;
}

} // namespace

std::string culpritKey(const CaseResult &r, const Signature &s) {
  if (!s.culprits.localised()) return "";
  const std::string &c = s.culprits.culprit();
  const std::string f = featureList(c, s.features);
  if (signedByRule(r, c)) return rulesSystem(r) + "|" + kFailsThrough + "|culprit:" + c + "|" + f;
  const std::string head = systemOf(r) + "|" + std::string(verdictName(r.verdict)) + "|culprit:" + c + "|";
  if (r.verdict == Verdict::Mismatch) return head + "|" + f + "|silent";
  return head + f + "|" + errorClass(r, c);
}

void applyCulprit(Signature &s, const CaseResult &r) {
  if (std::string k = culpritKey(r, s); !k.empty()) s.key = k;
}

Signature signFinding(const Case &c, const CaseResult &r, Runner &runner, const Culprits &culprits, int maxProbes) {
  if (culprits.localised() && signedByRule(r, culprits.culprit())) {
    Signature s;
    s.culprits = culprits;
    if (r.verdict != Verdict::Mismatch) s.frame = raisingFrame(r.traceback, peelError(r.errorType, r.errorMessage).peeled);
    // A feature is essential when, changed, the case no longer fails through the culprit in
    // its failure class (silent; an error raised by the culprit's own function F, or by
    // whatever met its wrong value): a change that only moves where the wrong value is met
    // (which op raises, shape or values) keeps the failure. The stricter "fails the same way"
    // made a feature essential wherever its change moved the error, and one fault got a trigger
    // set per case. The class stays: a change into another class of the same rule is most
    // often another bug of it (cond's own error where nothing is batched, say).
    const std::string culprit = culprits.culprit();
    const std::string found = failureClass(r, culprit);
    ablateInto(s, c, [&](const Case &cand) { return failsWithCulprit(cand, found, runner, culprit); }, maxProbes);
    for (const auto &f : placementFeatures(c, culprit)) {
      s.features.push_back(f);
      s.essential += f == kInVmap   ? "; the construct runs inside a torch.vmap of the program that the shrink could not drop"
                     : f == kInGrad ? "; it runs under a torch.func.grad or jvp of the program that the shrink could not drop"
                                    : "; a torch.vmap of the program runs inside a control-flow region, and the shrink could not drop it";
    }
    applyCulprit(s, r);
    return s;
  }
  Signature s = findingSignature(c, r, runner, maxProbes);
  s.culprits = culprits;
  // Localised to the tracing: an error's features as a mismatch's (the same exception, message
  // and frame); its class stays fine-grained.
  if (culprits.localised() && r.verdict != Verdict::Mismatch) ablateInto(s, c, sameWay(r, runner), maxProbes);
  applyCulprit(s, r);
  return s;
}

} // namespace vf
