#pragma once
/// The one replay routine: a saved case run again on every system under test, for
/// `vmapfuzz replay` and nightly's regression corpus alike.
#include <optional>
#include <string>
#include <vector>

#include "harness/report/findings.h"
#include "harness/run/runner.h"

namespace vf {

/// One system's run of a replayed case.
struct Replayed {
  CaseResult result;
  bool failing = false;                ///< isFailure(result.verdict): a finding or a harness-bug
  std::optional<FindingRecord> filed;  ///< where a failing run was recorded (with a store)
};

/// Runs `c` on every runner (inputs and reference prepared once). With a store, each failing
/// run is recorded there as a campaign would, reproduced by `replayCommand(runFlags, its
/// system, file)`.
std::vector<Replayed> replayCase(const Case &c, const RunnerSet &runners, FindingStore *store,
                                 const std::string &runFlags, const std::string &file);

} // namespace vf
