#pragma once
/// Shrinking a finding so that it converges to one canonical form per root cause (issue 27).
///
/// The finding's culprit is localised first (culprit.h), on the case as found. Where one
/// component is the culprit, a candidate is kept when it fails in the same failure class
/// (signature.h: an error raised by the culprit's own function or "elsewhere", or any silent wrong result) and passes with that
/// component swapped for its per-example loop: the shrink keeps the culprit and the failure
/// class, and moves freely between incidental variants (shape or values, one level or two, the
/// message an error happens to carry). Where no single component is the culprit, a candidate is
/// kept when it fails the same way (the cheap shrink key, failsTheSameWay), as before.
#include <functional>
#include <string>

#include "harness/report/culprit.h"
#include "harness/report/shrinker.h"
#include "harness/run/runner.h"

namespace vf {

struct FindingShrink {
  Case shrunk;
  ShrinkStats stats;
  Culprits before;     ///< the localisation on the case as found, timed (no runs when culpritRuns is 0)
  std::string culprit; ///< the component the shrink kept; "" when it kept the cheap key instead
};

/// Shrinks finding `found` of case `c` in `runner`: localises its culprit first (at most
/// `culpritRuns` runs; 0 localises nothing), then shrinks keeping it (see above), at most
/// `maxAttempts` candidates. `more`, where given, is asked before each candidate: false rejects
/// it (a campaign's time budget: the case stays as small as it got).
FindingShrink shrinkFinding(const Case &c, const CaseResult &found, Runner &runner, int culpritRuns, int maxAttempts,
                            const std::function<bool()> &more = {});

} // namespace vf
