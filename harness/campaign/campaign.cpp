#include "harness/campaign/campaign.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <chrono>
#include <regex>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "generators/case_gen.h"
#include "harness/report/filing.h"
#include "harness/backends/exec_config.h"
#include "harness/report/reproduce.h"
#include "harness/report/signature.h"
#include "ir/constructs.h"
#include "ir/text.h"

namespace vf {

namespace {

/// A mismatch's ablation makes at most this many runs (findingSignature).
constexpr int kAblationProbes = 32;

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string progressLine(const CampaignStats &s, size_t unique, double secs) {
  std::ostringstream os;
  int64_t findings = 0;
  for (int v = 0; v < kVerdictCount; ++v)
    if (isFinding(static_cast<Verdict>(v))) findings += s.byVerdict[v];
  os << "#" << s.cases << " exec/s: " << std::fixed << std::setprecision(1) << (secs > 0 ? s.cases / secs : 0.0)
     << " findings: " << findings << " (unique " << unique << ")"
     << " invalid: " << s.byVerdict[static_cast<int>(Verdict::Invalid)]
     << " ambiguous: " << s.byVerdict[static_cast<int>(Verdict::Ambiguous)]
     << " cov: " << s.coverage.brief();
  return os.str();
}

/// One case to run, with how it was drawn.
struct Drawn {
  Case c;
  std::optional<Evaluated> evaluated; ///< the margin check's last reference run, reused
  CaseOrigin origin;                  ///< what its reproduce line replays
  int64_t index = 0;                  ///< its case index (a re-spec: its program's)
  std::optional<Mutant> mutant;       ///< coverage guidance: a corpus case or a mutant of one
  bool respec = false;                ///< a passing program with another batch spec: run in the first mode only
  double genSeconds = 0;
  int redraws = 0;
  bool nearBoundary = false;
};

/// The loop, shared by the job threads: it draws cases, runs them in the modes of its job,
/// counts what they gave, and hands every failure to the filing pipeline. Generation (RapidCheck
/// keeps global state) and the statistics are guarded by mutexes; cases and filing run in parallel.
class Loop {
public:
  Loop(const CampaignOptions &opt, FindingStore &store, std::ostream &log)
      : opt_(opt), log_(log), guide_(opt.guided),
        filing_(store,
                {.shrink = opt.shrink, .maxShrinkAttempts = opt.maxShrinkAttempts, .ablationProbes = kAblationProbes,
                 .culpritRuns = opt.culpritRuns,
                 .genFlags = opt.genFlags, .runFlags = opt.runFlags, .uncheckedDir = opt.uncheckedDir, .known = opt.known},
                [this](const std::string &line) { say(line); }) {}

  void job(const RunnerSet &runners) {
    for (int64_t i; next(i, runners);) {
      Drawn d = draw(i);
      // A program that passes runs again with other batch specs and data, where a run is cheap:
      // in the first mode, when it is direct. The program is generated once.
      if (runCase(d, runners) && !d.mutant && opt_.policy.respecsPerPass > 0 && runners.front()->backend().id().exec.direct())
        for (int k = 0; k < opt_.policy.respecsPerPass && elapsed() < opt_.seconds; ++k)
          if (!runCase(respec(d, k), runners)) break;
      progress(false);
    }
  }

  CampaignStats finish() {
    s_.seconds = elapsed();
    if (guide_.on()) s_.guided = guide_.stats();
    std::sort(s_.caseIndices.begin(), s_.caseIndices.end());
    s_.unchecked = filing_.unchecked();
    progress(true);
    return s_;
  }

private:
  double elapsed() const { return since(t0_); }

