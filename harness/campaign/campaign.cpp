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

#include "harness/campaign/modes.h"
#include "harness/backends/exec_config.h"
#include "harness/report/reproduce.h"
#include "harness/report/signature.h"
#include "harness/report/shrinker.h"
#include "ir/constructs.h"
#include "ir/text.h"

namespace vf {

namespace {

/// A mismatch's ablation makes at most this many runs (findingSignature).
constexpr int kAblationProbes = 32;

std::string progressLine(const CampaignStats &s, const FindingStore &store, double secs) {
  std::ostringstream os;
  int64_t findings = 0;
  for (int v = 0; v < kVerdictCount; ++v)
    if (isFinding(static_cast<Verdict>(v))) findings += s.byVerdict[v];
  os << "#" << s.cases << " exec/s: " << std::fixed << std::setprecision(1) << (secs > 0 ? s.cases / secs : 0.0)
     << " findings: " << findings << " (unique " << store.unique() << ")"
     << " invalid: " << s.byVerdict[static_cast<int>(Verdict::Invalid)]
     << " ambiguous: " << s.byVerdict[static_cast<int>(Verdict::Ambiguous)]
     << " cov: " << s.coverage.brief();
  return os.str();
}

} // namespace

namespace {

/// The loop, shared by the job threads. Generation (RapidCheck keeps global state), the
/// statistics, the store and the log are guarded by mutexes; cases and shrinking run in
/// parallel.
class Loop {
public:
  Loop(const CampaignOptions &opt, FindingStore &store, std::ostream &log)
      : opt_(opt), store_(store), log_(log), guide_(opt.guided) {}

  void job(const RunnerSet &runners) {
    for (int64_t i; next(i);) {
      uint64_t cs = caseSeed(opt_.seed, i);
      int size = caseSize(i);
      Case c;
      double genSeconds;
      int redraws = 0;
      bool nearBoundary = false;
      std::optional<Evaluated> evaluated; // the margin check's last reference run, reused
      std::optional<Mutant> mutant; // coverage guidance: a corpus case or a mutant of one instead
      {
        std::lock_guard<std::mutex> g(genMu_);
        auto tGen = std::chrono::steady_clock::now();
        DrawnCase drawn;
        try {
          mutant = guide_.next(cs, opt_.policy);
          drawn = mutant ? keepMargin(mutant->c, opt_.policy.maxRedraws)
                         : drawCase(cs, size, opt_.policy); // data re-drawn for predicate margins
        } catch (const std::exception &e) { // the generator's own bug: say which case, exit 4
          throw std::logic_error("the generator failed on case " + std::to_string(i) + " (" + genCommand(cs, size, opt_.genFlags) +
                                 "): " + e.what());
        }
        genSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - tGen).count();
        c = std::move(drawn.c);
        redraws = drawn.redraws;
        nearBoundary = drawn.nearBoundary;
        evaluated = std::move(drawn.evaluated);
        if (evaluated) genSeconds -= evaluated->seconds; // counted as the reference's
      }
      const bool passed = runCase(c, std::move(evaluated), runners, false, i, cs, size, mutant ? &*mutant : nullptr, genSeconds,
                                  redraws, nearBoundary);
      // A program that passes runs again with other batch specs and data, where a run is cheap:
      // in the first mode, when it is direct. The program is generated once.
      if (passed && !mutant && opt_.policy.respecsPerPass > 0 && execOfSystem(runners.front()->backend().name()).direct())
        for (int k = 0; k < opt_.policy.respecsPerPass && elapsed() < opt_.seconds; ++k) {
          DrawnCase d;
          {
            std::lock_guard<std::mutex> g(genMu_);
            auto tGen = std::chrono::steady_clock::now();
            d = drawRespec(c, cs, k, size, opt_.policy);
            genSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - tGen).count();
            if (d.evaluated) genSeconds -= d.evaluated->seconds;
          }
          const Mutant respec{d.c, "re-spec of a passing program", 0}; // no gen line: filed as case.vf
          if (!runCase(d.c, std::move(d.evaluated), runners, true, i, cs, size, &respec, genSeconds, d.redraws, d.nearBoundary))
            break;
        }
      progress(false);
    }
  }

