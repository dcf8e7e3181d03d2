#pragma once
/// Where a campaign's wall time goes: the harness's own phases (generation, reference,
/// comparison, emission, transport, the worker's own handling, filing) against the time inside
/// the system under test, plus peak memory. Accumulated from CaseResults.
#include <cstdint>
#include <ostream>
#include <vector>

#include "harness/run/verdict.h"

namespace vf {

struct PhaseTimes {
  double generate = 0;  ///< generating cases
  double reference = 0; ///< input data and the reference interpreter
  double compare = 0;   ///< comparing outputs
  double emit = 0;      ///< emitting the case for the backend (Python source, tensor bytes)
  double transport = 0; ///< pipes and framing, both ways
  double worker = 0;    ///< the worker besides the program's call (exec of the source, dynamo reset, tensor (de)serialisation)
  double system = 0;    ///< inside the system under test (the program's call in torch)
  double shrink = 0;    ///< shrinking findings (all of its phases)
  double culprits = 0;  ///< localising findings' culprits (culprit.h), before and after shrinking
  double file = 0;      ///< filing findings (reports, repro.py confirmation)
  int64_t peakWorkerRssKb = 0;

  /// Adds one case's phases (not generation: the caller times that).
  void add(const CaseResult &r);
  /// Adds another account's phases, every one of them; peak memory is the larger peak.
  PhaseTimes &operator+=(const PhaseTimes &o);
  /// The harness's own time in the case loop: the phases phaseTable() marks as the harness's
  /// (every phase but `system` and `shrink`).
  double harness() const;
  /// One block of lines: each phase with seconds and its share of the job time (`jobs`
  /// parallel loops of `wall` seconds each), and peak memory.
  void print(std::ostream &os, double wall, int jobs = 1) const;
};

/// One phase of PhaseTimes: the one list of them, which adding, the harness total and the
/// printed table all read.
struct PhaseInfo {
  double PhaseTimes::*seconds;
  const char *name; ///< its row in the printed table ("torch" for `system`)
  bool harness;     ///< the harness's own work (counted in PhaseTimes::harness)
};
/// Every phase, in the printed table's order.
const std::vector<PhaseInfo> &phaseTable();

/// Peak resident memory of this process, in KiB (getrusage).
int64_t selfPeakRssKb();

} // namespace vf