  /// Case `i` of the campaign: generated, or a corpus case or mutant of one (coverage guidance),
  /// its data re-drawn for predicate margins. Only what goes through RapidCheck (draw.h) is drawn
  /// under genMu_; the re-draws (reference runs) run outside it, so that jobs generate side by side.
  Drawn draw(int64_t i) {
    Drawn d;
    d.index = i;
    d.origin = {.generated = true, .caseSeed = caseSeed(opt_.seed, i), .size = caseSize(i), .how = ""};
    auto tGen = std::chrono::steady_clock::now();
    DrawnCase drawn;
    try {
      Case c;
      {
        std::lock_guard<std::mutex> g(genMu_);
        d.mutant = guide_.next(d.origin.caseSeed, opt_.policy);
        c = d.mutant ? d.mutant->c : generateCase(d.origin.caseSeed, d.origin.size, opt_.policy);
      }
      drawn = keepMargin(std::move(c), opt_.policy.maxRedraws);
    } catch (const std::exception &e) { // the generator's own bug: say which case, exit 4
      throw std::logic_error("the generator failed on case " + std::to_string(i) + " (" +
                             genCommand(d.origin.caseSeed, d.origin.size, opt_.genFlags) + "): " + e.what());
    }
    if (d.mutant) d.origin = {.generated = false, .caseSeed = d.origin.caseSeed, .size = d.origin.size,
                              .how = "a " + d.mutant->how + " mutant of a corpus case"};
    return settle(d, std::move(drawn), tGen);
  }

  /// The `k`-th re-spec of a passing program: no gen line makes it, its filed case.vf replays it.
  Drawn respec(const Drawn &from, int k) {
    Drawn d;
    d.index = from.index;
    d.respec = true;
    d.origin = {.generated = false, .caseSeed = from.origin.caseSeed, .size = from.origin.size, .how = "a re-spec of a passing program"};
    auto tGen = std::chrono::steady_clock::now();
    Case c;
    {
      std::lock_guard<std::mutex> g(genMu_);
      c = respecCase(from.c, from.origin.caseSeed, k, from.origin.size, opt_.policy);
    }
    return settle(d, keepMargin(std::move(c), opt_.policy.maxRedraws), tGen);
  }

  Drawn settle(Drawn &d, DrawnCase drawn, std::chrono::steady_clock::time_point tGen) {
    d.genSeconds = since(tGen);
    d.c = std::move(drawn.c);
    d.redraws = drawn.redraws;
    d.nearBoundary = drawn.nearBoundary;
    d.evaluated = std::move(drawn.evaluated);
    if (d.evaluated) d.genSeconds -= d.evaluated->seconds; // counted as the reference's
    return std::move(d);
  }

  /// Runs one case in the modes of the job (only the first for a re-spec) and files its
  /// failures; true when it passed in every mode it ran in.
  bool runCase(Drawn d, const RunnerSet &runners) {
    Prepared prep = runners.front()->prepare(d.c, std::move(d.evaluated));
    std::vector<CaseResult> results;
    std::vector<Runner *> ran;
    std::vector<size_t> ranAt; // each run's runner index in the job
    for (size_t k = 0; k < (d.respec ? 1 : runners.size()); ++k) {
      if (!shouldRun(d.c, *runners[k], k)) continue;
      results.push_back(runners[k]->run(d.c, prep));
      ran.push_back(runners[k]);
      ranAt.push_back(k);
      std::lock_guard<std::mutex> g(mu_);
      modeSeconds_[k] += results.back().totalSeconds;
      auto &cost = runCost_[results.back().system];
      cost.first += results.back().totalSeconds;
      cost.second++;
    }
    if (guide_.on()) {
      std::vector<std::string> keys;
      for (const auto &r : results) keys.insert(keys.end(), r.pyCoverage.begin(), r.pyCoverage.end());
      guide_.observe(d.c, keys, d.respec || !d.mutant ? nullptr : &*d.mutant, elapsed());
    }
    // The inputs and reference were computed once, for all modes: count them once.
    for (size_t k = 1; k < results.size(); ++k) results[k].referenceSeconds -= prep.seconds;
    tally(d, results);
    LookBehindStats behind;
    CaseLookBehind once;
    for (size_t k = 0; k < ran.size(); ++k) {
      if (!isFailure(results[k].verdict)) continue;
      const FilingReport rep = fileFailure(d.c, results[k], *ran[k], runners, d.origin);
      if (rep.known.empty()) continue;
      const auto look = [&] { return lookBehindOf(d, rep.known, ranAt[k], *ran[k], runners, behind); };
      if (opt_.policy.lookBehind > 0) once.behind(rep.known, look, behind);
      else look(); // off: only counted (the summary's "ended on a filed bug")
    }
    if (behind.runsMet > 0) {
      behind.casesMet = 1;
      behind.casesEnded = behind.runsMet > behind.checkedPast ? 1 : 0;
      std::lock_guard<std::mutex> g(mu_);
      s_.lookBehind.add(behind);
    }
    bool passed = !results.empty();
    for (const auto &r : results) passed = passed && r.verdict == Verdict::Pass;
    return passed;
  }

