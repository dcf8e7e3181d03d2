#include "harness/report/filing.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "harness/report/modes.h"
#include "harness/report/reproduce.h"
#include "harness/report/shrink_finding.h"
#include "harness/report/signature.h"
#include "ir/text.h"

namespace vf {

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

std::string reproduceFor(const CaseOrigin &origin, const FilingOptions &opt, const SystemId &system) {
  return origin.generated ? reproduceLine(origin.caseSeed, origin.size, opt.genFlags, opt.runFlags, system)
                          : replayCommand(opt.runFlags, system, "case.vf");
}

size_t FilingPipeline::unique() {
  std::lock_guard<std::mutex> g(mu_);
  return store_.unique();
}

std::vector<std::string> FilingPipeline::unchecked() {
  std::lock_guard<std::mutex> g(mu_);
  return unchecked_;
}

void FilingPipeline::locked(const std::function<void()> &f) {
  std::lock_guard<std::mutex> g(mu_);
  f();
}

FilingReport FilingPipeline::file(const Case &c, const CaseResult &r, Runner &runner, const RunnerSet &job, const CaseOrigin &origin,
                                  const FilingBudget &budget, const Behind &behind) {
  FilingReport rep;
  const std::string line = reproduceFor(origin, opt_, r.system);
  const Admission a = admit(c, r, job, line, budget, behind);
  if (a.what == Admission::Known) rep.known = a.known;
  if (a.what == Admission::Waits || a.what == Admission::Known) return rep;
  if (a.what == Admission::SetAside) {
    rep.setAside = 1;
    return rep;
  }
  if (a.what == Admission::Unchecked) {
    rep.unchecked = a.unchecked;
    return rep;
  }
  Case filed = c;
  CaseResult filedResult = r;
  std::string note;
  if (a.shrink) std::tie(filed, filedResult) = shrink(c, r, runner, job, a.checks, budget, rep, note);
  const CaseResult confirmed = filedResult; // in the system that found it, before the cross-check
  // A direct-mode finding is run through the public API before it is filed: where it shows
  // there too, the public run is filed (its repro.py calls torch.cond & co.); where the public
  // API rejects the program, the failure is an artefact of calling the op directly: set aside.
  if (a.fresh && isFinding(filedResult.verdict)) {
    std::string why;
    if (!crossCheck(filed, filedResult, job, why)) {
      setAside(a.sig0, why, rep);
      return rep;
    }
  }
  // The filed signature, once, on the shrunk case, through the system it is filed for (the
  // public API's, where the cross-check chose it): one per root cause, the culprit's where one
  // component is (signature.h: signFinding).
  Signature full;
  full.key = a.sig;
  if (a.fresh) {
    Culprits culprits;
    if (opt_.culpritRuns > 0 && isFinding(confirmed.verdict)) {
      culprits = culpritsOf(filed, confirmed, runner, job, opt_.culpritRuns);
      rep.culpritSeconds += culprits.seconds;
    }
    full = signFinding(filed, filedResult, runnerFor(job, filedResult.system, runner), culprits, opt_.ablationProbes);
  }
  record(filed, filedResult, r, a, note, full, origin, behind, rep);
  return rep;
}

FilingPipeline::Admission FilingPipeline::admit(const Case &c, const CaseResult &r, const RunnerSet &job, const std::string &rep,
                                                const FilingBudget &budget, const Behind &behind) {
  // A mismatch is named by its shrunk case's constructs and essential features (ablated once,
  // signature.h), so the cheap signature of an unshrunk one is first mapped through what
  // earlier shrinking and ablation found.
  Admission a;
  a.sig0 = signatureOf(c, r);
  // A look-behind's re-run: a mismatch's cheap signature (its constructs) is the one of the case
  // it stepped from, which an earlier shrink mapped to the bug stepped around. (An error's names
  // its exception and frame: a new bug's differs.)
  if (r.verdict == Verdict::Mismatch)
    for (const auto &s : behind.steppedAround) a.sig0 = "behind " + s + "|" + a.sig0;
  {
    std::lock_guard<std::mutex> g(mu_);
    if (shrinking_.count(a.sig0)) {
      pending_[a.sig0].push_back({c, r, rep});
      a.what = Admission::Waits;
      return a;
    }
    if (setAside_.count(a.sig0)) {
      a.what = Admission::SetAside;
      return a;
    }
    a.sig = shrunkSignature_.count(a.sig0) ? shrunkSignature_[a.sig0] : a.sig0;
    if (behind.around(a.sig) || knownHit(a.sig, r)) { // filed in the known reports: not shrunk (a mismatch: once mapped)
      a.what = Admission::Known;
      a.known = filedUnder(a.sig);
      return a;
    }
    store_.refresh(); // another campaign on the same reports may have filed it meanwhile
    a.fresh = !store_.known(a.sig) && r.verdict != Verdict::HarnessBug;
    a.shrink = opt_.shrink && a.fresh;
  }
  // --time holds, filing included: a new failure whose checks would end past the deadline is
  // kept unchecked for a later replay instead.
  a.checks = a.fresh ? checksCost(r, job, budget) : 0.0;
  std::lock_guard<std::mutex> g(mu_);
  if (shrinking_.count(a.sig0)) { // another job began shrinking it meanwhile
    pending_[a.sig0].push_back({c, r, rep});
    a.what = Admission::Waits;
    return a;
  }
  if (a.fresh && budget.secondsLeft() < a.checks) {
    a.unchecked = keepUnchecked(c, r, a.sig0, rep);
    a.what = Admission::Unchecked;
    return a;
  }
  if (a.shrink) {
    shrinking_.insert(a.sig0);
    say_("shrinking a new " + std::string(verdictName(r.verdict)) + " in " + r.system.str() + " (" +
         std::to_string(c.program.size()) + " statements)...");
  }
  return a;
}

std::pair<Case, CaseResult> FilingPipeline::shrink(const Case &c, const CaseResult &r, Runner &runner, const RunnerSet &job,
                                                   double checks, const FilingBudget &budget, FilingReport &rep, std::string &note) {
  auto ts = std::chrono::steady_clock::now();
  ShrinkStats ss;
  // Shrink in the fastest system of the job that fails the same way (direct before eager
  // before compile: a direct run takes milliseconds), then confirm in the one that found it.
  // Looking for a faster system costs a run in each other mode: only when time is left for it.
  double others = 0;
  for (Runner *x : job) others += x == &runner ? 0.0 : budget.runCost(x->backend().id());
  Runner &fast = budget.secondsLeft() > checks + 2 * others ? fastestThatFailsAlike(c, r, runner, job) : runner;
  const CaseResult fastFound = &fast == &runner ? r : fast.run(c);
  const double candidateCost = budget.runCost(fast.backend().id());
  // The culprit is localised first, where time is left for it, and the shrink keeps it
  // (shrink_finding.h). Stop accepting when a candidate's runs would leave too little time for
  // the checks: the case stays as small as it got, and --time holds, shrinking included.
  const int culpritRuns = budget.secondsLeft() > checks + opt_.culpritRuns * candidateCost ? opt_.culpritRuns : 0;
  const FindingShrink fs = shrinkFinding(c, fastFound, fast, culpritRuns, opt_.maxShrinkAttempts,
                                         [&] { return budget.secondsLeft() >= checks + 2 * candidateCost; });
  Case filed = fs.shrunk;
  ss = fs.stats;
  CaseResult filedResult = r;
  if (ss.accepted > 0) { // the shrunk case is confirmed in the system that found it
    filedResult = runner.run(filed);
    if (filedResult.verdict != r.verdict) { // flaky: file the case as found
      filed = c;
      filedResult = r;
    }
  }
  const double took = since(ts);
  std::ostringstream n;
  n << c.program.size() << " -> " << filed.program.size() << " statements, " << ss.attempts << " attempts, " << std::fixed
    << std::setprecision(1) << took << " s" << (fs.culprit.empty() ? "" : ", keeping culprit " + fs.culprit);
  note = n.str();
  rep.shrinkAttempts += ss.attempts;
  rep.shrinkSeconds += took - fs.before.seconds;
  rep.culpritSeconds += fs.before.seconds;
  return {filed, filedResult};
}

double FilingPipeline::checksCost(const CaseResult &r, const RunnerSet &job, const FilingBudget &budget) const {
  Runner *publicRunner = publicRunnerFor(r.system, job);
  const double own = budget.runCost(r.system);
  const double pub = publicRunner ? budget.runCost(publicRunner->backend().id()) : 0.0;
  // Culprit localisation: a run per component, typically a handful (the cap is rarely reached).
  const double culprits = std::min(opt_.culpritRuns, 8) * own;
  // The ablation: a mismatch's always, an error's where it is localised (signFinding); through
  // a culprit, a probe that still fails costs a second run (failsWithCulprit).
  const bool ablated = r.verdict == Verdict::Mismatch || opt_.culpritRuns > 0;
  // The filed repro.py's confirmation starts only with this much time left (findings.h).
  const double confirm = store_.confirms() ? FindingStore::kMinConfirmSeconds : 0.0;
  return own + pub + culprits + (ablated ? opt_.ablationProbes * std::max(own, pub) : 0.0) + confirm;
}

double FilingPipeline::checksReserve(const RunnerSet &job, const FilingBudget &budget) const {
  if (job.empty()) return 0.0;
  CaseResult r;
  r.verdict = Verdict::Mismatch;
  r.system = job.front()->backend().id();
  return checksCost(r, job, budget);
}

bool FilingPipeline::knownHit(const std::string &sig, const CaseResult &r) {
  if (!opt_.known || r.verdict == Verdict::HarnessBug) return false;
  auto line = opt_.known->hit(sig, std::string(verdictName(r.verdict)), r.system.str());
  if (line && !line->empty()) say_(*line);
  return line.has_value();
}

std::string FilingPipeline::filedUnder(const std::string &sig) const {
  const std::string s = store_.filedUnder(sig);
  return opt_.known && s == sig ? opt_.known->filedUnder(sig) : s;
}

void FilingPipeline::setAside(const std::string &sig0, const std::string &why, FilingReport &rep) {
  std::lock_guard<std::mutex> g(mu_);
  setAside_.insert(sig0);
  rep.setAside += 1 + static_cast<int64_t>(pending_[sig0].size()); // the hits that waited for it are set aside too
  say_("set aside (not a torch bug): " + why);
  pending_.erase(sig0);
  shrinking_.erase(sig0);
}

void FilingPipeline::record(const Case &filed, const CaseResult &filedResult, const CaseResult &found, const Admission &a,
                            const std::string &note, const Signature &full, const CaseOrigin &origin, const Behind &behind,
                            FilingReport &rep) {
  std::lock_guard<std::mutex> g(mu_);
  std::string sig = a.sig;
  if (a.fresh) sig = shrunkSignature_[a.sig0] = full.key;
  if (a.shrink) say_("shrunk: " + note);
  // Never filed under a bug a look-behind stepped around: that bug met again.
  const bool cameBack = behind.around(sig);
  if (cameBack || (a.fresh && knownHit(sig, filedResult))) { // its shrunk, ablated signature is filed in the known reports
    rep.known = filedUnder(sig);
    if (!cameBack)
      for (const auto &p : pending_[a.sig0]) knownHit(sig, p.r);
    pending_.erase(a.sig0);
    shrinking_.erase(a.sig0);
    return;
  }
  auto tFile = std::chrono::steady_clock::now();
  // The public API's run is filed where a direct-mode finding shows there too: replay it there.
  const std::string line = reproduceFor(origin, opt_, filedResult.system);
  // A case no gen line makes (a mutant, a re-spec, a look-behind's re-run) says what it is.
  const std::string said = origin.generated || origin.how.empty() ? note : note + (note.empty() ? "" : "; ") + "the case found is " + origin.how;
  try {
    auto rec = store_.record(filed, filedResult, line, said, full);
    rep.filedNew = rec.isNew;
    if (!rec.isNew) rep.known = filedUnder(sig);
    if (rec.isNew) {
      std::string said = "NEW " + std::string(verdictName(found.verdict)) + " in " + found.system.str() + ": " + found.summary +
                         "\n    -> " + rec.dir;
      if (!rec.standalone.empty()) said += " (standalone repro.py: " + rec.standalone + ")";
      say_(said);
    }
    if (a.shrink)
      for (const auto &p : pending_[a.sig0]) store_.record(p.c, p.r, p.rep, "", sig);
  } catch (const FilingError &e) {
    filingFailed(e, filed, filedResult, a.sig0, line, rep);
  }
  rep.fileSeconds += since(tFile);
  if (a.shrink) {
    pending_.erase(a.sig0);
    shrinking_.erase(a.sig0);
  }
}

void FilingPipeline::filingFailed(const FilingError &e, const Case &c, const CaseResult &r, const std::string &sig0,
                                  const std::string &rep, FilingReport &report) {
  report.filingError = e.what();
  say_(std::string("vmapfuzz: ") + e.what() + "; the campaign stops");
  try {
    report.unchecked = keepUnchecked(c, r, sig0, rep, "which could not be filed (" + std::string(e.what()) + ")");
  } catch (const std::exception &again) {
    say_(std::string("vmapfuzz: cannot keep it unchecked either: ") + again.what());
  }
}

std::string FilingPipeline::keepUnchecked(const Case &c, const CaseResult &r, const std::string &sig0, const std::string &rep,
                                          const std::string &why) {
  std::string where = "(no folder for unchecked cases)";
  if (!opt_.uncheckedDir.empty()) {
    std::filesystem::create_directories(opt_.uncheckedDir);
    // One file per signature.
    where = opt_.uncheckedDir + "/" + std::string(verdictName(r.verdict)) + "-" + fnv1aHex(sig0) + ".vf";
    if (std::find(unchecked_.begin(), unchecked_.end(), where) != unchecked_.end()) return ""; // kept already
    // A direct-mode failure is filed only after its run through the public API: replay both.
    const std::string own = r.system.replayFlag();
    std::string modes = own;
    if (!r.system.isLibtorch() && r.system.exec.direct()) {
      ExecConfig e = r.system.exec;
      e.api = Api::Public;
      modes += "," + e.modeName();
    }
    writeFileAtomic(where, "# " + std::string(verdictName(r.verdict)) + " in " + r.system.str() + ", " + why + "\n"
                               "# " + r.summary.substr(0, 300) + "\n# signature (before those checks): " + sig0 +
                               "\n# found by: " + rep + "\n# shrink it: vmapfuzz shrink" + own +
                               " THIS_FILE\n# check and file it: vmapfuzz replay" + modes + " --reports REPORTS THIS_FILE\n" +
                               printCase(c));
  }
  unchecked_.push_back(where);
  say_("kept unchecked: a new " + std::string(verdictName(r.verdict)) + " in " + r.system.str() + ", " + why + " -> " + where);
  return where;
}

} // namespace vf
