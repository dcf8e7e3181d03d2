#include "harness/campaign/selftest.h"

#include <chrono>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "harness/backends/exec_config.h"
#include "harness/campaign/draw.h"
#include "harness/report/reproduce.h"
#include "harness/report/shrinker.h"
#include "harness/run/runner.h"
#include "ir/text.h"

namespace vf {

namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

namespace {

/// One fault's campaign: cases with the fault planted until one is killed, shrunk while it stays
/// killed. Killed: a finding with the fault planted that clean torch does not share.
class FaultCampaign {
public:
  FaultCampaign(const std::string &fault, const SelftestOptions &opt, Backend &faulty, Backend &clean, FaultResult &res)
      : fault_(fault), opt_(opt), faulty_(faulty), clean_(clean), res_(res), guide_(opt.guided) {}

  void run() {
    const bool direct = faulty_.backend().id().exec.direct();
    for (int64_t i = 0; opt_.casesPerFault < 0 || res_.cases < opt_.casesPerFault; ++i) {
      if (since(t0_) >= opt_.secondsPerFault) break;
      uint64_t cs = caseSeed(opt_.seed, i);
      int size = caseSize(i);
      auto tg = std::chrono::steady_clock::now();
      std::optional<Mutant> mutant = guide_.next(cs, opt_.policy);
      // The campaign's draw: the reproduce line regenerates it.
      Case c = mutant ? keepMargin(mutant->c, opt_.policy.maxRedraws).c : drawCase(cs, size, opt_.policy).c;
      res_.phases.generate += since(tg);
      int got = detects(c, cs, size, !mutant);
      if (got > 0) break;
      // As in a campaign: a passing program runs again with other batch specs (direct mode).
      for (int k = 0; got == 0 && !mutant && direct && k < opt_.policy.respecsPerPass; ++k) {
        if (since(t0_) >= opt_.secondsPerFault || (opt_.casesPerFault >= 0 && res_.cases >= opt_.casesPerFault)) break;
        tg = std::chrono::steady_clock::now();
        Case again = drawRespec(c, cs, k, size, opt_.policy).c;
        res_.phases.generate += since(tg);
        got = detects(again, cs, size, false);
      }
      if (res_.detected) break;
    }
    if (!res_.detected) res_.seconds = since(t0_);
  }

private:
  const std::string &fault_;
  const SelftestOptions &opt_;
  Runner faulty_, clean_;
  FaultResult &res_;
  Guide guide_; ///< each fault's campaign grows its own corpus
  const std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();

  /// (Runs while shrinking count as shrinking only: `account` false.)
  bool killed(const Case &c, const CaseResult &r, bool account) {
    if (!isFinding(r.verdict)) return false;
    CaseResult cr = clean_.run(c);
    if (account) res_.phases.add(cr);
    return cr.verdict == Verdict::Pass;
  }

  /// One case: run with the fault planted; a detection is shrunk and ends the fault's campaign
  /// (1; 0 a pass, -1 anything else). A corpus mutant or a re-spec has no gen line: it is
  /// replayed from OUT/<fault>.vf.
  int detects(const Case &c, uint64_t cs, int size, bool generated) {
    CaseResult r = faulty_.run(c);
    res_.phases.add(r);
    res_.cases++;
    if (guide_.on()) guide_.observe(c, r.pyCoverage, nullptr, since(t0_));
    if (!killed(c, r, true)) {
      if (isFinding(r.verdict)) res_.findingsClean++;
      return r.verdict == Verdict::Pass ? 0 : -1;
    }
    res_.detected = true;
    res_.seconds = since(t0_);
    res_.verdict = std::string(verdictName(r.verdict));
    res_.summary = r.summary;
    res_.sizeFound = res_.sizeShrunk = c.program.size();
    const std::string runFlags = flagWords("--fault", {fault_});
    res_.reproduce = generated ? reproduceLine(cs, size, opt_.genFlags, runFlags, r.system) : replayCommand(runFlags, r.system, fault_ + ".vf");
    const Case shrunk = opt_.shrink ? shrink(c, r) : c;
    res_.shrunkCase = printCase(shrunk);
    if (opt_.culpritRuns > 0) localise(shrunk, r);
    return 1;
  }

  /// Which component the detecting case needs, with the fault planted (the shrunk case re-run:
  /// localisation compares with how it fails now).
  void localise(const Case &shrunk, const CaseResult &found) {
    const auto t = std::chrono::steady_clock::now();
    const CaseResult now = faulty_.run(shrunk);
    if (now.verdict == found.verdict) res_.culprits = findCulprits(shrunk, now, faulty_, opt_.culpritRuns); // else flaky
    res_.phases.culprits += since(t);
  }

