#pragma once
/// The filing pipeline: what happens to a failure a campaign meets, in stages, each one job:
///
///   dedupe     a signature being shrunk waits for it; one set aside stays set aside
///   budget     a new failure whose checks would end past the deadline is kept unchecked
///   shrink     in the fastest system of the job that fails the same way (modes.h)
///   confirm    the shrunk case re-run in the system that found it (a flaky one is filed as found)
///   cross      a direct-mode finding run through the public API (modes.h: crossCheck)
///   localise   the component of torch's batching it needs, by swapping each for a per-example
///              loop (culprit.h), in direct mode where the case fails there alike
///   ablate     a mismatch's essential features (signature.h: findingSignature)
///   record     the finding store files it, or counts a hit (findings.h)
///
/// The campaign loop only hands failures over (FilingPipeline::file) and adds up what each
/// filing reports; the pipeline runs and decides nothing about verdicts (the runner does).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "harness/report/culprit.h"
#include "harness/report/findings.h"
#include "harness/report/known_reports.h"
#include "harness/report/safe_files.h"
#include "harness/run/runner.h"

namespace vf {

/// Where a failing case came from: what its reproduce line replays.
struct CaseOrigin {
  /// A generated case: `vmapfuzz gen --case-seed S --size N` makes it again. Otherwise (a corpus
  /// case, a mutant of one, a re-spec of a passing program) only its filed case.vf does.
  bool generated = true;
  uint64_t caseSeed = 0;
  int size = 0;
  std::string how; ///< not generated: what it is ("a re-spec of a passing program")
};

struct FilingOptions {
  bool shrink = true;           ///< shrink each new finding before filing it
  int maxShrinkAttempts = 20000; ///< a bound on one shrink's candidates (CampaignOptions)
  int ablationProbes = 32;      ///< a mismatch's ablation makes at most this many runs
  int culpritRuns = 24;         ///< culprit localisation makes at most this many runs (0: off)
  std::string genFlags;         ///< repeated in every reproduce line
  std::string runFlags;         ///< flags replay needs too
  std::string uncheckedDir;     ///< where a failure found too late for its checks is kept ("": nowhere)
  /// Bugs filed elsewhere, read only (`fuzz --known`: the project's reports/): a failure whose
  /// signature is filed there is counted there, not shrunk or filed (nullptr: none).
  KnownReports *known = nullptr;
};

/// The campaign's clock and cost model, as filing sees them (thread-safe callables).
struct FilingBudget {
  std::function<double()> secondsLeft;                    ///< of the campaign's --time
  std::function<double(const SystemId &)> runCost; ///< mean seconds of one run of a system so far (0: none yet)
};

/// What one filing did, for the campaign's statistics.
struct FilingReport {
  int64_t setAside = 0;       ///< direct-mode failures whose programs the public API rejects
  int64_t shrinkAttempts = 0;
  double shrinkSeconds = 0;   ///< shrinking, the culprit localisation before it not counted
  double culpritSeconds = 0;  ///< culprit localisation, before shrinking and on the shrunk case
  double fileSeconds = 0;     ///< writing the report (the store's record)
  std::string unchecked;      ///< the case file a failure was just kept in, unchecked ("" none)
  /// The signature filed already that this failure was counted under: a hit of a bug in the
  /// store or the known reports, or a look-behind's re-run that met the bug it stepped around
  /// again ("" otherwise: a new finding, set aside, kept unchecked, or waiting on a shrink).
  std::string known;
  bool filedNew = false; ///< it was filed as a new finding
  /// The finding could not be filed (a FilingError: no space, permission, a folder gone): why.
  /// It was kept unchecked instead; the campaign stops.
  std::string filingError;
};

/// A look-behind's re-run (issue 29): a case changed to step around bugs filed already.
struct Behind {
  /// The filed signatures it stepped around, in order: its failure is never filed under one of
  /// them (it is counted as that bug met again), and its cheap signature is kept apart from an
  /// ordinary case's, so that a new bug behind a filed one is shrunk and signed on its own.
  std::vector<std::string> steppedAround;
  /// True when `sig` is one of the bugs stepped around.
  bool around(const std::string &sig) const {
    return std::find(steppedAround.begin(), steppedAround.end(), sig) != steppedAround.end();
  }
};

/// Reproduce line of a case from `origin` on `system`: its gen line, or a replay of case.vf.
std::string reproduceFor(const CaseOrigin &origin, const FilingOptions &opt, const SystemId &system);

class FilingPipeline {
public:
  using Say = std::function<void(const std::string &line)>;
  /// `say` prints one line of the campaign's log (thread-safe).
  FilingPipeline(FindingStore &store, FilingOptions opt, Say say) : store_(store), opt_(std::move(opt)), say_(std::move(say)) {}

