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

FaultResult runFaultCampaign(const std::string &fault, const SelftestOptions &opt, const BackendFactory &make,
                             Backend &clean, std::ostream &log) {
  FaultResult res;
  res.fault = fault;
  std::unique_ptr<Backend> faulty;
  try {
    faulty = make(fault == kNoFault ? std::vector<std::string>{} : std::vector<std::string>{fault});
  } catch (const std::exception &e) {
    res.planted = false;
    res.error = e.what();
    return res;
  }
  Runner faultyRunner(*faulty), cleanRunner(clean);
  // Killed: a finding with the fault planted that clean torch does not share.
  // (Runs while shrinking count as shrinking only.)
  auto killed = [&](const Case &c, const CaseResult &r, bool account) {
    if (!isFinding(r.verdict)) return false;
    CaseResult cr = cleanRunner.run(c);
    if (account) res.phases.add(cr);
    return cr.verdict == Verdict::Pass;
  };
  auto t0 = std::chrono::steady_clock::now();
  Guide guide(opt.guided); // each fault's campaign grows its own corpus
  const bool direct = execOfSystem(faulty->name()).direct();
  // One case: run with the fault planted; a detection is shrunk and ends the fault's campaign.
  // A corpus mutant or a re-spec has no gen line: it is replayed from OUT/<fault>.vf.
  auto detects = [&](const Case &c, uint64_t cs, int size, bool generated) {
    CaseResult r = faultyRunner.run(c);
    res.phases.add(r);
    res.cases++;
    if (guide.on()) guide.observe(c, r.pyCoverage, nullptr, since(t0));
    if (!killed(c, r, true)) {
      if (isFinding(r.verdict)) res.findingsClean++;
      return r.verdict == Verdict::Pass ? 0 : -1;
    }
    res.detected = true;
    res.seconds = since(t0);
    res.verdict = std::string(verdictName(r.verdict));
    res.summary = r.summary;
    res.sizeFound = res.sizeShrunk = c.program.size();
    res.reproduce = generated ? reproduceLine(cs, size, opt.genFlags, runFlagsOf({fault}, false), r.system)
                              : replayCommand(runFlagsOf({fault}, false), r.system, fault + ".vf");
    Case shrunk = c;
    if (opt.shrink) {
      auto ts = std::chrono::steady_clock::now();
      ShrinkStats ss;
      // Shrinking keeps what makes it a detection: a finding with the fault, a pass without.
      shrunk = shrinkCase(c, [&](const Case &cand) {
        if (since(ts) > 120) return false;
        CaseResult fr = faultyRunner.run(cand);
        return fr.verdict == r.verdict && killed(cand, fr, false);
      }, &ss, opt.maxShrinkAttempts);
      res.shrinkSeconds = since(ts);
      res.shrinkAttempts = ss.attempts;
      res.phases.shrink += res.shrinkSeconds;
      res.sizeShrunk = shrunk.program.size();
    }
    res.shrunkCase = printCase(shrunk);
    return 1;
  };
  for (int64_t i = 0; opt.casesPerFault < 0 || res.cases < opt.casesPerFault; ++i) {
    if (since(t0) >= opt.secondsPerFault) break;
    uint64_t cs = caseSeed(opt.seed, i);
    int size = caseSize(i);
    auto tg = std::chrono::steady_clock::now();
    std::optional<Mutant> mutant = guide.next(cs, opt.policy);
    // The campaign's draw: the reproduce line regenerates it.
    Case c = mutant ? keepMargin(mutant->c, opt.policy.maxRedraws).c : drawCase(cs, size, opt.policy).c;
    res.phases.generate += since(tg);
    int got = detects(c, cs, size, !mutant);
    if (got > 0) break;
    // As in a campaign: a passing program runs again with other batch specs (direct mode).
    for (int k = 0; got == 0 && !mutant && direct && k < opt.policy.respecsPerPass; ++k) {
      if (since(t0) >= opt.secondsPerFault || (opt.casesPerFault >= 0 && res.cases >= opt.casesPerFault)) break;
      tg = std::chrono::steady_clock::now();
      Case again = drawRespec(c, cs, k, size, opt.policy).c;
      res.phases.generate += since(tg);
      got = detects(again, cs, size, false);
    }
    if (res.detected) break;
  }
  if (!res.detected) res.seconds = since(t0);
  log << "selftest: " << fault << ": " << (res.detected ? "detected" : "not detected") << " after " << res.cases
      << " cases, " << std::fixed << std::setprecision(1) << res.seconds << " s";
  if (res.detected) log << " (" << res.verdict << ": " << res.summary.substr(0, 160) << ")";
  log << "\n" << std::flush;
  return res;
}

void printSelftestTable(const std::vector<FaultResult> &results, std::ostream &os) {
  os << "| fault | detected | time to first detection | cases to first detection | verdict | statements found → shrunk | shrinking |\n";
  os << "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto &r : results) {
    os << "| " << r.fault << " | ";
    if (!r.planted) {
      os << "not planted: " << r.error.substr(0, 200) << " | | | | | |\n";
      continue;
    }
    os << std::fixed << std::setprecision(1);
    if (r.detected)
      os << "yes | " << r.seconds << " s | " << r.cases << " | " << r.verdict << " | " << r.sizeFound << " → "
         << r.sizeShrunk << " | " << r.shrinkAttempts << " attempts, " << r.shrinkSeconds << " s |\n";
    else
      os << "**no** | (budget: " << r.seconds << " s) | (" << r.cases << " run) | | | |\n";
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
  os << "\n" << detected << " of " << real << " faults detected";
  if (real) os << " (" << std::setprecision(0) << 100.0 * detected / real << " %)";
  for (const auto &r : results)
    if (r.fault == kNoFault) os << "; control run with no fault: " << (falseAlarms ? "DETECTED (false alarm)" : "nothing detected");
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

std::vector<std::pair<std::string, std::string>> listFaults(const std::string &python, const std::string &faultsScript) {
  std::string cmd = "'" + python + "' '" + faultsScript + "' 2>&1";
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + python);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int st = pclose(p);
  if (st != 0) throw std::runtime_error("cannot list the faults (" + cmd + "): " + out.substr(0, 2000));
  std::vector<std::pair<std::string, std::string>> faults;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    auto tab = line.find('\t');
    if (tab == std::string::npos) continue; // warnings and such
    faults.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  if (faults.empty()) throw std::runtime_error("no faults listed by " + faultsScript + ": " + out.substr(0, 2000));
  return faults;
}

} // namespace vf