  /// Shrinking keeps what makes it a detection: a finding with the fault, a pass without.
  Case shrink(const Case &c, const CaseResult &r) {
    auto ts = std::chrono::steady_clock::now();
    ShrinkStats ss;
    Case shrunk = shrinkCase(c, [&](const Case &cand) {
      if (since(ts) > 120) return false;
      CaseResult fr = faulty_.run(cand);
      return fr.verdict == r.verdict && killed(cand, fr, false);
    }, &ss, opt_.maxShrinkAttempts);
    res_.shrinkSeconds = since(ts);
    res_.shrinkAttempts = ss.attempts;
    res_.phases.shrink += res_.shrinkSeconds;
    res_.sizeShrunk = shrunk.program.size();
    return shrunk;
  }
};

} // namespace

FaultResult runFaultCampaign(const FaultInfo &info, const SelftestOptions &opt, const BackendFactory &make,
                             Backend &clean, std::ostream &log) {
  const std::string &fault = info.name;
  FaultResult res;
  res.fault = fault;
  res.plantedIn = info.component;
  std::unique_ptr<Backend> faulty;
  try {
    faulty = make(fault == kNoFault ? std::vector<std::string>{} : std::vector<std::string>{fault});
  } catch (const std::exception &e) {
    res.planted = false;
    res.error = e.what();
    return res;
  }
  FaultCampaign(fault, opt, *faulty, clean, res).run();
  log << "selftest: " << fault << ": " << (res.detected ? "detected" : "not detected") << " after " << res.cases
      << " cases, " << std::fixed << std::setprecision(1) << res.seconds << " s";
  if (res.detected) log << " (" << res.verdict << ": " << res.summary.substr(0, 160) << ")";
  if (!res.culprits.tried.empty()) log << "; culprit: " << res.culprits.sentence();
  log << "\n" << std::flush;
  return res;
}

namespace {

/// The table's last two cells: where the fault is planted, and what localisation named (✓ when
/// it is that component alone).
std::string culpritCells(const FaultResult &r) {
  std::string named = r.culprits.tried.empty() ? "(not localised)"
                      : r.culprits.culprits.empty() ? "none of " + std::to_string(r.culprits.tried.size())
                                                    : "";
  for (size_t i = 0; i < r.culprits.culprits.size(); ++i) named += (i ? ", " : "") + r.culprits.culprits[i];
  if (culpritIsPlanted(r)) named += " ✓";
  return (r.plantedIn.empty() ? "" : r.plantedIn) + " | " + named;
}

} // namespace

void printSelftestTable(const std::vector<FaultResult> &results, std::ostream &os) {
  os << "| fault | detected | time to first detection | cases to first detection | verdict | statements found → shrunk | shrinking | "
        "planted in | culprit named |\n";
  os << "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto &r : results) {
    os << "| " << r.fault << " | ";
    if (!r.planted) {
      os << "not planted: " << r.error.substr(0, 200) << " | | | | | | | |\n";
      continue;
    }
    os << std::fixed << std::setprecision(1);
    if (r.detected)
      os << "yes | " << r.seconds << " s | " << r.cases << " | " << r.verdict << " | " << r.sizeFound << " → "
         << r.sizeShrunk << " | " << r.shrinkAttempts << " attempts, " << r.shrinkSeconds << " s | " << culpritCells(r) << " |\n";
    else
      os << "**no** | (budget: " << r.seconds << " s) | (" << r.cases << " run) | | | | " << r.plantedIn << " | |\n";
  }
  int real = 0, detected = 0, falseAlarms = 0;
  for (const auto &r : results) {
    if (r.fault == kNoFault) {
      falseAlarms += r.detected;
      continue;
    }
    ++real;
    detected += r.detected;
  }
  int localised = 0, planted = 0;
  for (const auto &r : results)
    if (r.detected && !r.plantedIn.empty() && !r.culprits.tried.empty()) {
      ++planted;
      localised += culpritIsPlanted(r);
    }
  os << "\n" << detected << " of " << real << " faults detected";
  if (real) os << " (" << std::setprecision(0) << 100.0 * detected / real << " %)";
  for (const auto &r : results)
    if (r.fault == kNoFault) os << "; control run with no fault: " << (falseAlarms ? "DETECTED (false alarm)" : "nothing detected");
  if (planted) os << "; culprit localisation named the planted component alone for " << localised << " of " << planted;
  os << "\n";
}

bool selftestTargetMet(const std::vector<FaultResult> &results, double targetRate) {
  int real = 0, detected = 0;
  for (const auto &r : results) {
    if (r.fault == kNoFault) {
      if (r.detected || !r.planted) return false;
      continue;
    }
    ++real;
    detected += r.detected;
  }
  return real == 0 || detected >= targetRate * real - 1e-9;
}

std::vector<FaultInfo> listFaults(const std::string &python, const std::string &faultsScript) {
  std::string cmd = "'" + python + "' '" + faultsScript + "' 2>&1";
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + python);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int st = pclose(p);
  if (st != 0) throw std::runtime_error("cannot list the faults (" + cmd + "): " + out.substr(0, 2000));
  std::vector<FaultInfo> faults;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    auto tab = line.find('\t');
    if (tab == std::string::npos) continue; // warnings and such
    auto tab2 = line.find('\t', tab + 1);
    faults.push_back({line.substr(0, tab), line.substr(tab + 1, tab2 == std::string::npos ? std::string::npos : tab2 - tab - 1),
                      tab2 == std::string::npos ? "" : line.substr(tab2 + 1)});
  }
  if (faults.empty()) throw std::runtime_error("no faults listed by " + faultsScript + ": " + out.substr(0, 2000));
  return faults;
}

} // namespace vf
