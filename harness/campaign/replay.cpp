#include "harness/campaign/replay.h"

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
    // through the same runner), as the campaign files a shrunk one.
    if (r.failing && store)
      r.filed = store->record(c, r.result, replayCommand(runFlags, r.result.system, file), "",
                              findingSignature(c, r.result, *runner));
    out.push_back(std::move(r));
  }
  return out;
}

} // namespace vf
