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
///                   (where its operands' batch dims sit) and nesting (operands batched twice)
///   vmap:front-end  in_dims, out_dims and chunk_size, levels dropped ("out_dims<0"): the front
///                   end runs once per level, so how many levels there are is incidental
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

/// The signature of a finding localised to one culprit (issue 27): what the failure needs, not
/// what the program happens to hold. "SYSTEM|mismatch|culprit:C||FEATURES|silent" for a silent
/// wrong result (the constructs the case kept and the kind of difference left out), and
/// "SYSTEM|VERDICT|culprit:C|FEATURES|CLASS" for an error: its essential features (the same
/// filter; "" before they are ablated) and its failure class relative to the culprit
/// ("error||FUNCTION" raised by the culprit's own code, "error||elsewhere" raised by what met
/// its wrong value; "TYPE|MESSAGE|" without a Python traceback).
/// "" when `s.culprits` names no single culprit.
std::string culpritKey(const CaseResult &r, const Signature &s);

/// `s.key` becomes culpritKey where `s.culprits` names one culprit (the ablation's key otherwise).
void applyCulprit(Signature &s, const CaseResult &r);

/// `applyCulprit` after the essential features of an error localised to one culprit are ablated
/// through `runner` (at most `maxProbes` runs; a feature is essential when changing it ends the
/// error, as the mismatch's ablation asks: `failsTheSameWay`): an error's class is coarse (where
/// it comes from relative to the culprit), and what of the culprit's input it needs tells two
/// bugs of one rule apart, as it does for silent ones. A mismatch keeps the features
/// `findingSignature` ablated.
void signByCulprit(Signature &s, const Case &c, const CaseResult &r, Runner &runner, int maxProbes = 32);

} // namespace vf