  /// The case's statistics, and its lines of the case log.
  void tally(const Drawn &d, const std::vector<CaseResult> &results) {
    std::lock_guard<std::mutex> g(mu_);
    s_.cases++;
    if (d.respec) s_.respecCases++;
    else s_.caseIndices.push_back(d.index); // a re-spec runs under its program's index
    s_.coverage.add(d.c);
    s_.phases.generate += d.genSeconds;
    s_.redrawnCases += d.redraws > 0;
    s_.redraws += d.redraws;
    s_.nearBoundary += d.nearBoundary;
    for (const auto &r : results) count(d, r);
    if (opt_.caseLog)
      for (const auto &r : results)
        *opt_.caseLog << d.index << "\t" << d.origin.caseSeed << "\t" << d.origin.size << "\t" << r.system.str() << "\t"
                      << verdictName(r.verdict) << "\t" << (isFinding(r.verdict) ? signatureOf(d.c, r) : "") << "\n";
  }

  /// Look-behind: case `d` ended on the filed bug `known` in `runner`; its re-runs step around it
  /// (look_behind.h), each failure of theirs filed from its own case file.
  bool lookBehindOf(const Drawn &d, const std::string &known, size_t k, Runner &runner, const RunnerSet &job,
                    LookBehindStats &stats) {
    const std::string from = describe(d.origin);
    const LookBehindHooks hooks{
        .timeLeft = [this] { return elapsed() < opt_.seconds && !stopped_; },
        .run = [&](const Case &c) {
          CaseResult r = runner.run(c);
          std::lock_guard<std::mutex> g(mu_);
          s_.phases.add(r);
          // A mode after the first pays for its re-runs out of its share; the first mode's re-runs
          // do not buy the others more time (the share is of the cases' own runs).
          if (k > 0) modeSeconds_[k] += r.totalSeconds;
          return r;
        },
        .file = [&](const Case &c, const CaseResult &r, const Behind &behind, const std::string &how) {
          const CaseOrigin origin{.generated = false, .caseSeed = d.origin.caseSeed, .size = d.origin.size,
                                  .how = "a look-behind re-run of `" + from + "` stepping around a filed bug: " + how};
          return fileFailure(c, r, runner, job, origin, behind);
        }};
    return lookBehind(d.c, known, opt_.policy.lookBehind, hooks, stats, steps_);
  }

  /// Hands a failure to the filing pipeline, and counts what filing it did.
  FilingReport fileFailure(const Case &c, const CaseResult &r, Runner &runner, const RunnerSet &job, const CaseOrigin &origin,
                           const Behind &behind = {}) {
    const FilingReport rep = filing_.file(c, r, runner, job, origin, budget(), behind);
    std::lock_guard<std::mutex> g(mu_);
    s_.setAside += rep.setAside;
    s_.shrinkAttempts += rep.shrinkAttempts;
    s_.shrinkSeconds += rep.shrinkSeconds;
    s_.phases.shrink += rep.shrinkSeconds;
    s_.phases.culprits += rep.culpritSeconds;
    s_.phases.file += rep.fileSeconds;
    if (!rep.filingError.empty()) { // no space, permission, a folder gone: stop after the cases in flight
      if (s_.filingError.empty()) s_.filingError = rep.filingError;
      stopped_ = true;
    }
    // What a filing changed goes into summary.json at once; a hit of a filed bug (a third of all
    // cases) waits for the next periodic checkpoint: each checkpoint writes every case index,
    // synced, and one per hit made the campaign quadratic in its length.
    checkpoint(rep.filedNew || rep.setAside > 0 || !rep.unchecked.empty() || !rep.filingError.empty());
    return rep;
  }