  /// Runs one case in the modes of the job (only the first for a re-spec) and files its
  /// failures; true when it passed in every mode it ran in.
  bool runCase(const Case &c, std::optional<Evaluated> evaluated, const RunnerSet &runners, bool respec, int64_t i,
               uint64_t cs, int size, const Mutant *mutant, double genSeconds, int redraws, bool nearBoundary) {
    Prepared prep = runners.front()->prepare(c, std::move(evaluated));
    std::vector<CaseResult> results;
    std::vector<Runner *> ran;
    for (size_t k = 0; k < (respec ? 1 : runners.size()); ++k) {
      if (!shouldRun(c, *runners[k], k)) continue;
      results.push_back(runners[k]->run(c, prep));
      ran.push_back(runners[k]);
      std::lock_guard<std::mutex> g(mu_);
      modeSeconds_[k] += results.back().totalSeconds;
      auto &cost = runCost_[results.back().system];
      cost.first += results.back().totalSeconds;
      cost.second++;
    }
    if (guide_.on()) {
      std::vector<std::string> keys;
      for (const auto &r : results) keys.insert(keys.end(), r.pyCoverage.begin(), r.pyCoverage.end());
      guide_.observe(c, keys, respec ? nullptr : mutant, elapsed());
    }
    // The inputs and reference were computed once, for all modes: count them once.
    for (size_t k = 1; k < results.size(); ++k) results[k].referenceSeconds -= prep.seconds;
    {
      std::lock_guard<std::mutex> g(mu_);
      s_.cases++;
      if (respec) s_.respecCases++;
      else s_.caseIndices.push_back(i); // a re-spec runs under its program's index
      s_.coverage.add(c);
      s_.phases.generate += genSeconds;
      s_.redrawnCases += redraws > 0;
      s_.redraws += redraws;
      s_.nearBoundary += nearBoundary;
      for (const auto &r : results) count(c, r, cs, size, mutant);
      if (opt_.caseLog)
        for (const auto &r : results)
          *opt_.caseLog << i << "\t" << cs << "\t" << size << "\t" << r.system << "\t" << verdictName(r.verdict) << "\t"
                        << (isFinding(r.verdict) ? signatureOf(c, r) : "") << "\n";
    }
    for (size_t k = 0; k < ran.size(); ++k)
      if (isFailure(results[k].verdict))
        file(c, results[k], *ran[k], runners, cs, size, mutant != nullptr);
    bool passed = !results.empty();
    for (const auto &r : results) passed = passed && r.verdict == Verdict::Pass;
    return passed;
  }