  /// Files one failure `r` of case `c`, met by `runner` of `job`. Safe to call from every job at
  /// once: shrinking and the checks run outside the pipeline's lock.
  FilingReport file(const Case &c, const CaseResult &r, Runner &runner, const RunnerSet &job, const CaseOrigin &origin,
                    const FilingBudget &budget, const Behind &behind = {});
  /// What the checks of a new finding in the job's first system would cost (checksCost of a
  /// mismatch, the dearest verdict: its ablation always runs): the end of a campaign keeps this
  /// much time, so that a failure its last cases meet is still checked and confirmed.
  double checksReserve(const RunnerSet &job, const FilingBudget &budget) const;

  /// Signatures met so far (the store's count, under the pipeline's lock).
  size_t unique();
  /// Cases kept unchecked, in the order they were kept.
  std::vector<std::string> unchecked();
  /// Runs `f` under the pipeline's lock: nothing files meanwhile, so the store is consistent.
  void locked(const std::function<void()> &f);

private:
  struct Pending {
    Case c;
    CaseResult r;
    std::string rep;
  };
  /// Where a failure goes after dedupe and budget.
  struct Admission {
    enum { Waits, SetAside, Known, Unchecked, Files } what = Files;
    std::string sig0, sig; ///< its cheap signature, and the one to file under (mapped through earlier shrinks)
    std::string known;     ///< Known: the signature of the folder it is a hit of (sig, or what sig is an alias of)
    bool fresh = false, shrink = false;
    double checks = 0; ///< what its checks after shrinking cost
    std::string unchecked; ///< Unchecked: the case file it was kept in ("" kept before)
  };
  Admission admit(const Case &c, const CaseResult &r, const RunnerSet &job, const std::string &rep, const FilingBudget &budget,
                  const Behind &behind);
  /// Shrinks `c`, then confirms the shrunk case in `runner`; returns the case and result to file.
  std::pair<Case, CaseResult> shrink(const Case &c, const CaseResult &r, Runner &runner, const RunnerSet &job, double checks,
                                     const FilingBudget &budget, FilingReport &rep, std::string &note);
  /// What a new finding's checks after shrinking cost: the re-run of the shrunk case, a
  /// direct-mode finding's run through the public API, and a mismatch's ablation.
  double checksCost(const CaseResult &r, const RunnerSet &job, const FilingBudget &budget) const;
  void setAside(const std::string &sig0, const std::string &why, FilingReport &rep);
  /// Counts a hit of a signature filed in the known reports (FilingOptions::known), saying so
  /// the first time; true when it is filed there. Caller holds mu_.
  bool knownHit(const std::string &sig, const CaseResult &r);
  /// The signature the folder of `sig` is filed under, in the store or the known reports: `sig`
  /// itself, or the signature it is an alias of (a migration's old key). Caller holds mu_.
  std::string filedUnder(const std::string &sig) const;
  void record(const Case &filed, const CaseResult &filedResult, const CaseResult &found, const Admission &a,
              const std::string &note, const Signature &full, const CaseOrigin &origin, const Behind &behind, FilingReport &rep);
  /// Keeps a new failure as a case file that `vmapfuzz replay --reports` checks and files later
  /// (one per signature: "" when this one is kept already); `why` it is not filed now. Caller
  /// holds mu_.
  std::string keepUnchecked(const Case &c, const CaseResult &r, const std::string &sig0, const std::string &rep,
                            const std::string &why = "found with too little of the campaign's time left to shrink, cross-check and file it");
  /// A FilingError while recording: the finding kept unchecked, the reason reported. Caller holds mu_.
  void filingFailed(const FilingError &e, const Case &c, const CaseResult &r, const std::string &sig0, const std::string &rep,
                    FilingReport &report);

  FindingStore &store_;
  const FilingOptions opt_;
  const Say say_;
  std::mutex mu_; ///< guards the store and everything below
  std::map<std::string, std::string> shrunkSignature_; ///< signature found -> signature filed
  std::set<std::string> setAside_;                     ///< signatures found that are not torch bugs
  std::set<std::string> shrinking_;                    ///< signatures some job is shrinking now
  std::map<std::string, std::vector<Pending>> pending_; ///< hits that arrived meanwhile
  std::vector<std::string> unchecked_;
};

} // namespace vf
