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
  std::string setAside;                ///< why a direct-mode failure is no torch bug (then not failing)
};

/// Runs `c` on every runner (inputs and reference prepared once). With a store, each failing
/// run is recorded there as a campaign would, reproduced by `replayCommand(runFlags, its
/// system, file)`: a direct-mode failure is first run through the public API (crossCheck,
/// modes.h), filed as that run where it fails there too, and set aside where the public API
/// rejects the program, so a bug filed from the public API is known when direct mode meets it.
std::vector<Replayed> replayCase(const Case &c, const RunnerSet &runners, FindingStore *store,
                                 const std::string &runFlags, const std::string &file);

} // namespace vf