  CampaignStats finish() {
    s_.seconds = elapsed();
    if (guide_.on()) s_.guided = guide_.stats();
    std::sort(s_.caseIndices.begin(), s_.caseIndices.end());
    progress(true);
    return s_;
  }

private:
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }

  /// Whether runner `k` of a job runs this case: not when it cannot batch one of the case's
  /// constructs, and a mode after the first only while it is within its share of the time.
  bool shouldRun(const Case &c, Runner &r, size_t k) {
    const std::string sys = r.backend().name();
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
    if (skip) s_.skipped[sys]++;
    return !skip;
  }

  /// The next case index of this shard, or false when the budget is spent.
  bool next(int64_t &i) {
    if (elapsed() >= opt_.seconds) return false;
    int64_t k = nextK_.fetch_add(1);
    i = opt_.shard + k * opt_.shards;
    return opt_.maxCases < 0 || i < opt_.maxCases;
  }

  void count(const Case &c, const CaseResult &r, uint64_t cs, int size, const Mutant *mutant) {
    s_.runs++;
    s_.phases.add(r);
    s_.byVerdict[static_cast<int>(r.verdict)]++;
    auto &m = s_.byMode[r.system];
    m[static_cast<int>(r.verdict)]++;
    s_.systemSeconds += r.systemSeconds;
    s_.referenceSeconds += r.referenceSeconds;
    s_.secondsByMode[r.system] += r.systemSeconds;
    if (r.verdict == Verdict::Unsupported)
      for (const auto &f : featuresOf(c))
        if (isConstruct(f)) s_.unsupported[f + " in " + r.system]++;
    if (r.verdict == Verdict::Invalid) {
      std::string why = std::regex_replace(r.summary.substr(0, 320), std::regex("[0-9]+"), "N");
      if (s_.invalidReasons[why]++ == 0)
        s_.invalidExample[why] = mutant ? "a " + mutant->how + " mutant of a corpus case (no gen line)" : genCommand(cs, size, opt_.genFlags);
    }
  }

  /// One line in the log, above the live progress line.
  void say(const std::string &line) {
    if (opt_.tty) log_ << "\r\033[K";
    log_ << line << "\n" << std::flush;
  }

  void progress(bool last) {
    std::lock_guard<std::mutex> g(mu_);
    double now = elapsed();
    if (!last && now - lastPrint_ < (opt_.tty ? 0.5 : 10.0)) return;
    lastPrint_ = now;
    std::string line = progressLine(s_, store_, now) + guide_.brief();
    if (opt_.tty && !last) log_ << "\r\033[K" << line << std::flush;
    else say(line);
  }

  struct Pending {
    Case c;
    CaseResult r;
    std::string rep;
  };

  /// Shrinks a new finding (outside the lock, so other jobs go on) and files it; a finding that
  /// arrives while the same signature is being shrunk waits in `pending_` and is counted after.
  void file(const Case &c, const CaseResult &r, Runner &runner, const RunnerSet &job, uint64_t cs, int size,
            bool mutant) {
    // A corpus case or a mutant has no gen line: its reproduce line replays the filed case.vf.
    auto reproduce = [&](const std::string &system) {
      return mutant ? replayCommand(opt_.runFlags, system, "case.vf")
                    : reproduceLine(cs, size, opt_.genFlags, opt_.runFlags, system);
    };
    const std::string rep = reproduce(r.system);
    // A mismatch is named by its shrunk case's constructs and essential features (ablated once,
    // signature.h), so the cheap signature of an unshrunk one is first mapped through what
    // earlier shrinking and ablation found.
    const std::string sig0 = signatureOf(c, r);
    std::string sig;
    bool shrink = false, fresh = false;
    {
      std::lock_guard<std::mutex> g(mu_);
      if (shrinking_.count(sig0)) {
        pending_[sig0].push_back({c, r, rep});
        return;
      }
      if (setAside_.count(sig0)) {
        s_.setAside++;
        return;
      }
      sig = shrunkSignature_.count(sig0) ? shrunkSignature_[sig0] : sig0;
      if (knownHit(sig, r)) return; // filed in the known reports: not shrunk (a mismatch: once mapped)
      fresh = !store_.known(sig) && r.verdict != Verdict::HarnessBug;
      shrink = opt_.shrink && fresh;
    }
    // --time holds, filing included: a new failure whose checks would end past the deadline is
    // kept unchecked for a later replay instead.
    const double checks = fresh ? checksCost(r, job) : 0.0;
    {
      std::lock_guard<std::mutex> g(mu_);
      if (shrinking_.count(sig0)) { // another job began shrinking it meanwhile
        pending_[sig0].push_back({c, r, rep});
        return;
      }
      if (fresh && left() < checks) {
        keepUnchecked(c, r, sig0, rep);
        return;
      }
      if (shrink) {
        shrinking_.insert(sig0);
        say("shrinking a new " + std::string(verdictName(r.verdict)) + " in " + r.system + " (" +
            std::to_string(c.program.size()) + " statements)...");
      }
    }
    Case filed = c;
    CaseResult filedResult = r;
    std::string note;
    if (shrink) {
      auto ts = std::chrono::steady_clock::now();
      ShrinkStats ss;
      // Shrink in the fastest system of the job that fails the same way (direct before eager
      // before compile: a direct run takes milliseconds), then confirm in the one that found it.
      // Looking for a faster system costs a run in each other mode: only when time is left for it.
      double others = 0;
      {
        std::lock_guard<std::mutex> g(mu_);
        for (Runner *x : job) others += x == &runner ? 0.0 : runCost(x->backend().name());
      }
      Runner &fast = left() > checks + 2 * others ? fastestThatFailsAlike(c, r, runner, job) : runner;
      const CaseResult fastFound = &fast == &runner ? r : fast.run(c);
      double candidateCost;
      {
        std::lock_guard<std::mutex> g(mu_);
        candidateCost = runCost(fast.backend().name());
      }
      filed = shrinkCase(c, [&](const Case &cand) {
        // Stop accepting when a candidate's run would leave too little time for the checks: the
        // case stays as small as it got, and --time holds, shrinking included.
        if (left() < checks + candidateCost) return false;
        return failsTheSameWay(fastFound, fast.run(cand));
      }, &ss, opt_.maxShrinkAttempts);
      if (ss.accepted > 0) { // the shrunk case is confirmed in the system that found it
        filedResult = runner.run(filed);
        if (filedResult.verdict != r.verdict) { // flaky: file the case as found
          filed = c;
          filedResult = r;
        }
      }
      double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - ts).count();
      std::ostringstream n;
      n << c.program.size() << " -> " << filed.program.size() << " statements, " << ss.attempts << " attempts, "
        << std::fixed << std::setprecision(1) << took << " s";
      note = n.str();
      std::lock_guard<std::mutex> g(mu_);
      s_.shrinkAttempts += ss.attempts;
      s_.shrinkSeconds += took;
      s_.phases.shrink += took;
    }
    // A direct-mode finding is run through the public API before it is filed: where it shows
    // there too, the public run is filed (its repro.py calls torch.cond & co.); where the public
    // API rejects the program, the failure is an artefact of calling the op directly: set aside.
    if (fresh && isFinding(filedResult.verdict)) {
      std::string why;
      if (!crossCheck(filed, filedResult, job, why)) {
        std::lock_guard<std::mutex> g(mu_);
        setAside_.insert(sig0);
        s_.setAside++;
        say("set aside (not a torch bug): " + why);
        for (const auto &p : pending_[sig0]) (void)p, s_.setAside++;
        pending_.erase(sig0);
        shrinking_.erase(sig0);
        return;
      }
    }
    // The filed signature: a mismatch's essential features ablated once, on the shrunk case,
    // through the system it is filed for (the public API's, where the cross-check chose it).
    Signature full;
    full.key = sig;
    if (fresh) full = findingSignature(filed, filedResult, runnerFor(job, filedResult.system, runner), kAblationProbes);
    std::lock_guard<std::mutex> g(mu_);
    if (fresh) sig = shrunkSignature_[sig0] = full.key;
    if (shrink) say("shrunk: " + note);
    if (fresh && knownHit(sig, filedResult)) { // its shrunk, ablated signature is filed in the known reports
      for (const auto &p : pending_[sig0]) knownHit(sig, p.r);
      pending_.erase(sig0);
      shrinking_.erase(sig0);
      return;
    }
    auto tFile = std::chrono::steady_clock::now();
    // The public API's run is filed where a direct-mode finding shows there too: replay it there.
    auto rec = store_.record(filed, filedResult, filedResult.system == r.system ? rep : reproduce(filedResult.system), note, full);
    s_.phases.file += std::chrono::duration<double>(std::chrono::steady_clock::now() - tFile).count();
    if (rec.isNew) {
      std::string line = "NEW " + std::string(verdictName(r.verdict)) + " in " + r.system + ": " + r.summary + "\n    -> " + rec.dir;
      if (!rec.standalone.empty()) line += " (standalone repro.py: " + rec.standalone + ")";
      say(line);
    }
    if (shrink) {
      for (const auto &p : pending_[sig0]) store_.record(p.c, p.r, p.rep, "", sig);
      pending_.erase(sig0);
      shrinking_.erase(sig0);
    }
  }

  /// Counts a hit of a signature filed in the known reports (CampaignOptions::known), saying so
  /// the first time; true when it is filed there. Caller holds mu_.
  bool knownHit(const std::string &sig, const CaseResult &r) {
    if (!opt_.known || r.verdict == Verdict::HarnessBug) return false;
    auto line = opt_.known->hit(sig, std::string(verdictName(r.verdict)), r.system);
    if (line && !line->empty()) say(*line);
    return line.has_value();
  }

  /// Mean seconds of one run of `system` so far (0 before its first). Caller holds mu_.
  double runCost(const std::string &system) const {
    auto it = runCost_.find(system);
    return it == runCost_.end() || it->second.second == 0 ? 0.0 : it->second.first / it->second.second;
  }

  /// What a new finding's checks after shrinking cost, from the mean run times so far: the re-run
  /// of the shrunk case, a direct-mode finding's run through the public API, and a mismatch's
  /// ablation (at most kAblationProbes runs of the slower of the two).
  double checksCost(const CaseResult &r, const RunnerSet &job) {
    Runner *publicRunner = publicRunnerFor(r.system, job);
    std::lock_guard<std::mutex> g(mu_);
    const double own = runCost(r.system);
    const double pub = publicRunner ? runCost(publicRunner->backend().name()) : 0.0;
    return own + pub + (r.verdict == Verdict::Mismatch ? kAblationProbes * std::max(own, pub) : 0.0);
  }

  /// Seconds of the campaign left.
  double left() const { return opt_.seconds - elapsed(); }

  /// Keeps a new failure unchecked, as a case file that `vmapfuzz replay --reports` checks and
  /// files, when the deadline leaves no time for its checks. Caller holds mu_.
  void keepUnchecked(const Case &c, const CaseResult &r, const std::string &sig0, const std::string &rep) {
    std::string where = "(no folder for unchecked cases)";
    if (!opt_.uncheckedDir.empty()) {
      std::filesystem::create_directories(opt_.uncheckedDir);
      // One file per signature.
      where = opt_.uncheckedDir + "/" + std::string(verdictName(r.verdict)) + "-" + fnv1aHex(sig0) + ".vf";
      // A direct-mode failure is filed only after its run through the public API: replay both.
      ExecConfig e = execOfSystem(r.system);
      const std::string own = e.modeName();
      std::string modes = own;
      if (e.direct()) {
        e.api = Api::Public;
        modes += "," + e.modeName();
      }
      if (std::find(s_.unchecked.begin(), s_.unchecked.end(), where) != s_.unchecked.end()) return;
      writeFileAtomic(where, "# " + std::string(verdictName(r.verdict)) + " in " + r.system +
                                 ", found with too little of the campaign's time left to shrink, cross-check and file it\n"
                                 "# " + r.summary.substr(0, 300) + "\n# signature (before those checks): " + sig0 +
                                 "\n# found by: " + rep + "\n# shrink it: vmapfuzz shrink --mode " + own +
                                 " THIS_FILE\n# check and file it: vmapfuzz replay --mode " + modes + " --reports REPORTS THIS_FILE\n" +
                                 printCase(c));
    }
    s_.unchecked.push_back(where);
    say("kept unchecked (the time is up): a new " + std::string(verdictName(r.verdict)) + " in " + r.system + " -> " + where);
  }

  const CampaignOptions &opt_;
  FindingStore &store_;
  std::ostream &log_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  std::atomic<int64_t> nextK_{0};
  std::mutex mu_, genMu_;
  CampaignStats s_;
  Guide guide_;
  double lastPrint_ = 0;
  std::map<std::string, std::string> shrunkSignature_; ///< signature found -> signature filed
  std::set<std::string> setAside_;                     ///< signatures found that are not torch bugs
  std::map<size_t, double> modeSeconds_;               ///< job's runner index -> seconds spent in it
  std::map<std::string, std::pair<double, int64_t>> runCost_; ///< system -> seconds and number of its runs
  std::set<std::string> shrinking_;
  std::map<std::string, std::vector<Pending>> pending_;
};

} // namespace

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
  store.settle();
  store.setDeadline(std::nullopt);
  double settleSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - tSettle).count();
  CampaignStats s = loop.finish();
  s.phases.file += settleSeconds;
  s.jobs = static_cast<int>(jobs.size());
  s.notGenerated = opt.notGenerated;
  return s;
}

