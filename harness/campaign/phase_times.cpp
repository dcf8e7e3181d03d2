#include "harness/campaign/phase_times.h"

#include <sys/resource.h>

#include <algorithm>
#include <iterator>
#include <iomanip>
#include <utility>
#include <vector>

namespace vf {

void PhaseTimes::add(const CaseResult &r) {
  reference += r.referenceSeconds;
  compare += r.compareSeconds;
  emit += r.emitSeconds;
  transport += r.transportSeconds;
  worker += r.workerSeconds;
  system += r.systemSeconds;
  peakWorkerRssKb = std::max(peakWorkerRssKb, r.workerRssKb);
}

namespace {

constexpr PhaseInfo kPhases[] = {
    {&PhaseTimes::generate, "generate", true}, {&PhaseTimes::reference, "reference", true},
    {&PhaseTimes::compare, "compare", true},   {&PhaseTimes::emit, "emit", true},
    {&PhaseTimes::transport, "transport", true}, {&PhaseTimes::worker, "worker", true},
    {&PhaseTimes::file, "file", true},         {&PhaseTimes::system, "torch", false},
    {&PhaseTimes::shrink, "shrink", false},    {&PhaseTimes::culprits, "culprits", false},
};
// A field added to PhaseTimes is a phase only once it is in kPhases.
static_assert(std::size(kPhases) * sizeof(double) + sizeof(int64_t) == sizeof(PhaseTimes), "every phase of PhaseTimes is in kPhases");

} // namespace

const std::vector<PhaseInfo> &phaseTable() {
  static const std::vector<PhaseInfo> table(std::begin(kPhases), std::end(kPhases));
  return table;
}

double PhaseTimes::harness() const {
  double s = 0;
  for (const auto &p : kPhases) s += p.harness ? this->*p.seconds : 0.0;
  return s;
}

PhaseTimes &PhaseTimes::operator+=(const PhaseTimes &o) {
  for (const auto &p : kPhases) this->*p.seconds += o.*p.seconds;
  peakWorkerRssKb = std::max(peakWorkerRssKb, o.peakWorkerRssKb);
  return *this;
}

int64_t selfPeakRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

void PhaseTimes::print(std::ostream &os, double wall, int jobs) const {
  // With several jobs each loop has the whole wall time: the phases add up to jobs x wall.
  const double total = wall * std::max(1, jobs);
  auto pct = [total](double s) { return total > 0 ? 100.0 * s / total : 0.0; };
  // The harness's phases, their total, then the others.
  std::vector<std::pair<const char *, double>> rows;
  bool totalled = false;
  for (const auto &p : kPhases) {
    if (!p.harness && !totalled) rows.emplace_back("harness total", harness()), totalled = true;
    rows.emplace_back(p.name, this->*p.seconds);
  }
  os << "time by phase (seconds, share of " << std::fixed << std::setprecision(1);
  if (jobs > 1) os << jobs << " jobs x ";
  os << wall << " s wall):\n";
  for (const auto &[name, s] : rows)
    os << "  " << std::left << std::setw(14) << name << std::right << std::setw(9) << std::setprecision(3) << s
       << std::setw(7) << std::setprecision(1) << pct(s) << " %\n";
  double other = total;
  for (const auto &p : kPhases) other -= this->*p.seconds;
  os << "  " << std::left << std::setw(14) << "unaccounted" << std::right << std::setw(9) << std::setprecision(3) << other
     << std::setw(7) << std::setprecision(1) << pct(other) << " %\n";
  os << "peak memory: vmapfuzz " << selfPeakRssKb() / 1024 << " MiB, torch worker " << peakWorkerRssKb / 1024 << " MiB\n";
}

} // namespace vf
