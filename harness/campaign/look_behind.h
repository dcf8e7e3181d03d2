#pragma once
/// Look-behind (issue 29): a case whose check ended on a bug filed already is changed to step
/// around that bug (report/step_around.h) and run again, so the rest of its program is checked.
/// A failure of the re-run is handed to the filing pipeline as a finding of its own, with its own
/// case file; it is never filed under a bug it stepped around, and a re-run that meets another
/// filed bug steps around that one too, up to a bound (`--gen look_behind=N`, 0: off).
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/report/filing.h"
#include "harness/report/step_around.h"
#include "harness/run/runner.h"
#include "ir/program.h"

namespace vf {

/// What look-behind did over a campaign (summary.json "look_behind").
struct LookBehindStats {
  int64_t casesMet = 0;     ///< cases one of whose runs ended on a filed bug
  int64_t casesEnded = 0;   ///< of them, cases where a run's check still ended there: nothing after it checked
  int64_t runsMet = 0;      ///< runs that ended on a filed bug
  int64_t checkedPast = 0;  ///< of them, re-checked past it: a re-run passed, or failed in a new way
  int64_t reruns = 0;       ///< re-runs made
  int64_t passed = 0;       ///< re-runs that passed
  int64_t newFailures = 0;  ///< re-runs' failures that are no filed bug (handed to filing as new)
  int64_t filedNew = 0;     ///< of them, filed as new findings
  int64_t otherFiled = 0;   ///< re-runs that met another filed bug (stepped around in turn)
  int64_t cameBack = 0;     ///< re-runs that met the bug they stepped around again
  int64_t uncheckedRuns = 0; ///< re-runs that checked nothing (invalid, ambiguous, unsupported)
  int64_t inEarlierMode = 0; ///< runs met whose bug an earlier (cheaper) mode of the case had looked behind: not re-run
  double seconds = 0;       ///< the re-runs and their filing
  /// Filed signature -> runs whose check still ended on it: the bugs look-behind could not pass.
  std::map<std::string, int64_t> endedOn;

  void add(const LookBehindStats &o);
};

/// summary.json's "look_behind".
nlohmann::json lookBehindJson(const LookBehindStats &s);
/// The summary's lines: of `cases` cases, how many ended on a filed bug, how many were checked
/// past it and what those re-checks found; `on` false: look-behind was off.
void printLookBehind(const LookBehindStats &s, int64_t cases, bool on, std::ostream &os);

/// What a look-behind needs of the campaign.
struct LookBehindHooks {
  std::function<bool()> timeLeft;                     ///< false: stop (the campaign's deadline)
  std::function<CaseResult(const Case &)> run;        ///< runs a changed case in the system that met the bug
  /// Files a re-run's failure: `how` says what was stepped around, for its origin.
  std::function<FilingReport(const Case &, const CaseResult &, const Behind &, const std::string &how)> file;
};

/// What each step-around of each filed bug has done so far in a campaign, so that the next case
/// tries first the one that got past that bug most often (the order of stepAroundsOf breaks
/// ties). Thread-safe: the jobs of a campaign share one.
class StepAroundMemory {
public:
  /// The step-arounds of the bug filed under `sig`, the likeliest to get past it first.
  std::vector<StepAround> ordered(const std::string &sig);
  /// Step `step` of bug `sig` was tried; `past`: its re-run got past the bug (passed, or failed anew).
  void tried(const std::string &sig, const StepAround &step, bool past);

private:
  std::mutex mu_;
  std::map<std::string, std::map<std::string, std::pair<int64_t, int64_t>>> seen_; ///< sig -> step -> (tries, past)
};

/// Steps around the filed bug `known` that case `c` ended on, and around each further filed bug
/// its re-runs meet, at most `maxBugs` bugs and `triesPerBug` changed cases for each. True when
/// the rest was checked: a re-run passed, or failed in a way no filed bug explains.
bool lookBehind(const Case &c, const std::string &known, int maxBugs, const LookBehindHooks &h, LookBehindStats &s,
                StepAroundMemory &memory, int triesPerBug = 2);

/// One case's look-behinds over its modes, which run cheapest first: each filed bug is looked
/// behind once per case, in the first mode that met it. A later mode that meets the same bug takes
/// that outcome instead of re-running the same step-arounds at its own (dearer) cost, which would
/// come out of that mode's share of fresh cases. Measured: bench/RESULTS.md, session 20.
class CaseLookBehind {
public:
  /// `look` steps around `known` (lookBehind); called only the first time this case meets it.
  bool behind(const std::string &known, const std::function<bool()> &look, LookBehindStats &s);

private:
  std::map<std::string, bool> past_; ///< filed bug -> whether its look-behind got past it
};

} // namespace vf
