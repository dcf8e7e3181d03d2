#include "harness/campaign/modes.h"

#include "harness/backends/exec_config.h"

namespace vf {
namespace {

/// The in-process libtorch backend has no modes (its name parses as no torch mode).
bool isLibtorch(Runner *x) { return x->backend().name().rfind("libtorch", 0) == 0; }

} // namespace

Runner &runnerFor(const RunnerSet &job, const std::string &system, Runner &fallback) {
  for (Runner *x : job)
    if (x->backend().name() == system) return *x;
  return fallback;
}

Runner &fastestThatFailsAlike(const Case &c, const CaseResult &r, Runner &found, const RunnerSet &job) {
  auto rank = [](Runner *x) {
    ExecConfig e = execOfSystem(x->backend().name());
    return e.direct() ? 0 : e.compiled() ? 2 : 1;
  };
  // shrinkKey names the mode first: compare what follows it.
  auto sansMode = [](const std::string &key) { return key.substr(key.find('|')); };
  const std::string want = sansMode(shrinkKey(r));
  Runner *best = &found;
  const Grad grad = found.backend().grad(); // a gradient finding is shrunk among gradient modes of its kind
  for (Runner *x : job) {
    if (x == &found || rank(x) >= rank(best) || isLibtorch(x) || x->backend().grad() != grad) continue;
    CaseResult alt = x->run(c);
    if (alt.verdict == r.verdict && sansMode(shrinkKey(alt)) == want) best = x;
  }
  return *best;
}

Runner *publicRunnerFor(const std::string &system, const RunnerSet &job) {
  const ExecConfig found = execOfSystem(system);
  if (!found.direct()) return nullptr;
  Runner *pub = nullptr;
  for (Runner *x : job) {
    ExecConfig e = execOfSystem(x->backend().name());
    if (!e.direct() && !e.compiled() && e.device == found.device && e.grad == found.grad && !isLibtorch(x)) pub = x;
  }
  return pub;
}

bool crossCheck(const Case &c, CaseResult &r, const RunnerSet &job, std::string &why) {
  if (!execOfSystem(r.system).direct()) return true;
  Runner *pub = publicRunnerFor(r.system, job);
  if (!pub) {
    r.elsewhere = "not checked through the public API (no eager mode in this run)";
    return true;
  }
  CaseResult p = pub->run(c);
  std::string how = std::string(verdictName(p.verdict)) + (p.summary.empty() ? "" : " (" + p.summary.substr(0, 200) + ")");
  if (p.verdict == Verdict::Invalid) {
    why = "a direct-mode " + std::string(verdictName(r.verdict)) + " whose program the public API rejects: " + how;
    return false;
  }
  if (isFinding(p.verdict)) {
    std::string directWas = std::string(verdictName(r.verdict));
    p.elsewhere = "found in direct mode (the op called under vmap without dynamo) as " + directWas +
                  (p.verdict == r.verdict ? "; the public API fails the same way" : "; the public API gives " + how);
    r = p;
  } else {
    r.elsewhere = "only when the op is called directly: through the public API (torch.cond & co.) the case gives " + how +
                  ", so repro.py calls the op itself";
  }
  return true;
}

} // namespace vf
