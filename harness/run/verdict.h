#pragma once
/// Verdicts: bug, skip and expected error kept apart.
#include <string>
#include <string_view>
#include <vector>

#include <ATen/ATen.h>

#include "harness/backends/system_id.h"
#include "oracles/compare.h"

namespace vf {

enum class Verdict {
  Pass,         ///< batched equals per-example reference
  Mismatch,     ///< values, shapes or dtypes differ beyond tolerance
  BatchedError, ///< the batched run raises where every per-example run succeeds
  Crash,        ///< the system under test died
  Hang,         ///< no answer within the timeout
  Invalid,      ///< the system rejects the program unbatched too: not a bug
  Ambiguous,    ///< a comparison sits on its decision boundary: discarded
  Unsupported,  ///< the system says plainly it has no batching rule for a construct
  HarnessBug,   ///< our reference and the system's own per-example run disagree: our bug
  Oom,          ///< the system ran out of memory (cases are kilobytes: a runaway allocation)
};

std::string_view verdictName(Verdict v);
/// A finding is a verdict that points at a bug in the system under test.
bool isFinding(Verdict v);
/// A finding or a harness-bug: what a campaign files, replay exits 1 for and nightly counts as
/// still failing.
bool isFailure(Verdict v);
constexpr int kVerdictCount = 10;

/// The informative part of an error message in one line: its first line, and where that only
/// announces what follows (dynamo's "Got graph break/error:"), the line that says what happened.
std::string errorGist(const std::string &message);

/// Everything known about one run of a case.
struct CaseResult {
  Verdict verdict = Verdict::Pass;
  std::string summary;            ///< one line: what differed, or the error
  std::string errorType, errorMessage, traceback;
  /// A gradient mode's error: the pass that raised as the worker found it (Outcome::raisingPass:
  /// "forward", "backward", "tangent"), "" outside the passes.
  std::string raisingPass;
  std::vector<at::Tensor> expected, actual;
  /// The tolerance each expected tensor was compared with (oracles/compare.h): the precision
  /// each output was computed in. Empty when the run never got to compare.
  std::vector<Tolerance> tolerances;
  double referenceSeconds = 0, systemSeconds = 0, totalSeconds = 0;
  SystemId system; ///< the system the run was made on (default: eager on the CPU)
  /// Non-zero when the failure is in a compiled function's second call, at this batch size.
  int64_t againBatchSize = 0;
  /// A gradient mode's finding whose batched forward values already differ from the reference's
  /// (a wrong shape makes the backward pass raise): `expected`/`actual` are the forward outputs,
  /// and the finding is the forward mode's (findingSystem in harness/run/runner.h).
  bool forwardDiffers = false;
  double compareSeconds = 0, emitSeconds = 0, transportSeconds = 0, workerSeconds = 0; ///< see Outcome
  int64_t workerRssKb = 0;
  /// How the same case fares on the campaign's other systems (filled before filing a finding,
  /// e.g. a direct-mode finding re-run through the public API): one line per system.
  std::string elsewhere;
  /// The Python coverage of torch's batching code the batched run reached (Outcome::pyCoverage).
  std::vector<std::string> pyCoverage;
};

} // namespace vf
