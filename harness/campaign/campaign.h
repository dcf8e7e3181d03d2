#pragma once
/// The fuzz loop: generate, run, classify, record, report progress. It only loops; the driver
/// (cli) builds the backend and the store.
#include <array>
#include <functional>
#include <cstdint>
#include <vector>
#include <map>
#include <ostream>
#include <set>
#include <string>

#include "generators/policy.h"
#include "harness/campaign/coverage.h"
#include "harness/campaign/draw.h"
#include "harness/campaign/guided.h"
#include "harness/campaign/look_behind.h"
#include "harness/campaign/mode_health.h"
#include "harness/report/findings.h"
#include "harness/report/known_reports.h"
#include "harness/campaign/phase_times.h"
#include "harness/run/runner.h"

namespace vf {

struct CampaignStats;

struct CampaignOptions {
  double seconds = 60;
  int64_t maxCases = -1; ///< -1: no limit
  uint64_t seed = 1;
  GenPolicy policy;
  bool tty = false;      ///< rewrite the progress line in place
  bool shrink = true;    ///< shrink each new finding before filing it
  /// A bound on one shrink's candidates, far above what a fixpoint takes: shrinking runs to
  /// 1-minimality, and the campaign's deadline (--time, shrinking included) stops it first.
  int maxShrinkAttempts = 20000;
  /// Culprit localisation's runs per new finding (harness/report/culprit.h; 0: off).
  int culpritRuns = 24;
  std::string genFlags;  ///< the --gen flags, repeated in every reproduce line (genFlagsOf)
  std::string runFlags;  ///< flags replay needs too (--fault, --preload, --float64: cli::runFlags)
  /// This campaign runs the case indices i with i % shards == shard (of one campaign split over
  /// several machines); --cases bounds the index, so shards of one seed never overlap.
  int64_t shard = 0, shards = 1;
  /// When set, one line per run: case index, case seed, size, system, verdict, signature
  /// (`--case-log`): what a refactoring must leave unchanged, and a table of every case run.
  std::ostream *caseLog = nullptr;
  /// The modes after a job's first get at most this share of the time its systems take (1: every
  /// case runs in every mode); look-behind's re-runs in the first mode do not count towards it. The default campaign explores in `direct` and gives `eager` a share.
  double otherModesShare = 1.0;
  /// Constructs a system has no batching rule for (start-up probes, see learnUnsupported): a case
  /// holding one is not run on that system.
  std::map<SystemId, std::set<std::string>> unsupportedIn;
  std::vector<std::string> notGenerated; ///< constructs dropped from the policy by those probes
  GuidedOptions guided; ///< coverage-guided mutation of corpus cases (guided.h)
  /// A new failure found too close to the deadline for its checks (re-run, cross-check through
  /// the public API, a mismatch's ablation) is kept here unchecked, as a case file that
  /// `vmapfuzz replay --reports` checks and files later, so --time holds and nothing is lost
  /// ("": the campaign's log names its gen line only).
  std::string uncheckedDir;
  /// Called with the statistics so far every kCheckpointSeconds and after each filing of something
  /// new (a new finding, one kept unchecked or set aside, a filing error), while no
  /// other job records (the store is consistent): the driver writes summary.json as it goes, so a
  /// campaign killed mid-way leaves its counts up to then. Unset: not called.
  std::function<void(const CampaignStats &)> checkpoint;
  /// Bugs filed elsewhere, read only (`fuzz --known`: the project's reports/): a finding whose
  /// signature is filed there is counted there, not shrunk or filed (nullptr: none).
  KnownReports *known = nullptr;
};

/// Seconds between two CampaignOptions::checkpoint calls when nothing is filed.
inline constexpr double kCheckpointSeconds = 5;

struct CampaignStats {
  int64_t cases = 0;
  int64_t byVerdict[kVerdictCount] = {};
  double seconds = 0, referenceSeconds = 0, systemSeconds = 0;
  Coverage coverage;
  int64_t shrinkAttempts = 0;
  double shrinkSeconds = 0;
  std::map<std::string, int64_t> invalidReasons; ///< why torch rejected programs: feeds the generator's fixes
  std::map<std::string, std::string> invalidExample; ///< reason -> the gen command of its first case
  std::map<std::string, int64_t> unsupported;    ///< "construct in mode": no batching rule there, with counts
  /// mode -> why its runs checked nothing (uncheckedReason: invalid or unsupported) -> runs:
  /// what finds a mode that checks almost nothing (mode_health.h).
  std::map<std::string, std::map<std::string, int64_t>> uncheckedReasons;
  int64_t runs = 0;                              ///< case x mode
  std::map<std::string, std::array<int64_t, kVerdictCount>> byMode; ///< verdicts per backend name
  std::map<std::string, double> secondsByMode;   ///< time inside torch per backend name
  std::vector<int64_t> caseIndices;              ///< every index run (sorted at the end): shards merge on these
  PhaseTimes phases; ///< where the wall time went (printed with the summary)
  int jobs = 1;      ///< parallel case loops (the phases add up to jobs x seconds)
  int64_t respecCases = 0; ///< cases that re-ran a passing program with another batch spec (GenPolicy::respecsPerPass)
  int64_t redrawnCases = 0, redraws = 0;          ///< cases whose data was re-drawn for predicate margins
  int64_t nearBoundary = 0;                       ///< cases still near a boundary after every re-draw
  std::map<std::string, int64_t> skipped;         ///< system -> runs left out (its time share, or no rule)
  std::vector<std::string> notGenerated;          ///< constructs no system could batch: not generated
  int64_t setAside = 0;   ///< direct-mode failures the public API rejects as invalid input: not filed
  LookBehindStats lookBehind; ///< cases that ended on a filed bug, and what stepping around it found
  bool lookBehindOn = true;   ///< GenPolicy::lookBehind > 0
  GuidedStats guided;     ///< python coverage, corpus and mutants (when --coverage is on)
  /// New failures kept unchecked at the deadline (CampaignOptions::uncheckedDir): their files.
  std::vector<std::string> unchecked;
  /// Why filing failed (FilingError: no space, permission, a folder gone): the campaign stopped
  /// there, kept that finding unchecked, and its driver exits 3. "": every finding was filed.
  std::string filingError;
};

/// The modes of `s` that checked almost nothing (mode_health.h), most idle first.
std::vector<IdleMode> idleModesOf(const CampaignStats &s);

/// Runs the campaign with one thread per job; each case runs in every mode of its job.
CampaignStats runCampaign(const CampaignOptions &opt, const std::vector<RunnerSet> &jobs, FindingStore &store,
                          std::ostream &log);
/// One job, one mode.
CampaignStats runCampaign(const CampaignOptions &opt, Runner &runner, FindingStore &store, std::ostream &log);

/// The end-of-campaign summary: verdict counts, coverage table, findings.
void printSummary(const CampaignStats &s, const FindingStore &store, std::ostream &os);

} // namespace vf
