#pragma once
/// A mismatch's essential features, found by ablation: each feature of the (shrunk) case is
/// changed on its own, the changed case is run through the same Runner, and the feature is
/// essential when the failure (same verdict, same kind of difference) goes away.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/run/runner.h"
#include "ir/program.h"

namespace vf {

struct Ablation {
  /// Canonical names, sorted: "cond.predicate:batched@outer", "cond.predicate:unbatched@inner",
  /// "nested" (every level taken away ends the failure), "in_dims<0@vmap", "out_dims>0@inner",
  /// "in_dims<0@program" (a torch.vmap construct of the program), "chunk_size@vmap", "dtype=float",
  /// "cond.predicate:has-dims" (a one-element predicate of rank > 0: made 0-d, it passes).
  std::vector<std::string> features;
  /// The same features in words, in probe order ("the predicate of cond is batched at the outer
  /// level", ...).
  std::vector<std::string> phrases;
  int probes = 0;    ///< runs made
  bool capped = false; ///< stopped at the probe budget: later features were not tried
};

/// True when `candidate` still fails the way the finding did. Called only on valid cases.
using StillFailsProbe = std::function<bool(const Case &candidate)>;

/// Ablates the features of `c` in a fixed order, at most `maxProbes` runs.
Ablation ablate(const Case &c, const StillFailsProbe &stillFails, int maxProbes = 32);

/// "fails only when A, B and C" (or "fails whenever ..." when nothing was essential).
std::string essentialSentence(const Ablation &a);

/// The case with `feature` (a feature's canonical name as filed in a signature, its level named
/// "vmap", "outer" (every enclosing level), "inner", "level K of N", or not named: every level)
/// changed wherever the case has it, as the ablation changes it on one construct: every
/// construct's role of that name (un)batched at those levels, every negative in_dim made
/// positive, chunk_size dropped, one level kept of several, a dtype class moved. nullopt when
/// the case does not have the feature, or the changed case does not validate. Look-behind
/// (step_around.h) steps around a filed bug with it.
std::optional<Case> withoutFeature(const Case &c, const std::string &feature);

/// The case with every program input that `component`'s arguments read ("hop:X": each construct
/// X; "op:X": each statement of op X) unbatched at every level: the component then meets no
/// batched value. nullopt when it reads none that is batched, or the change does not validate.
std::optional<Case> unbatchReadsOf(const Case &c, const std::string &component);

/// The name of level `l` of `n`: "vmap" (one level), "outer"/"inner" (two), "level K of N".
std::string levelName(size_t l, size_t n);

} // namespace vf
