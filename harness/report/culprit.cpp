#include "harness/report/culprit.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "harness/report/modes.h"
#include "harness/report/signature.h"

namespace vf {

namespace {

/// Where a component sorts: its family first (hop, vmap, op, anything else).
int family(const std::string &name) {
  if (name.rfind("hop:", 0) == 0) return 0;
  if (name.rfind("vmap:", 0) == 0) return 1;
  if (name.rfind("op:", 0) == 0) return 2;
  return 3; // dynamo:MODE is decided before any swap
}

std::string quoted(const std::string &name) { return describeComponent(name) + " (`" + name + "`)"; }

} // namespace

std::string tracingComponent(const std::string &mode) { return "dynamo:" + mode; }

std::string describeComponent(const std::string &name) {
  const auto colon = name.find(':');
  const std::string what = colon == std::string::npos ? name : name.substr(colon + 1);
  if (name.rfind("hop:", 0) == 0) return "the vmap rule of " + what;
  if (name == "vmap:front-end") return "vmap's front end (in_dims, out_dims, batch sizes, chunks)";
  if (name.rfind("op:", 0) == 0) return "the batching of torch's `" + what + "`";
  if (name.rfind("dynamo:", 0) == 0)
    return what == "eager" ? "the public API's tracing (dynamo)" : "the tracing and compiling of mode " + what + " (dynamo and its backend)";
  return name;
}

std::vector<std::string> tryOrder(std::vector<std::string> components) {
  std::stable_sort(components.begin(), components.end(),
                   [](const std::string &a, const std::string &b) { return family(a) < family(b); });
  components.erase(std::unique(components.begin(), components.end()), components.end());
  return components;
}

namespace {

/// The constructs anywhere in `b`, as "hop:NAME".
void constructsIn(const Block &b, std::set<std::string> &out) {
  for (const auto &s : b.stmts)
    if (!s.regions.empty()) {
      out.insert("hop:" + s.op);
      for (const auto &r : s.regions) constructsIn(r, out);
    }
}

void nestedIn(const Block &b, std::set<std::pair<std::string, std::string>> &out) {
  for (const auto &s : b.stmts) {
    if (s.regions.empty()) continue;
    std::set<std::string> inner;
    for (const auto &r : s.regions) constructsIn(r, inner);
    for (const auto &i : inner)
      if (i != "hop:" + s.op) out.insert({i, "hop:" + s.op});
    for (const auto &r : s.regions) nestedIn(r, out);
  }
}

/// Drops from `culprits` those that another culprit is narrower than: a rule with an op's swap
/// passing too (the rule's loop runs the op per example), a rule with a rule inside it passing.
void narrow(Culprits &out, const std::set<std::pair<std::string, std::string>> &inside) {
  auto has = [&](const std::string &n) { return std::find(out.culprits.begin(), out.culprits.end(), n) != out.culprits.end(); };
  const bool anOp = std::any_of(out.culprits.begin(), out.culprits.end(), [](const std::string &n) { return family(n) == 2; });
  std::vector<std::string> keep;
  for (const auto &c : out.culprits) {
    bool wider = family(c) == 0 && anOp;
    for (const auto &[in, outer] : inside) wider |= outer == c && has(in);
    (wider ? out.subsumed : keep).push_back(c);
  }
  out.culprits = keep;
}

} // namespace

std::set<std::pair<std::string, std::string>> nestedRules(const Case &c) {
  std::set<std::pair<std::string, std::string>> out;
  nestedIn(c.program.body, out);
  return out;
}

Culprits localise(const std::vector<std::string> &components,
                  const std::function<SwapResult(const std::vector<std::string> &swapped)> &probe, int maxRuns,
                  const std::set<std::pair<std::string, std::string>> &inside) {
  Culprits out;
  const std::vector<std::string> order = tryOrder(components);
  for (const auto &name : order) {
    if (out.runs >= maxRuns) {
      out.capped = true;
      return out;
    }
    ++out.runs;
    out.tried.push_back(name);
    switch (probe({name})) {
    case SwapResult::Passes: out.culprits.push_back(name); break;
    case SwapResult::FailsOtherwise: out.otherwise.push_back(name); break;
    case SwapResult::FailsAlike: break;
    }
  }
  narrow(out, inside);
  if (out.culprits.empty() && order.size() > 1) {
    if (out.runs >= maxRuns) {
      out.capped = true;
      return out;
    }
    ++out.runs;
    out.together = probe(order) == SwapResult::Passes;
  }
  return out;
}

std::string Culprits::sentence() const {
  std::ostringstream s;
  const size_t others = tried.size() - culprits.size();
  if (culprits.size() == 1) {
    if (culprits[0].rfind("dynamo:", 0) == 0) {
      s << "the same program passes with the higher-order ops called directly under vmap: the culprit is "
        << describeComponent(culprits[0]) << ", not their batching rules";
      return s.str();
    }
    s << "replacing " << quoted(culprits[0]) << " with a per-example loop makes this case pass";
    const size_t rest = others - subsumed.size();
    if (rest > 0) s << "; swapping any of the other " << rest << (rest == 1 ? " component" : " components") << " does not";
    for (const auto &h : subsumed) s << " (" << describeComponent(h) << " only as its loop runs it per example too)";
    s << ": the rest of torch's batching is not involved";
  } else if (culprits.size() > 1) {
    s << "replacing any one of ";
    for (size_t i = 0; i < culprits.size(); ++i) s << (i ? ", " : "") << quoted(culprits[i]);
    s << " with a per-example loop makes this case pass: not localised to one component";
  } else if (tried.empty()) {
    s << "no component of this system could be swapped";
  } else {
    s << "no single component's per-example loop makes this case pass (" << tried.size() << " tried";
    if (!otherwise.empty()) s << ", " << otherwise.size() << " of them failing another way";
    s << ")";
    if (together) s << "; all of them swapped at once do: it needs several";
  }
  if (capped) s << " (stopped at the run budget)";
  return s.str();
}

nlohmann::json culpritsJson(const Culprits &k) {
  return {{"culprit", k.localised() ? nlohmann::json(k.culprit()) : nlohmann::json(nullptr)},
          {"culprits", k.culprits},
          {"tried", k.tried},
          {"fails_otherwise", k.otherwise},
          {"subsumed", k.subsumed},
          {"together", k.together},
          {"runs", k.runs},
          {"seconds", k.seconds},
          {"capped", k.capped},
          {"sentence", k.sentence()}};
}

Culprits findCulprits(const Case &c, const CaseResult &found, Runner &runner, int maxRuns) {
  Backend &b = runner.backend();
  const Prepared p = runner.prepare(c);
  const std::vector<std::string> names = b.components(c, p.inputs);
  if (names.empty()) return {};
  return localise(names, [&](const std::vector<std::string> &swapped) {
    const SwapScope scope(b, swapped);
    const CaseResult now = runner.run(c, p);
    if (now.verdict == Verdict::Pass) return SwapResult::Passes;
    return failsTheSameWay(found, now) ? SwapResult::FailsAlike : SwapResult::FailsOtherwise;
  }, maxRuns, nestedRules(c));
}

Culprits culpritsOf(const Case &c, const CaseResult &found, Runner &runner, const RunnerSet &job, int maxRuns) {
  const auto t0 = std::chrono::steady_clock::now();
  Culprits k;
  Runner *direct = directRunnerFor(found.system, job);
  const CaseResult d = direct ? direct->run(c) : CaseResult{};
  if (direct && d.verdict == Verdict::Pass) {
    k.tried = k.culprits = {tracingComponent(found.system.exec.modeName())};
  } else if (direct && d.verdict == found.verdict) {
    // The same verdict directly: the same failure, as far as the rules go (dynamo often words
    // an error otherwise, or raises it while tracing, where swapped rules are not what runs).
    k = findCulprits(c, d, *direct, maxRuns);
  } else {
    k = findCulprits(c, found, runner, maxRuns);
  }
  k.runs += direct ? 1 : 0;
  k.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return k;
}

bool failsWithCulprit(const Case &cand, const std::string &foundClass, Runner &runner, const std::string &culprit) {
  const Prepared p = runner.prepare(cand);
  if (failureClass(runner.run(cand, p), culprit) != foundClass) return false;
  const SwapScope swapped(runner.backend(), {culprit});
  return runner.run(cand, p).verdict == Verdict::Pass;
}

} // namespace vf