CampaignStats runCampaign(const CampaignOptions &opt, Runner &runner, FindingStore &store, std::ostream &log) {
  return runCampaign(opt, std::vector<RunnerSet>{{&runner}}, store, log);
}

void printSummary(const CampaignStats &s, const FindingStore &store, std::ostream &os) {
  os << "\n== vmapfuzz summary ==\n";
  os << "cases: " << s.cases << " in " << std::fixed << std::setprecision(1) << s.seconds << " s ("
     << (s.seconds > 0 ? s.cases / s.seconds : 0.0) << " exec/s); reference " << s.referenceSeconds << " s, torch "
     << s.systemSeconds << " s";
  if (s.shrinkAttempts) os << "; shrinking " << s.shrinkSeconds << " s (" << s.shrinkAttempts << " attempts)";
  os << "\n";
  s.phases.print(os, s.seconds, s.jobs);
  if (s.byMode.size() <= 1) {
    os << "verdicts:\n";
    for (int v = 0; v < kVerdictCount; ++v)
      os << "  " << std::left << std::setw(14) << verdictName(static_cast<Verdict>(v)) << std::right << std::setw(8)
         << s.byVerdict[v] << "\n";
  } else {
    // One column per mode: a case that passes in one mode and fails in another shows here.
    os << "verdicts per mode (" << s.runs << " runs):\n  " << std::setw(14) << "";
    for (const auto &[mode, counts] : s.byMode) os << std::setw(std::max<int>(10, mode.size() + 2)) << mode;
    os << "\n";
    for (int v = 0; v < kVerdictCount; ++v) {
      os << "  " << std::left << std::setw(14) << verdictName(static_cast<Verdict>(v)) << std::right;
      for (const auto &[mode, counts] : s.byMode) os << std::setw(std::max<int>(10, mode.size() + 2)) << counts[v];
      os << "\n";
    }
    os << "  " << std::left << std::setw(14) << "torch s" << std::right;
    for (const auto &[mode, counts] : s.byMode)
      os << std::setw(std::max<int>(10, mode.size() + 2)) << std::setprecision(1) << s.secondsByMode.at(mode);
    os << "\n";
  }
  if (s.respecCases)
    os << "re-specs of passing programs (respecs_per_pass): " << s.respecCases << " of the " << s.cases
       << " cases ran a program that had passed with another batch spec and data\n";
  os << "re-drawn for predicate margins: " << s.redrawnCases << " cases (" << s.redraws << " re-draws); "
     << s.nearBoundary << " still near a boundary\n";
  os << "coverage (cases exercising each feature):\n";
  for (const auto &row : Coverage::rows()) {
    auto it = s.coverage.counts().find(row);
    os << "  " << std::left << std::setw(20) << row << std::right << std::setw(8)
       << (it == s.coverage.counts().end() ? 0 : it->second) << "\n";
  }
  for (const auto &[sys, n] : s.skipped) os << "not run in " << sys << ": " << n << " cases (its time share, or a construct it cannot batch)\n";
  if (!s.notGenerated.empty()) {
    os << "not generated (no batching rule in any mode, found by the start-up probes; --gen keep_unsupported=1 keeps them):";
    for (const auto &c : s.notGenerated) os << " " << c;
    os << "\n";
  }
  if (!s.guided.table.empty()) printGuided(s.guided, os);
  if (!s.unchecked.empty()) {
    os << "kept unchecked (found with too little time left to shrink, cross-check and file; `vmapfuzz replay "
          "--reports DIR FILE` checks and files them): "
       << s.unchecked.size() << "\n";
    for (const auto &f : s.unchecked) os << "  " << f << "\n";
  }
  if (s.setAside) os << "set aside: " << s.setAside << " direct-mode failures whose programs the public API rejects (not torch bugs)\n";
  if (!s.unsupported.empty()) {
    // Capability matrix: one line per construct, not one finding per case.
    os << "unsupported under vmap (runs per construct and mode in programs torch has no batching rule for):\n";
    for (const auto &[construct, n] : s.unsupported) os << "  " << construct << " " << n << "\n";
  }
  if (!s.invalidReasons.empty()) {
    std::vector<std::pair<int64_t, std::string>> top;
    for (const auto &[why, n] : s.invalidReasons) top.emplace_back(-n, why);
    std::sort(top.begin(), top.end());
    os << "invalid programs, most common reasons:\n";
    for (size_t i = 0; i < top.size() && i < 5; ++i) {
      os << "  " << -top[i].first << "x " << top[i].second << "\n";
      auto ex = s.invalidExample.find(top[i].second);
      if (ex != s.invalidExample.end()) os << "      first case: " << ex->second << "\n";
    }
    if (top.size() > 5) {
      int64_t rest = 0;
      for (size_t i = 5; i < top.size(); ++i) rest -= top[i].first;
      os << "  ... and " << top.size() - 5 << " more reasons (" << rest << " cases)\n";
    }
  }
  if (store.unique() == 0) {
    os << "findings: none\n";
    return;
  }
  os << "findings (" << store.unique() << " unique, " << store.newCount() << " new):\n";
  for (const auto &[sig, rec] : store.all()) {
    if (rec.hitsNow == 0) continue;
    os << "  " << (rec.isNew ? "NEW   " : "known ") << rec.hitsNow << "x " << sig << "\n     " << rec.dir;
    if (!rec.standalone.empty()) os << "  [standalone repro.py: " << rec.standalone << "]";
    os << "\n";
  }
}

} // namespace vf
