#pragma once
/// How a campaign uses the several modes of a job beyond running each case: where a finding is
/// shrunk, and how a direct-mode finding is checked through the public API before filing.
#include <string>

#include "harness/report/findings.h"
#include "harness/report/signature.h"
#include "harness/run/runner.h"

namespace vf {

/// The system of `job` to shrink `c` in: the first of direct, eager, the others whose run of
/// `c` gives the same verdict and the same shrink key (signature.h) apart from the mode; else
/// `found`.
Runner &fastestThatFailsAlike(const Case &c, const CaseResult &r, Runner &found, const RunnerSet &job);

/// The runner of `job` whose system is `system`, `fallback` when none is.
Runner &runnerFor(const RunnerSet &job, const SystemId &system, Runner &fallback);

/// The runner of `job` that runs a direct-mode finding of `system` through the public API: eager
/// (not compiled, not the libtorch backend), the same device and gradient setting; nullptr when
/// `system` is not direct or the job has none.
Runner *publicRunnerFor(const SystemId &system, const RunnerSet &job);

/// The runner of `job` that calls the higher-order ops directly (direct mode) for a finding of
/// `system` through the public API or a compiler: the same device and gradient setting; nullptr
/// when `system` is direct or libtorch, or the job has none.
Runner *directRunnerFor(const SystemId &system, const RunnerSet &job);

/// Re-runs a direct-mode finding through the public API (eager, same device) of `job` and notes
/// how it shows there in `r.elsewhere`. Returns false when the public API rejects the program
/// (verdict invalid): then `why` says so and the finding is not a torch bug. Where the public
/// run fails too, `r` becomes that run, so the filed repro.py uses the public API. Findings of
/// other modes are left as they are.
bool crossCheck(const Case &c, CaseResult &r, const RunnerSet &job, std::string &why);

} // namespace vf