  /// Hands the statistics so far to opt_.checkpoint: at most every kCheckpointSeconds, and after
  /// each filing that changed what the campaign found (`now`), under the pipeline's lock so that
  /// the store is consistent. A checkpoint must not stop the campaign: the driver's own errors
  /// stay there. Caller holds mu_.
  void checkpoint(bool now) {
    if (!opt_.checkpoint || (!now && elapsed() - lastCheckpoint_ < kCheckpointSeconds)) return;
    lastCheckpoint_ = elapsed();
    CampaignStats snap = s_;
    snap.seconds = lastCheckpoint_;
    std::sort(snap.caseIndices.begin(), snap.caseIndices.end());
    snap.unchecked = filing_.unchecked();
    filing_.locked([&] { opt_.checkpoint(snap); });
  }

  /// Whether runner `k` of a job runs this case: not when it cannot batch one of the case's
  /// constructs, and a mode after the first only while it is within its share of the time.
  bool shouldRun(const Case &c, Runner &r, size_t k) {
    const SystemId sys = r.backend().id();
    auto un = opt_.unsupportedIn.find(sys);
    bool skip = false;
    if (un != opt_.unsupportedIn.end())
      for (const auto &f : featuresOf(c))
        if (un->second.count(f)) skip = true;
    std::lock_guard<std::mutex> g(mu_);
    if (!skip && k > 0 && opt_.otherModesShare < 1.0) {
      double total = 0, others = 0;
      for (const auto &[j, secs] : modeSeconds_) (j == 0 ? total : others) += secs;
      total += others;
      skip = others > opt_.otherModesShare * total;
    }
    if (skip) s_.skipped[sys.str()]++;
    return !skip;
  }

  /// The next case index of this shard, or false when the budget is spent (or filing failed).
  /// The end of the budget is kept for the checks of what the last cases find (tailReserve).
  bool next(int64_t &i, const RunnerSet &runners) {
    if (elapsed() >= opt_.seconds - tailReserve(runners) || stopped_) return false;
    int64_t k = nextK_.fetch_add(1);
    i = opt_.shard + k * opt_.shards;
    return opt_.maxCases < 0 || i < opt_.maxCases;
  }

  /// Seconds at the end of --time in which no new case starts: what the checks and confirmation
  /// of a new finding in the job's first mode cost (the filing pipeline's model, from the runs so
  /// far), at most a tenth of --time. Without it, a failure found in the last seconds was kept
  /// unchecked, or filed with its repro.py not confirmed. A --cases campaign keeps none.
  double tailReserve(const RunnerSet &runners) {
    const double cap = 0.1 * opt_.seconds;
    if (opt_.maxCases >= 0 || elapsed() < opt_.seconds - cap) return 0.0; // per case: estimate only near the end
    return std::min(cap, filing_.checksReserve(runners, budget()));
  }

  /// The campaign's clock and cost model, as filing sees them.
  FilingBudget budget() {
    return {.secondsLeft = [this] { return opt_.seconds - elapsed(); },
            .runCost = [this](const SystemId &s) { return runCost(s); }};
  }

  /// One run's verdict and times in the statistics. Caller holds mu_.
  void count(const Drawn &d, const CaseResult &r) {
    s_.runs++;
    s_.phases.add(r);
    s_.byVerdict[static_cast<int>(r.verdict)]++;
    auto &m = s_.byMode[r.system.str()];
    m[static_cast<int>(r.verdict)]++;
    s_.systemSeconds += r.systemSeconds;
    s_.referenceSeconds += r.referenceSeconds;
    s_.secondsByMode[r.system.str()] += r.systemSeconds;
    if (r.verdict == Verdict::Unsupported || r.verdict == Verdict::Invalid)
      s_.uncheckedReasons[r.system.str()][uncheckedReason(std::string(verdictName(r.verdict)), r.summary)]++;
    if (r.verdict == Verdict::Unsupported)
      for (const auto &f : featuresOf(d.c))
        if (isConstruct(f)) s_.unsupported[f + " in " + r.system.str()]++;
    if (r.verdict == Verdict::Invalid) {
      std::string why = std::regex_replace(r.summary.substr(0, 320), std::regex("[0-9]+"), "N");
      if (s_.invalidReasons[why]++ == 0)
        s_.invalidExample[why] = describe(d.origin) + (d.origin.generated ? "" : " (no gen line)");
    }
  }

