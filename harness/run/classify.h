#pragma once
/// The verdict of one case on one system, as a pure decision over what was observed. The runner
/// (runner.h) gathers the observations (the reference, the batched run, then only the further
/// runs the decision asks for) and `classify` alone decides; it runs nothing, so every rule is
/// tested without a backend (tests/harness/run/classify_test.cpp).
#include <cstdint>
#include <optional>
#include <string>

#include "harness/backends/backend.h"
#include "harness/run/verdict.h"
#include "oracles/compare.h"

namespace vf {

/// What a further run of the system observed: how it ended and, where it returned values, how
/// they compare with the reference's.
struct RunObservation {
  Outcome::Status status = Outcome::Status::Ok;
  std::string errorType, errorMessage;
  Comparison cmp; ///< meaningful only when status is Ok
};

/// Everything the verdict depends on. Filled by the runner in stages; a `std::optional` that is
/// empty is a run not (yet) made.
/// How an Unsupported verdict's summary starts when the program imports what this torch lacks
/// (Observations::torchLacks); `caps` shows those cells as "not in this torch".
inline constexpr const char *kTorchLacks = "this torch lacks what the program imports: ";

struct Observations {
  Grad grad = Grad::None; ///< the system's mode: forward values or which derivative
  bool precompile = false; ///< results come from a fresh process that loaded the saved artifact

  // The reference, before any run of the system.
  std::string referenceError;  ///< the reference interpreter rejects the program
  bool gradInputs = true;      ///< (gradient modes) the program has a floating input
  std::string derivativeError; ///< (gradient modes) the reference's autograd rejects the program
  /// The least margin of the reference's decisions (a comparison, a domain's edge, and in a
  /// gradient mode a kink or a non-finite gradient): below kAmbiguityMargin a difference may be
  /// rounding's.
  double boundary = 1e300;
  /// The reference's forward values alone (no derivative): the margin the forward check needs.
  double forwardBoundary = 1e300;
  std::string domainReason; ///< non-empty: a taken path sat outside or at the edge of an op's domain

  // A compiled function called again at another batch size (checksRecompiles).
  bool again = false;
  int64_t firstSize = 0, againSize = 0; ///< the outer batch sizes of the two calls
  double againBoundary = 1e300;         ///< the second call's reference margin

  // The batched run (or runTwice).
  bool batchedRan = false;
  Outcome::Status batched = Outcome::Status::Ok;
  std::string errorType, errorMessage;
  std::string gradientPass;  ///< (gradient modes) which pass raised (passPhrase), "" unknown
  bool afterSaveLoad = false; ///< the error came from the fresh process (precompile modes)
  bool failedOnSecondCall = false;
  Comparison first;                ///< the first call's outputs against the reference (Ok only)
  std::optional<Comparison> second; ///< the second call's, when the first was right

  // Further runs, made only when classify asks for them (Decision::need).
  std::optional<RunObservation> forward;        ///< RunMode::BatchedForward
  std::optional<RunObservation> perExample;     ///< RunMode::PerExample (of the call that failed)
  std::optional<RunObservation> perExampleFunc; ///< RunMode::PerExampleFunc

  // What the system's error says, for the documented restrictions (set with the batched run).
  std::string bufferHazard;     ///< the case can break vmap's in-place rule (ir/buffers.h)
  bool saysInplaceRule = false; ///< the error is vmap's in-place rule
  bool saysUnsupported = false; ///< the error is torch's "no batching rule"
  bool torchLacks = false;      ///< the program imports what this torch does not have (Outcome::torchLacks)
};

/// Which results a finding shows (its CaseResult's expected and actual).
enum class Shown {
  Batched,     ///< the batched run's, against the reference (the default)
  SecondCall,  ///< the compiled function's second call, at the other batch size
  ForwardOnly, ///< a gradient mode's forward values, which already differ (CaseResult::forwardDiffers)
};

/// A verdict, or the run to make before one can be given.
struct Decision {
  /// Nothing: `verdict` is decided. Otherwise the run to observe next: the batched run, the
  /// forward values alone, each example alone, each example through the function transform.
  enum class Need { Nothing, Batched, Forward, PerExample, PerExampleFunc };
  Need need = Need::Nothing;
  Verdict verdict = Verdict::Pass;
  std::string summary;
  Shown shown = Shown::Batched;
};

/// The decision table. Call it again with the run it asks for observed until `need` is
/// Need::Nothing; each further run is asked for at most once.
Decision classify(const Observations &o);

} // namespace vf
