#include "harness/report/modes.h"

namespace vf {

Runner &runnerFor(const RunnerSet &job, const SystemId &system, Runner &fallback) {
  for (Runner *x : job)
    if (x->backend().id() == system) return *x;
  return fallback;
}

Runner &fastestThatFailsAlike(const Case &c, const CaseResult &r, Runner &found, const RunnerSet &job) {
  auto rank = [](Runner *x) {
    const ExecConfig &e = x->backend().id().exec;
    return e.direct() ? 0 : e.compiled() ? 2 : 1;
  };
  // The same failure on the same device, whatever the mode.
  const std::string want = failureKey(r);
  Runner *best = &found;
  const Grad grad = found.backend().grad(); // a gradient finding is shrunk among gradient modes of its kind
  for (Runner *x : job) {
    if (x == &found || rank(x) >= rank(best) || x->backend().id().isLibtorch() || x->backend().grad() != grad) continue;
    CaseResult alt = x->run(c);
    if (alt.verdict == r.verdict && alt.system.device == r.system.device && failureKey(alt) == want) best = x;
  }
  return *best;
}

namespace {

/// The last runner of `job` on `system`'s device and gradient setting (not libtorch) whose mode
/// `wanted` accepts.
template <class Wanted> Runner *sameSettingRunner(const SystemId &system, const RunnerSet &job, Wanted wanted) {
  Runner *found = nullptr;
  for (Runner *x : job) {
    const SystemId id = x->backend().id();
    const ExecConfig &e = id.exec;
    if (wanted(e) && e.device == system.exec.device && e.grad == system.exec.grad && !id.isLibtorch()) found = x;
  }
  return found;
}

} // namespace

Runner *publicRunnerFor(const SystemId &system, const RunnerSet &job) {
  if (system.isLibtorch() || !system.exec.direct()) return nullptr;
  return sameSettingRunner(system, job, [](const ExecConfig &e) { return !e.direct() && !e.compiled(); });
}

Runner *directRunnerFor(const SystemId &system, const RunnerSet &job) {
  if (system.isLibtorch() || system.exec.direct()) return nullptr;
  return sameSettingRunner(system, job, [](const ExecConfig &e) { return e.direct(); });
}

bool crossCheck(const Case &c, CaseResult &r, const RunnerSet &job, std::string &why) {
  if (r.system.isLibtorch() || !r.system.exec.direct()) return true;
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