  /// Where a case came from: its gen line, or what it is.
  std::string describe(const CaseOrigin &o) const { return o.generated ? genCommand(o.caseSeed, o.size, opt_.genFlags) : o.how; }

  /// One line in the log, above the live progress line.
  void say(const std::string &line) {
    std::lock_guard<std::mutex> g(logMu_);
    if (opt_.tty) log_ << "\r\033[K";
    log_ << line << "\n" << std::flush;
  }

  void progress(bool last) {
    const size_t unique = filing_.unique(); // its lock is taken after mu_, never before
    std::lock_guard<std::mutex> g(mu_);
    if (!last) checkpoint(false);
    double now = elapsed();
    if (!last && now - lastPrint_ < (opt_.tty ? 0.5 : 10.0)) return;
    lastPrint_ = now;
    std::string line = progressLine(s_, unique, now) + guide_.brief();
    if (opt_.tty && !last) {
      std::lock_guard<std::mutex> l(logMu_);
      log_ << "\r\033[K" << line << std::flush;
    } else {
      say(line);
    }
  }

  /// Mean seconds of one run of `system` so far (0 before its first).
  double runCost(const SystemId &system) {
    std::lock_guard<std::mutex> g(mu_);
    auto it = runCost_.find(system);
    return it == runCost_.end() || it->second.second == 0 ? 0.0 : it->second.first / it->second.second;
  }

  const CampaignOptions &opt_;
  std::ostream &log_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  std::atomic<int64_t> nextK_{0};
  std::mutex mu_, genMu_, logMu_; ///< statistics; RapidCheck's generation (draw.h); the log (taken last)
  CampaignStats s_;
  Guide guide_;
  double lastPrint_ = 0, lastCheckpoint_ = 0;
  std::atomic<bool> stopped_{false}; ///< a finding could not be filed: no new cases
  std::map<size_t, double> modeSeconds_;               ///< job's runner index -> seconds spent in it (the first: without re-runs)
  std::map<SystemId, std::pair<double, int64_t>> runCost_; ///< system -> seconds and number of its runs
  FilingPipeline filing_;
  StepAroundMemory steps_; ///< which step-around of each filed bug got past it so far
};

} // namespace

std::vector<IdleMode> idleModesOf(const CampaignStats &s) {
  std::map<std::string, int64_t> runs;
  for (const auto &[mode, counts] : s.byMode)
    for (int64_t n : counts) runs[mode] += n;
  return idleModes(runs, s.uncheckedReasons);
}

CampaignStats runCampaign(const CampaignOptions &opt, const std::vector<RunnerSet> &jobs, FindingStore &store,
                          std::ostream &log) {
  if (jobs.empty() || jobs.front().empty()) throw std::invalid_argument("runCampaign: no runners");
  Loop loop(opt, store, log);
  // --time holds for the background repro.py confirmations too: they stop at the deadline.
  store.setDeadline(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                          std::chrono::duration<double>(opt.seconds)));
  std::vector<std::thread> threads;
  std::exception_ptr failure;
  std::mutex failMu;
  for (const auto &set : jobs)
    threads.emplace_back([&, set] {
      try {
        loop.job(set);
      } catch (...) { // surfaced on the main thread, after the others finish
        std::lock_guard<std::mutex> g(failMu);
        if (!failure) failure = std::current_exception();
      }
    });
  for (auto &t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  // New findings' repro.py confirmations ran beside the campaign; wait for the last ones.
  auto tSettle = std::chrono::steady_clock::now();
  std::string settleError;
  try {
    store.settle();
  } catch (const FilingError &e) { // a confirmation's result could not be written
    settleError = e.what();
  }
  store.setDeadline(std::nullopt);
  double settleSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - tSettle).count();
  CampaignStats s = loop.finish();
  if (s.filingError.empty()) s.filingError = settleError;
  s.phases.file += settleSeconds;
  s.jobs = static_cast<int>(jobs.size());
  s.notGenerated = opt.notGenerated;
  s.lookBehindOn = opt.policy.lookBehind > 0;
  return s;
}

CampaignStats runCampaign(const CampaignOptions &opt, Runner &runner, FindingStore &store, std::ostream &log) {
  return runCampaign(opt, std::vector<RunnerSet>{{&runner}}, store, log);
}

} // namespace vf
