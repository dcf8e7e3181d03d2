#include "harness/campaign/caps.h"

#include <map>

#include <algorithm>
#include <array>
#include <iomanip>

#include "harness/run/classify.h"
#include "ir/constructs.h"
#include "ir/text.h"

namespace vf {

namespace {

// Every probe batches one input (%0) and leaves %1 unbatched; the decision (predicate, index,
// trip count) comes from one or the other.
const char *kCondBatched = R"(vmap size=4 in_dims=(0,None) out_dims=(0)
data_seed 7
func(%0: f32[3], %1: f32[3]) {
  %2: f32[] = sum_all(%0)
  %3: bool[] = gt_scalar(%2) {value=0.0}
  %4: f32[3] = cond(%3, %0) [
    (%5: f32[3]) {
      %6: f32[3] = mul(%5, %1)
      yield %6
    }
    (%7: f32[3]) {
      %8: f32[3] = neg(%7)
      yield %8
    }
  ]
  return %4
}
)";

const char *kCondUnbatched = R"(vmap size=4 in_dims=(0,None) out_dims=(0)
data_seed 7
func(%0: f32[3], %1: f32[3]) {
  %2: f32[] = sum_all(%1)
  %3: bool[] = gt_scalar(%2) {value=0.0}
  %4: f32[3] = cond(%3, %0) [
    (%5: f32[3]) {
      %6: f32[3] = sin(%5)
      yield %6
    }
    (%7: f32[3]) {
      %8: f32[3] = neg(%7)
      yield %8
    }
  ]
  return %4
}
)";

const char *kSwitch = R"(vmap size=4 in_dims=(0,None) out_dims=(0)
data_seed 11
func(%0: f32[3], %1: f32[3]) {
  %2: f32[] = sum_all(%SRC)
  %3: i64[] = branch_index(%2)
  %4: f32[3] = switch(%3, %0) [
    (%5: f32[3]) {
      %6: f32[3] = neg(%5)
      yield %6
    }
    (%7: f32[3]) {
      %8: f32[3] = sin(%7)
      yield %8
    }
  ]
  return %4
}
)";

const char *kWhile = R"(vmap size=4 in_dims=(0,None) out_dims=(0,0)
data_seed 12
func(%0: f32[3], %1: f32[3]) {
  %2: f32[] = sum_all(%SRC)
  %3: i64[] = trip_limit(%2)
  %4: i64[] = branch_index(%2)
  %5: i64[], %6: f32[3] = while_loop(%4, %0) [
    (%7: i64[], %8: f32[3]) {
      %9: bool[] = lt(%7, %3)
      yield %9
    }
    (%10: i64[], %11: f32[3]) {
      %12: i64[] = increment(%10)
      %13: f32[3] = sin(%11)
      yield %12, %13
    }
  ]
  return %5, %6
}
)";

// The carry (%8) is a 0-d sum of one input; the xs are the other input.
const char *kScan = R"(vmap size=4 in_dims=(0,None) out_dims=(0,0)
data_seed 13
func(%0: f32[3], %1: f32[3]) {
  %8: f32[] = sum_all(%CARRY_SRC)
  %2: f32[], %3: f32[3] = scan(%8, %XS) {ncarry=1, reverse=false} [
    (%4: f32[], %5: f32[]) {
      %6: f32[] = add(%4, %5)
      %7: f32[] = sin(%6)
      yield %6, %7
    }
  ]
  return %2, %3
}
)";

std::string fill(std::string text, const std::vector<std::pair<std::string, std::string>> &subs) {
  for (const auto &[from, to] : subs)
    for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
  return text;
}

// torch.vmap inside the program, its operand %SRC: batched at the outer level (a nested level
// opened in the program) or not (the program's own level over an unbatched value, capturing %0).
const char *kVmap = R"(vmap size=4 in_dims=(0,None) out_dims=(0)
data_seed 13
func(%0: f32[3], %1: f32[3]) {
  %2: f32[3] = vmap(%SRC) {in_dims=[0], out_dims=[-1]} [
    (%3: f32[]) {
      %4: f32[3] = mul(%0, %3)
      %5: f32[] = sum_all(%4)
      yield %5
    }
  ]
  return %2
}
)";

// torch.func.grad inside the program, of an operand %SRC batched (per-sample gradients) or not
// (a gradient that is batched through the capture %0 alone).
const char *kGrad = R"(vmap size=4 in_dims=(0,None) out_dims=(0)
data_seed 13
func(%0: f32[3], %1: f32[3]) {
  %2: f32[3] = grad(%SRC) {argnums=[0]} [
    (%3: f32[3]) {
      %4: f32[3] = mul(%0, %3)
      %5: f32[3] = sin(%4)
      %6: f32[] = sum_all(%5)
      yield %6
    }
  ]
  return %2
}
)";

