#include "harness/campaign/replay.h"

#include "harness/report/reproduce.h"

namespace vf {

std::vector<Replayed> replayCase(const Case &c, const RunnerSet &runners, FindingStore *store,
                                 const std::string &runFlags, const std::string &file) {
  std::vector<Replayed> out;
  if (runners.empty()) return out;
  Prepared prep = runners.front()->prepare(c);
  for (Runner *runner : runners) {
    Replayed r{runner->run(c, prep)};
    r.failing = isFailure(r.result.verdict);
    if (r.failing && store) r.filed = store->record(c, r.result, replayCommand(runFlags, r.result.system, file));
    out.push_back(std::move(r));
  }
  return out;
}

} // namespace vf
