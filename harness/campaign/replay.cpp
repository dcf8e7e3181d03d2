#include "harness/campaign/replay.h"

#include "harness/campaign/campaign.h"

#include "harness/report/modes.h"
#include "harness/report/reproduce.h"
#include "harness/report/signature.h"

namespace vf {

std::vector<Replayed> replayCase(const Case &c, const RunnerSet &runners, FindingStore *store,
                                 const std::string &runFlags, const std::string &file) {
  std::vector<Replayed> out;
  if (runners.empty()) return out;
  Prepared prep = runners.front()->prepare(c);
  for (Runner *runner : runners) {
    Replayed r{runner->run(c, prep)};
    r.failing = isFailure(r.result.verdict);
    // A replayed case is filed under its full signature (a mismatch's essential features ablated
    // through the system it is filed for), as the campaign files a shrunk one.
    if (r.failing && store) {
      CaseResult filed = r.result;
      if (!crossCheck(c, filed, runners, r.setAside)) {
        r.failing = false;
      } else {
        const Culprits culprits = isFinding(r.result.verdict)
                                      ? culpritsOf(c, r.result, *runner, runners, CampaignOptions{}.culpritRuns)
                                      : Culprits{};
        const Signature full = signFinding(c, filed, runnerFor(runners, filed.system, *runner), culprits);
        r.filed = store->record(c, filed, replayCommand(runFlags, filed.system, file), "", full);
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

} // namespace vf