// torch.func.jvp inside the program, of a primal %SRC batched or not, its tangent the other input.
const char *kJvp = R"(vmap size=4 in_dims=(0,None) out_dims=(0,0)
data_seed 13
func(%0: f32[3], %1: f32[3]) {
  %2: f32[3], %3: f32[3] = jvp(%SRC, %1) [
    (%4: f32[3]) {
      %5: f32[3] = mul(%0, %4)
      %6: f32[3] = sin(%5)
      yield %6
    }
  ]
  return %2, %3
}
)";

// A cond under torch.func.grad: whether this torch can differentiate a control-flow op under the
// transform at all (torch 2.14.1 rejects it unbatched in every mode: "KeyError:
// <TransformType.Grad: 2>" called directly, "Expected FakeTensor" through torch.cond).
const char *kGradCond = R"(vmap size=4 in_dims=(0,None) out_dims=(0)
data_seed 13
func(%0: f32[3], %1: f32[3]) {
  %2: f32[3] = grad(%0) {argnums=[0]} [
    (%3: f32[3]) {
      %4: f32[] = sum_all(%3)
      %5: bool[] = gt_scalar(%4) {value=0.0}
      %6: f32[3] = cond(%5, %3) [
        (%7: f32[3]) {
          %8: f32[3] = sin(%7)
          yield %8
        }
        (%9: f32[3]) {
          %10: f32[3] = cos(%9)
          yield %10
        }
      ]
      %11: f32[] = sum_all(%6)
      yield %11
    }
  ]
  return %2
}
)";

// A cond under torch.func.jvp: the same question for forward mode ("KeyError:
// <TransformType.Jvp: 3>" called directly).
const char *kJvpCond = R"(vmap size=4 in_dims=(0,None) out_dims=(0)
data_seed 13
func(%0: f32[3], %1: f32[3]) {
  %2: f32[3], %3: f32[3] = jvp(%0, %1) [
    (%4: f32[3]) {
      %5: f32[] = sum_all(%4)
      %6: bool[] = gt_scalar(%5) {value=0.0}
      %7: f32[3] = cond(%6, %4) [
        (%8: f32[3]) {
          %9: f32[3] = sin(%8)
          yield %9
        }
        (%10: f32[3]) {
          %11: f32[3] = cos(%10)
          yield %11
        }
      ]
      yield %7
    }
  ]
  return %3
}
)";

/// A derivative transform whose function may hold control flow where torch can run it: the
/// probe's name, the transform, and its generator knob.
struct ControlFlowUnder {
  const char *probe;
  ConstructKind kind;
  int GenPolicy::*knob;
  const char *knobName;
};
const ControlFlowUnder kControlFlowUnder[] = {
    {"grad-of-control-flow", ConstructKind::Grad, &GenPolicy::gradControlFlow, "grad_control_flow"},
    {"jvp-of-control-flow", ConstructKind::Jvp, &GenPolicy::jvpControlFlow, "jvp_control_flow"},
};

/// Where every runner rejects a transform's control-flow probe (`rejectedOn`: probe -> runners),
/// that transform's functions hold no construct: every such case would be `invalid`.
void learnControlFlowUnder(const std::map<std::string, size_t> &rejectedOn, const RunnerSet &runners, CampaignOptions &opt,
                           std::ostream &log) {
  for (const auto &u : kControlFlowUnder) {
    const auto it = rejectedOn.find(u.probe);
    if (runners.empty() || it == rejectedOn.end() || it->second < runners.size() || opt.policy.weight(u.kind) == 0 ||
        !(opt.policy.*u.knob))
      continue;
    opt.policy.*u.knob = 0;
    opt.genFlags += std::string(" --gen ") + u.knobName + "=0";
    opt.notGenerated.push_back(u.probe);
    log << "vmapfuzz: this torch cannot run a control-flow op under torch.func." << constructDef(u.kind).name
        << " in any mode (it rejects the probe unbatched): its functions hold none (--gen keep_unsupported=1 keeps them)\n";
  }
}

/// Whether `construct` names one of kControlFlowUnder's probes.
bool isControlFlowUnder(const std::string &construct) {
  for (const auto &u : kControlFlowUnder)
    if (construct == u.probe) return true;
  return false;
}

} // namespace

std::vector<Probe> capabilityProbes() {
  std::vector<std::pair<std::array<std::string, 2>, std::string>> texts = {
      {{"cond", "batched predicate"}, kCondBatched},
      {{"cond", "unbatched predicate"}, kCondUnbatched},
      {{"switch", "batched index"}, fill(kSwitch, {{"%SRC", "%0"}})},
      {{"switch", "unbatched index"}, fill(kSwitch, {{"%SRC", "%1"}})},
      {{"while_loop", "batched trip count"}, fill(kWhile, {{"%SRC", "%0"}})},
      {{"while_loop", "unbatched trip count"}, fill(kWhile, {{"%SRC", "%1"}})},
      {{"scan", "batched xs"}, fill(kScan, {{"%CARRY_SRC", "%1"}, {"%XS", "%0"}})},
      {{"scan", "batched carry only"}, fill(kScan, {{"%CARRY_SRC", "%0"}, {"%XS", "%1"}})},
      {{"vmap", "batched operand"}, fill(kVmap, {{"%SRC", "%0"}})},
      {{"vmap", "unbatched operand"}, fill(kVmap, {{"%SRC", "%1"}})},
      {{"grad", "batched operand"}, fill(kGrad, {{"%SRC", "%0"}})},
      {{"grad", "unbatched operand"}, fill(kGrad, {{"%SRC", "%1"}})},
      {{"jvp", "batched primal"}, fill(kJvp, {{"%SRC", "%0"}})},
      {{"jvp", "unbatched primal"}, fill(kJvp, {{"%SRC", "%1"}})},
      {{kControlFlowUnder[0].probe, "a cond under grad"}, kGradCond},
      {{kControlFlowUnder[1].probe, "a cond under jvp"}, kJvpCond},
  };
  std::vector<Probe> probes;
  for (const auto &[name, text] : texts) probes.push_back({name[0], name[1], parseCase(text)});
  return probes;
}

