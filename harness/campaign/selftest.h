#pragma once
/// The harness measuring its own power, as mutation testing does: for each fault planted into
/// torch's batching machinery (harness/backends/torch/worker/vmapfuzz_faults.py), a fixed-budget campaign with
/// the fault planted in the worker. A fault counts as detected when a case is a finding with the
/// fault planted and passes on clean torch, so torch's own bugs never count as detections.
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "generators/policy.h"
#include "harness/backends/backend.h"
#include "harness/campaign/guided.h"
#include "harness/campaign/phase_times.h"
#include "harness/report/culprit.h"

namespace vf {

struct SelftestOptions {
  double secondsPerFault = 300; ///< budget of each fault's campaign (worker start-up excluded)
  int64_t casesPerFault = -1;   ///< -1: no case limit
  uint64_t seed = 1;            ///< the same seed for every fault: the same case stream
  GenPolicy policy;
  std::string genFlags;         ///< the --gen flags, repeated in reproduce lines
  bool shrink = true;
  int maxShrinkAttempts = 200;
  int culpritRuns = 24;         ///< culprit localisation of each shrunk detection (0: off)
  double targetRate = 0.9;      ///< share of faults that must be detected
  /// Coverage guidance, as in a campaign (--mutate-share): each fault's campaign keeps its own
  /// corpus of cases that reached new coverage of torch's batching code, and mutates them. The
  /// faulty backend's worker must collect coverage (off: every case fresh).
  GuidedOptions guided;
};

struct FaultResult {
  std::string fault;
  bool planted = true;      ///< false: the worker could not plant it (see `error`)
  bool detected = false;
  double seconds = 0;       ///< to the first detection (or the whole budget)
  int64_t cases = 0;        ///< cases run up to and including the first detection
  int64_t findingsClean = 0; ///< findings that clean torch shares (torch's own bugs): not detections
  size_t sizeFound = 0, sizeShrunk = 0; ///< statements of the detecting case, before and after shrinking
  int shrinkAttempts = 0;
  double shrinkSeconds = 0;
  std::string verdict;      ///< verdict of the detecting case with the fault planted
  std::string summary;      ///< its one-line summary
  std::string reproduce;    ///< how to replay the detecting case
  std::string shrunkCase;   ///< the shrunk case, in the text format
  /// The component of torch's batching the fault is planted in ("hop:cond", "vmap:front-end",
  /// "op:sum"; vmapfuzz_faults.py's COMPONENT), "" when it names none.
  std::string plantedIn;
  Culprits culprits;        ///< what culprit localisation named on the shrunk detecting case
  std::string error;
  PhaseTimes phases;
};

/// Makes a backend for a set of planted faults (empty: clean torch); throws std::runtime_error
/// when it cannot start (a fault that does not plant fails here).
using BackendFactory = std::function<std::unique_ptr<Backend>(const std::vector<std::string> &faults)>;

/// The pseudo-fault that plants nothing: a control run that must detect nothing.
inline constexpr const char *kNoFault = "none";

/// A fault the worker knows: its name, the first sentence of its docstring, and the component
/// of torch's batching it is planted in ("" none: a fault of the compiler, of the worker).
struct FaultInfo {
  std::string name, doc, component;
};

/// Runs one fault's campaign against `clean` (the same torch with nothing planted); the shrunk
/// detecting case is then localised (culprit.h) with the fault planted, at most
/// `culpritRuns` runs (0: not).
FaultResult runFaultCampaign(const FaultInfo &fault, const SelftestOptions &opt, const BackendFactory &make,
                             Backend &clean, std::ostream &log);

/// The result table: fault, detected, time and cases to the first detection, shrunk size.
void printSelftestTable(const std::vector<FaultResult> &results, std::ostream &os);

/// True when the detected share of real faults (not `none`) reaches the target, and `none`
/// (if it ran) detected nothing.
bool selftestTargetMet(const std::vector<FaultResult> &results, double targetRate);

/// How the one-line description of a fault in the autograd of batched control flow starts
/// (vmapfuzz_faults.py): such a fault leaves forward values alone, so only a gradient mode
/// (ExecConfig::grad) can find it.
inline constexpr const char *kGradientFaultMarker = "Gradient modes only:";
inline bool isGradientFault(const std::string &doc) { return doc.rfind(kGradientFaultMarker, 0) == 0; }
/// A gradient fault that breaks only forward-mode derivatives (the VJP stays right): planted by
/// default in the "+jvp" modes only, where it starts "Gradient modes only: +jvp only:".
inline constexpr const char *kForwardModeFaultMarker = "Gradient modes only: +jvp only:";
inline bool isForwardModeFault(const std::string &doc) { return doc.rfind(kForwardModeFaultMarker, 0) == 0; }

/// The faults the worker knows: `python faults.py` prints "name\tdoc\tcomponent" per fault.
std::vector<FaultInfo> listFaults(const std::string &python, const std::string &faultsScript);

/// True when culprit localisation named the component the fault was planted in, alone.
inline bool culpritIsPlanted(const FaultResult &r) { return !r.plantedIn.empty() && r.culprits.culprit() == r.plantedIn; }

} // namespace vf
