#include "harness/campaign.h"

#include <algorithm>
#include <chrono>
#include <regex>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include "generators/case_gen.h"
#include "generators/margin.h"
#include "harness/shrinker.h"
#include "ir/constructs.h"

namespace vf {

uint64_t caseSeed(uint64_t seed, int64_t index) {
  // splitmix64 of (seed, index): independent, reproducible streams per case.
  uint64_t z = seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(index) + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

int caseSize(int64_t index) { return 10 + static_cast<int>(index % 91); }

namespace {

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

CampaignStats runCampaign(const CampaignOptions &opt, Runner &runner, FindingStore &store, std::ostream &log) {
  CampaignStats s;
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  double lastPrint = 0;
  std::map<std::string, std::string> shrunkSignature; ///< signature found -> signature filed
  for (int64_t i = 0; opt.maxCases < 0 || i < opt.maxCases; ++i) {
    if (elapsed() >= opt.seconds) break;
    uint64_t cs = caseSeed(opt.seed, i);
    int size = caseSize(i);
    DrawnCase drawn = drawCase(cs, size, opt.policy);
    s.redrawnCases += drawn.redraws > 0;
    s.redraws += drawn.redraws;
    s.nearBoundary += drawn.nearBoundary;
    Case c = std::move(drawn.c);
    CaseResult r = runner.run(c);
    s.cases++;
    s.byVerdict[static_cast<int>(r.verdict)]++;
    s.referenceSeconds += r.referenceSeconds;
    s.systemSeconds += r.systemSeconds;
    s.coverage.add(c);
    if (r.verdict == Verdict::Unsupported)
      for (const auto &f : featuresOf(c))
        if (isConstruct(f)) s.unsupported[f]++;
    if (r.verdict == Verdict::Invalid) {
      std::string why = std::regex_replace(r.summary.substr(0, 320), std::regex("[0-9]+"), "N");
      s.invalidReasons[why]++;
    }
    if (isFinding(r.verdict) || r.verdict == Verdict::HarnessBug) {
      std::ostringstream rep;
      rep << "vmapfuzz gen --case-seed " << cs << " --size " << size << opt.genFlags << " > case.vf && vmapfuzz replay"
          << opt.runFlags << " case.vf";
      // A mismatch is named by the constructs of its shrunk case, so the signature of an
      // unshrunk one is first mapped through what earlier shrinking found.
      const std::string sig0 = signatureOf(c, r);
      std::string sig = shrunkSignature.count(sig0) ? shrunkSignature[sig0] : sig0;
      Case filed = c;
      CaseResult filedResult = r;
      std::string note;
      if (opt.shrink && !store.known(sig) && r.verdict != Verdict::HarnessBug) {
        if (opt.tty) log << "\r\033[K";
        log << "shrinking a new " << verdictName(r.verdict) << " (" << c.program.size() << " statements)..." << std::flush;
        auto ts = std::chrono::steady_clock::now();
        ShrinkStats ss;
        filed = shrinkCase(c, [&](const Case &cand) {
          // Past the campaign's time (plus a minute of grace) stop accepting: the case stays
          // as small as it got.
          if (elapsed() > opt.seconds + 60) return false;
          CaseResult cr = runner.run(cand);
          // Errors keep their signature; a mismatch stays a mismatch (its constructs may go).
          return cr.verdict == r.verdict && (r.verdict == Verdict::Mismatch || signatureOf(cand, cr) == sig);
        }, &ss, opt.maxShrinkAttempts);
        filedResult = runner.run(filed);
        if (filedResult.verdict != r.verdict) { // flaky: file the case as found
          filed = c;
          filedResult = r;
        }
        sig = shrunkSignature[sig0] = signatureOf(filed, filedResult);
        double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - ts).count();
        s.shrinkAttempts += ss.attempts;
        s.shrinkSeconds += took;
        std::ostringstream n;
        n << c.program.size() << " -> " << filed.program.size() << " statements, " << ss.attempts << " attempts, "
          << std::fixed << std::setprecision(1) << took << " s";
        note = n.str();
        log << " " << note << "\n";
      }
      auto rec = store.record(filed, filedResult, rep.str(), note, sig);
      if (rec.isNew) {
        if (opt.tty) log << "\r\033[K";
        log << "NEW " << verdictName(r.verdict) << ": " << r.summary << "\n    -> " << rec.dir;
        if (!rec.standalone.empty()) log << " (standalone repro.py: " << rec.standalone << ")";
        log << "\n";
      }
    }
    double now = elapsed();
    if (now - lastPrint >= (opt.tty ? 0.5 : 10.0)) {
      lastPrint = now;
      if (opt.tty) log << "\r\033[K" << progressLine(s, store, now) << std::flush;
      else log << progressLine(s, store, now) << "\n" << std::flush;
    }
  }
  s.seconds = elapsed();
  if (opt.tty) log << "\r\033[K";
  log << progressLine(s, store, s.seconds) << "\n";
  return s;
}

void printSummary(const CampaignStats &s, const FindingStore &store, std::ostream &os) {
  os << "\n== vmapfuzz summary ==\n";
  os << "cases: " << s.cases << " in " << std::fixed << std::setprecision(1) << s.seconds << " s ("
     << (s.seconds > 0 ? s.cases / s.seconds : 0.0) << " exec/s); reference " << s.referenceSeconds << " s, torch "
     << s.systemSeconds << " s";
  if (s.shrinkAttempts) os << "; shrinking " << s.shrinkSeconds << " s (" << s.shrinkAttempts << " attempts)";
  os << "\n";
  os << "verdicts:\n";
  for (int v = 0; v < kVerdictCount; ++v)
    os << "  " << std::left << std::setw(14) << verdictName(static_cast<Verdict>(v)) << std::right << std::setw(8)
       << s.byVerdict[v] << "\n";
  os << "re-drawn for predicate margins: " << s.redrawnCases << " cases (" << s.redraws << " re-draws); "
     << s.nearBoundary << " still near a boundary\n";
  os << "coverage (cases exercising each feature):\n";
  for (const auto &row : Coverage::rows()) {
    auto it = s.coverage.counts().find(row);
    os << "  " << std::left << std::setw(20) << row << std::right << std::setw(8)
       << (it == s.coverage.counts().end() ? 0 : it->second) << "\n";
  }
  if (!s.unsupported.empty()) {
    // Capability matrix: one line per construct, not one finding per case.
    os << "unsupported under vmap (cases per construct in programs torch has no batching rule for):\n";
    for (const auto &[construct, n] : s.unsupported) os << "  " << construct << " " << n << "\n";
  }
  if (!s.invalidReasons.empty()) {
    std::vector<std::pair<int64_t, std::string>> top;
    for (const auto &[why, n] : s.invalidReasons) top.emplace_back(-n, why);
    std::sort(top.begin(), top.end());
    os << "invalid programs, most common reasons:\n";
    for (size_t i = 0; i < top.size() && i < 5; ++i) os << "  " << -top[i].first << "x " << top[i].second << "\n";
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