std::string capabilityOf(Verdict v) {
  switch (v) {
  case Verdict::Pass: return "ok";
  case Verdict::Unsupported: return "no rule";
  case Verdict::Mismatch: return "WRONG RESULT";
  case Verdict::Invalid: return "rejected unbatched";
  default: return "FAILS: " + std::string(verdictName(v));
  }
}

std::vector<std::string> learnUnsupported(const RunnerSet &runners, CampaignOptions &opt, std::ostream &log) {
  if (opt.policy.keepUnsupported) return {}; // generate and run every construct everywhere
  auto probes = capabilityProbes();
  std::map<std::string, int> unsupportedOn; // construct -> runners with no rule for it
  std::map<std::string, size_t> rejectedOn;  // control flow under a transform -> runners that reject it
  for (Runner *r : runners) {
    std::map<std::string, bool> none; // construct -> every probe unsupported so far
    for (const auto &p : probes) {
      const Verdict v = r->run(p.c).verdict;
      if (isControlFlowUnder(p.construct)) {
        rejectedOn[p.construct] += v == Verdict::Unsupported || v == Verdict::Invalid;
        continue;
      }
      bool un = v == Verdict::Unsupported;
      auto it = none.find(p.construct);
      none[p.construct] = (it == none.end() ? true : it->second) && un;
    }
    for (const auto &[construct, un] : none)
      if (un) {
        opt.unsupportedIn[r->backend().id()].insert(construct);
        unsupportedOn[construct]++;
      }
  }
  std::vector<std::string> dropped;
  for (const auto &[construct, n] : unsupportedOn) {
    if (n != static_cast<int>(runners.size())) continue;
    const ConstructDef *def = findConstruct(construct);
    if (!def) continue;
    opt.policy.weight(def->kind) = 0;
    opt.genFlags += " --gen " + weightKnob(*def) + "=0";
    dropped.push_back(construct);
    opt.notGenerated.push_back(construct);
  }
  learnControlFlowUnder(rejectedOn, runners, opt, log);
  if (!dropped.empty()) {
    log << "vmapfuzz: this torch has no batching rule for";
    for (const auto &c : dropped) log << " " << c;
    log << " in any mode: not generated (--gen keep_unsupported=1 keeps them)\n";
  }
  return dropped;
}

int printCapabilities(const RunnerSet &runners, std::ostream &os) {
  auto probes = capabilityProbes();
  std::vector<std::string> names;
  for (Runner *r : runners) names.push_back(r->backend().id().str());
  std::vector<size_t> width;
  for (const auto &n : names) width.push_back(std::max<size_t>(n.size() + 2, 27));
  os << std::left << std::setw(22) << "construct" << std::setw(24) << "batched how";
  for (size_t k = 0; k < names.size(); ++k) os << std::setw(width[k]) << names[k];
  os << "\n";
  int notOk = 0;
  std::vector<std::string> notes; // what torch said, once per distinct message
  for (const auto &p : probes) {
    os << std::setw(22) << p.construct << std::setw(24) << p.what << std::flush;
    Prepared prep = runners.front()->prepare(p.c);
    for (size_t k = 0; k < runners.size(); ++k) {
      CaseResult r = runners[k]->run(p.c, prep);
      std::string cell = r.verdict == Verdict::Unsupported && r.summary.rfind(kTorchLacks, 0) == 0 ? "not in this torch"
                                                                                                : capabilityOf(r.verdict);
      if (r.verdict != Verdict::Pass) {
        ++notOk;
        std::string note = p.construct + ", " + p.what + ": " + r.summary.substr(0, 200);
        auto it = std::find(notes.begin(), notes.end(), note);
        if (it == notes.end()) it = notes.insert(notes.end(), note);
        cell += " [" + std::to_string(it - notes.begin() + 1) + "]";
      }
      os << std::setw(width[k]) << cell << std::flush;
    }
    os << "\n";
  }
  os << std::right;
  if (!notes.empty()) os << "\n";
  for (size_t i = 0; i < notes.size(); ++i) os << "[" << i + 1 << "] " << notes[i] << "\n";
  return notOk;
}

} // namespace vf
