#include "harness/campaign/phase_times.h"

#include <sys/resource.h>

#include <algorithm>
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

PhaseTimes &PhaseTimes::operator+=(const PhaseTimes &o) {
  // Every phase: a field added to PhaseTimes is added here by adding it to this list.
  static constexpr double PhaseTimes::*kPhases[] = {&PhaseTimes::generate, &PhaseTimes::reference, &PhaseTimes::compare,
                                                    &PhaseTimes::emit,     &PhaseTimes::transport, &PhaseTimes::worker,
                                                    &PhaseTimes::system,   &PhaseTimes::shrink,    &PhaseTimes::file};
  static_assert(sizeof(kPhases) / sizeof(kPhases[0]) * sizeof(double) + sizeof(int64_t) == sizeof(PhaseTimes),
                "every phase of PhaseTimes is in kPhases");
  for (auto phase : kPhases) this->*phase += o.*phase;
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
  const std::vector<std::pair<const char *, double>> rows = {
      {"generate", generate}, {"reference", reference}, {"compare", compare}, {"emit", emit},
      {"transport", transport}, {"worker", worker}, {"file", file}, {"harness total", harness()},
      {"torch", system}, {"shrink", shrink}};
  os << "time by phase (seconds, share of " << std::fixed << std::setprecision(1);
  if (jobs > 1) os << jobs << " jobs x ";
  os << wall << " s wall):\n";
  for (const auto &[name, s] : rows)
    os << "  " << std::left << std::setw(14) << name << std::right << std::setw(9) << std::setprecision(3) << s
       << std::setw(7) << std::setprecision(1) << pct(s) << " %\n";
  double other = total - harness() - system - shrink;
  os << "  " << std::left << std::setw(14) << "unaccounted" << std::right << std::setw(9) << std::setprecision(3) << other
     << std::setw(7) << std::setprecision(1) << pct(other) << " %\n";
  os << "peak memory: vmapfuzz " << selfPeakRssKb() / 1024 << " MiB, torch worker " << peakWorkerRssKb / 1024 << " MiB\n";
}

} // namespace vf
