#pragma once
/// Culprit localisation (issue 27): which component of torch's batching makes a finding fail,
/// found by experiment, the way delta debugging localises a failure. torch's batching is made of
/// components (each control-flow op's vmap rule, vmap's front end, each op's batching rule); each
/// one can be swapped, in the worker, for a trivially correct per-example loop at its level
/// (Backend::components, Backend::swap). The components whose swap alone makes the shrunk case
/// pass are its culprits; the rest of torch's batching is not involved.
///
/// `localise` is the decision, pure and tested with a scripted probe; `findCulprits` runs it
/// through a Runner.
#include <functional>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/run/runner.h"

namespace vf {

/// What one swapped run gave, against the finding it was made for.
enum class SwapResult {
  Passes,         ///< the case passes with the component swapped
  FailsAlike,     ///< it still fails the way the finding did
  FailsOtherwise, ///< something else (another error, invalid, ambiguous): no evidence either way
};

/// The component that stands for the tracing (and compiling) of mode `mode` ("eager",
/// "compile-inductor", ...): "dynamo:MODE", blamed when a case fails in that mode and passes
/// with the higher-order ops called directly under vmap (direct mode).
std::string tracingComponent(const std::string &mode);

struct Culprits {
  std::vector<std::string> tried;     ///< components swapped one at a time, in order
  std::vector<std::string> culprits;  ///< those whose swap alone made the case pass
  std::vector<std::string> otherwise; ///< those whose swap made it fail another way
  /// Higher-order ops' rules whose swap passed too, but only because their per-example loop runs
  /// the regions on plain tensors and so hides a culprit op inside them: not culprits.
  std::vector<std::string> subsumed;
  /// No single swap made it pass, but every component swapped at once did: the failure needs
  /// several of them (or their interplay).
  bool together = false;
  int runs = 0;
  double seconds = 0; ///< what the localisation took
  bool capped = false; ///< stopped at the run budget: later components were not tried

  bool localised() const { return culprits.size() == 1; }
  /// The one culprit, or "" when not localised to one component.
  std::string culprit() const { return localised() ? culprits[0] : ""; }
  /// For report.md and result.txt, e.g. "replacing the vmap rule of cond (`hop:cond`) with a
  /// per-example loop makes this case pass; swapping any of the other 3 components does not".
  std::string sentence() const;
};

/// The component in words: "the vmap rule of cond", "vmap's front end (in_dims, ...)", "the
/// batching of torch's `where`".
std::string describeComponent(const std::string &name);

/// The order components are tried in: higher-order ops' rules, then vmap's front end, then each
/// op (a rule of the construct is the likelier culprit of a control-flow case). Stable.
std::vector<std::string> tryOrder(std::vector<std::string> components);

/// Swaps each of `components` alone (in tryOrder), at most `maxRuns` runs in all; where none
/// passes alone, all of them at once (one more run, within the budget). `probe` makes the run.
/// The narrowest component wins: where an op's swap passes, rules of higher-order ops that pass
/// too are `subsumed` (their loop also runs that op per example), not culprits.
/// `inside` lists pairs (inner, outer) of components where inner runs inside outer's regions
/// (a cond in a scan's body: ("hop:cond", "hop:scan")): where both pass, the inner one is the
/// culprit and the outer `subsumed` (its loop runs the inner rule on plain tensors).
Culprits localise(const std::vector<std::string> &components,
                  const std::function<SwapResult(const std::vector<std::string> &swapped)> &probe, int maxRuns,
                  const std::set<std::pair<std::string, std::string>> &inside = {});

/// The pairs ("hop:INNER", "hop:OUTER") of the constructs of `c` nested in another's regions (a
/// construct's higher-order op has the construct's name: cond, scan, while_loop, switch).
std::set<std::pair<std::string, std::string>> nestedRules(const Case &c);

/// meta.json's "culprits": {"culprit": NAME or null, "culprits": [...], "tried": [...],
/// "fails_otherwise": [...], "together": bool, "runs": N, "seconds": S, "capped": bool, "sentence"}.
nlohmann::json culpritsJson(const Culprits &k);

/// The culprits of the finding `found` of case `c`, through `runner` (its backend's components
/// and swaps; none when the backend cannot swap).
Culprits findCulprits(const Case &c, const CaseResult &found, Runner &runner, int maxRuns);

/// The filing stage: the culprits of finding `found` of `runner` (as it found it, before the
/// cross-check), timed. A finding of the public API or a compiler is first run with the ops
/// called directly under vmap (the job's direct mode): passing there blames the mode's tracing
/// (tracingComponent); failing there with the same verdict (dynamo often words the error
/// otherwise), the components are swapped there, where a run takes milliseconds and no tracing
/// stands in the way; otherwise in `runner`'s own system.
Culprits culpritsOf(const Case &c, const CaseResult &found, Runner &runner, const RunnerSet &job, int maxRuns);

/// `cand` fails in failure class `foundClass` (the finding's `failureClass` relative to
/// `culprit`, signature.h: it names the verdict too) and passes with `culprit` swapped in
/// `runner`'s backend (a second run, made only when the first fails alike): it still fails
/// through the culprit, the way the finding did. What a finding's shrink keeps, and what its
/// ablation asks of a changed case (signFinding).
bool failsWithCulprit(const Case &cand, const std::string &foundClass, Runner &runner, const std::string &culprit);

} // namespace vf
