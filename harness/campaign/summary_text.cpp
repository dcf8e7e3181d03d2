#include <algorithm>
#include <iomanip>
#include <ostream>

#include "harness/campaign/campaign.h"

namespace vf {

namespace {

/// The verdict counts: one column, or one per mode (a case that passes in one mode and fails in
/// another shows there), with the time inside torch per mode.
void printVerdicts(const CampaignStats &s, std::ostream &os) {
  if (s.byMode.size() <= 1) {
    os << "verdicts:\n";
    for (int v = 0; v < kVerdictCount; ++v)
      os << "  " << std::left << std::setw(14) << verdictName(static_cast<Verdict>(v)) << std::right << std::setw(8)
         << s.byVerdict[v] << "\n";
    return;
  }
  auto width = [](const std::string &mode) { return std::max<int>(10, static_cast<int>(mode.size()) + 2); };
  os << "verdicts per mode (" << s.runs << " runs):\n  " << std::setw(14) << "";
  for (const auto &[mode, counts] : s.byMode) os << std::setw(width(mode)) << mode;
  os << "\n";
  for (int v = 0; v < kVerdictCount; ++v) {
    os << "  " << std::left << std::setw(14) << verdictName(static_cast<Verdict>(v)) << std::right;
    for (const auto &[mode, counts] : s.byMode) os << std::setw(width(mode)) << counts[v];
    os << "\n";
  }
  os << "  " << std::left << std::setw(14) << "torch s" << std::right;
  for (const auto &[mode, counts] : s.byMode) os << std::setw(width(mode)) << std::setprecision(1) << s.secondsByMode.at(mode);
  os << "\n";
}

/// How cases were drawn and which features they covered.
void printCoverage(const CampaignStats &s, std::ostream &os) {
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
}

/// What was not run or not checked, and why.
void printLeftOut(const CampaignStats &s, std::ostream &os) {
  for (const auto &[sys, n] : s.skipped) os << "not run in " << sys << ": " << n << " cases (its time share, or a construct it cannot batch)\n";
  if (!s.notGenerated.empty()) {
    os << "not generated (no batching rule in any mode, or rejected unbatched in every mode, found by the start-up probes; "
          "--gen keep_unsupported=1 keeps them):";
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
  if (!s.filingError.empty()) os << "filing failed, the campaign stopped there: " << s.filingError << "\n";
  printLookBehind(s.lookBehind, s.cases, s.lookBehindOn, os);
  if (s.setAside) os << "set aside: " << s.setAside << " direct-mode failures whose programs the public API rejects (not torch bugs)\n";
  if (!s.unsupported.empty()) {
    // Capability matrix: one line per construct, not one finding per case.
    os << "unsupported under vmap (runs per construct and mode in programs torch has no batching rule for):\n";
    for (const auto &[construct, n] : s.unsupported) os << "  " << construct << " " << n << "\n";
  }
}

/// The five most common reasons torch rejected a program, each with the gen line of its first case.
void printInvalidReasons(const CampaignStats &s, std::ostream &os) {
  if (s.invalidReasons.empty()) return;
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

void printFindings(const FindingStore &store, std::ostream &os) {
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

} // namespace

void printSummary(const CampaignStats &s, const FindingStore &store, std::ostream &os) {
  os << "\n== vmapfuzz summary ==\n";
  for (const auto &m : idleModesOf(s))
    os << "WARNING: " << describe(m) << "; its verdicts are no evidence about that mode (`vmapfuzz caps` shows what this torch lacks)\n";
  os << "cases: " << s.cases << " in " << std::fixed << std::setprecision(1) << s.seconds << " s ("
     << (s.seconds > 0 ? s.cases / s.seconds : 0.0) << " exec/s); reference " << s.referenceSeconds << " s, torch "
     << s.systemSeconds << " s";
  if (s.shrinkAttempts) os << "; shrinking " << s.shrinkSeconds << " s (" << s.shrinkAttempts << " attempts)";
  os << "\n";
  s.phases.print(os, s.seconds, s.jobs);
  printVerdicts(s, os);
  printCoverage(s, os);
  printLeftOut(s, os);
  printInvalidReasons(s, os);
  printFindings(store, os);
}

} // namespace vf
