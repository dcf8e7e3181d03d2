#include "harness/report/shrink_finding.h"

#include <chrono>

#include "harness/backends/backend.h"
#include "harness/report/signature.h"

namespace vf {

FindingShrink shrinkFinding(const Case &c, const CaseResult &found, Runner &runner, int culpritRuns, int maxAttempts,
                            const std::function<bool()> &more) {
  FindingShrink out;
  if (culpritRuns > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    out.before = findCulprits(c, found, runner, culpritRuns);
    out.before.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  out.culprit = out.before.culprit();
  const std::string foundClass = failureClass(found, out.culprit); // once: an error's is read from its traceback
  out.shrunk = shrinkCase(c, [&](const Case &cand) {
    if (more && !more()) return false;
    if (!out.culprit.empty()) return failsWithCulprit(cand, foundClass, runner, out.culprit);
    return failsTheSameWay(found, runner.run(cand));
  }, &out.stats, maxAttempts);
  return out;
}

} // namespace vf
