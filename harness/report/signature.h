#pragma once
/// What identifies a bug (issue 16; issue 27: culprits).
///
/// - Localised to one culprit (culprit.h): the culprit, the failure class and the essential
///   features of the culprit's input (culpritKey below). Otherwise:
/// - An error (batched-error, crash, hang, oom): mode and device, verdict, the innermost
///   exception with dynamo's wrappers peeled off, its normalised message, and the torch frame
///   that raised it (error_signature.h). The same with or without the shrunk case.
/// - A mismatch: mode and device, the constructs of the shrunk case, its essential features
///   found by ablation (ablation.h), and the kind of difference (count, shape, dtype, values;
///   in all outputs or some).
///
/// Shrinking uses a cheap key per candidate (`shrinkKey`: verdict plus kind of difference for a
/// mismatch, the full signature for an error): one run per candidate, as before. The ablation
/// (up to a few dozen runs) is done once, on the shrunk case (`findingSignature`). A construct
/// that survives shrinking is needed by the failure, since the shrinker tries inlining and
/// dropping each one; so the constructs named by the signature are the essential ones too.
#include <string>
#include <vector>

#include "harness/report/culprit.h"
#include "harness/run/runner.h"
#include "harness/run/verdict.h"
#include "ir/program.h"

namespace vf {

struct Signature {
  std::string key;                   ///< what findings are filed and matched under
  std::string essential;             ///< a mismatch's essential features as a sentence
  std::vector<std::string> features; ///< the same, canonical (in `key`)
  std::string frame;                 ///< an error's raising torch frame ("" unknown)
  int probes = 0;                    ///< ablation runs
  Culprits culprits;                 ///< which component of torch's batching it needs (culprit.h)
};

/// The kind of difference of a mismatch: "values", "shape", "dtype", "count" (of outputs),
/// several joined with '+'; `withOutputs` adds ":all" or ":some" (which outputs differ).
std::string differenceKind(const CaseResult &r, bool withOutputs = false);

/// The cheap per-candidate key shrinking keeps: "mode|device|verdict|kind" for a mismatch, the
/// error signature otherwise.
std::string shrinkKey(const CaseResult &r);
/// shrinkKey without the mode and device it starts with: "verdict|kind", "verdict|error...".
std::string failureKey(const CaseResult &r);

/// Shrinking keeps a candidate when it fails as the case did: the same `shrinkKey`.
bool failsTheSameWay(const CaseResult &found, const CaseResult &now);

/// The signature without running anything: final for an error; for a mismatch the constructs of
/// `c` and the kind of difference, without the ablation (used to group hits before shrinking).
std::string signatureOf(const Case &c, const CaseResult &r);

/// The filed signature: `signatureOf` for an error, for a mismatch with the essential features
/// ablated through `runner` (at most `maxProbes` runs, deterministic).
Signature findingSignature(const Case &c, const CaseResult &r, Runner &runner, int maxProbes = 32);

/// The constructs of a case, sorted: "cond,scan," ("-multi" for several results).
std::string constructList(const Case &c);

/// Of a mismatch's essential features, those that are properties of culprit `culprit`'s input,
/// sorted, each level named by what it is to the culprit ("inner": the innermost level, the one
/// whose rule runs first; "outer": any enclosing one), not by how many levels the case has:
///   hop:X           the roles of construct X ("cond.predicate:batched@outer"), in_dims
///                   (where its operands' batch dims sit), nesting (operands batched twice)
///                   and kInVmap, kInGrad (placementFeatures)
///   vmap:front-end  in_dims, out_dims and chunk_size, levels dropped ("out_dims<0"): the front
///                   end runs once per level, so which level is incidental; "nested"
///                   (where one level runs inside another, the inner one's input is batched)
///                   and kVmapInRegion, kInGrad (placementFeatures)
///   op:X            the dtype classes ("dtype=float")
///   dynamo:MODE     every feature
std::vector<std::string> culpritFeatures(const std::string &culprit, const std::vector<std::string> &features);

/// A failure's class, what shrinking keeps once the culprit is known (issue 27): mode and device,
/// verdict, and for an error where it comes from relative to `culprit`: the culprit's function
/// that raised it ("error||_functorch/vmap.py:_validate_and_get_batch_size", by a Python raise or
/// in C++ it called), or "error||elsewhere" where the culprit handed a wrong value on and whatever
/// met it first raised (incidental, as which output differs is for a mismatch); for the public
/// API's tracing (`dynamo:MODE`) the error signature's exception, message and frame; without a
/// culprit its innermost exception and site ("TYPE||SITE", errorSite). Every mismatch is
/// one class, "silent" (shape or values, which outputs and how many levels are incidental
/// variants that shrinking may move between).
std::string failureClass(const CaseResult &r, const std::string &culprit = "");
/// `now` fails in the class `found` did.
bool sameFailureClass(const CaseResult &found, const CaseResult &now, const std::string &culprit = "");

/// Where the culprit's construct sits among the program's own transforms (issue 28), read from
/// the shrunk case: the shrink drops every vmap the failure does not need (dropVmaps), so one
/// that stayed is needed. kInVmap: a construct of rule "hop:X" runs inside a torch.vmap of the
/// program (its rule runs under an inner level); kVmapInRegion: for vmap's front end, a
/// torch.vmap of the program runs inside a control-flow region (under a rule's lowered level).
inline constexpr const char *kInVmap = "in-vmap";
inline constexpr const char *kVmapInRegion = "vmap-in-region";
/// kInGrad: the culprit's construct (a rule "hop:X"), or a torch.vmap of the program (vmap's
/// front end), runs inside a torch.func.grad or jvp of the program: under a derivative level.
inline constexpr const char *kInGrad = "in-grad";
std::vector<std::string> placementFeatures(const Case &c, const std::string &culprit);

/// Whether `culprit` is a component of torch's batching itself (a higher-order op's rule
/// "hop:X", vmap's front end, an op's batching "op:X"), not the public API's tracing
/// ("dynamo:MODE"): the same code runs in every mode.
bool isBatchingComponent(const std::string &culprit);

/// The verdict field of a signature localised to a batching component (culpritKey): the case
/// fails, silently or by raising, because of that component.
inline constexpr const char *kFailsThrough = "fails";

/// The signature of a finding localised to one culprit (issue 27): what the failure needs, not
/// what the program or the mode happens to hold.
///
/// Localised to a batching component, a mismatch or a batched error is
/// "rules[+GRAD]|DEVICE|fails|culprit:C|FEATURES": the component and the essential features of
/// its input (culpritFeatures). Left out as incidental: the mode that met it (the rule is the
/// same code in direct mode, eager and under a compiler; a gradient mode's own failures keep
/// "+grad"), whether the wrong value was met silently or by something that raised on it (one
/// planted fault did both, and raised in a dozen places), the constructs the case kept and the
/// kind of difference. Two bugs of one rule are told apart by what of its input they need.
///
/// Localised to the public API's tracing ("dynamo:MODE"), where errors are many bugs of
/// dynamo's: "SYSTEM|mismatch|culprit:C||FEATURES|silent" and
/// "SYSTEM|VERDICT|culprit:C|FEATURES|TYPE|MESSAGE|FRAME". "" when `s.culprits` names no single
/// culprit.
std::string culpritKey(const CaseResult &r, const Signature &s);

/// `s.key` becomes culpritKey where `s.culprits` names one culprit (the ablation's key otherwise).
void applyCulprit(Signature &s, const CaseResult &r);

/// The filed signature of finding `r` of case `c` whose culprits are `culprits` (culprit.h;
/// none tried: empty). Localised to a batching component: the essential features ablated
/// through `runner` (at most `maxProbes` candidates), a feature being essential when, changed,
/// the case no longer fails through the culprit in its failure class (culprit.h:
/// failsWithCulprit: it passes, fails in another class, or fails with the culprit swapped
/// too), then culpritKey. Otherwise
/// `findingSignature`, and for an error localised to the tracing its features ablated as a
/// mismatch's are (the same exception, message and frame), then culpritKey.
Signature signFinding(const Case &c, const CaseResult &r, Runner &runner, const Culprits &culprits, int maxProbes = 32);

} // namespace vf
