#pragma once
/// Look-behind (issue 29): how a case that ends on a bug already filed is changed, as little as
/// possible, so that it no longer meets that bug and the rest of its program is checked.
///
/// A filed signature (signature.h) knows what its bug needs: its culprit, the component of
/// torch's batching that is wrong, and the essential features of the culprit's input, each of
/// which alone, changed, made the shrunk case pass. Its step-arounds, in the order tried:
///   1. each essential feature changed wherever the case has it (ablation.h: withoutFeature):
///      "cond.predicate:batched@inner" unbatches every cond predicate's inputs at the inner
///      level, "chunk_size" drops chunking, ...;
///   2. where the culprit is cond's rule, every cond replaced by both of its branches, inlined,
///      and a torch.where of their results: its per-example meaning, without the rule;
///   3. where the culprit is a construct's rule or an op's batching, every input it reads
///      unbatched (it then meets no batched value);
///   4. vmap's front end canonical: in_dims and out_dims 0 or positive, no chunk_size;
///   5. one level of vmap.
/// Each one is a plain case: its failure is an ordinary finding with its own case.vf.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/program.h"

namespace vf {

struct StepAround {
  enum class Kind { Feature, SelectBothBranches, UnbatchReads, CanonicalSpec, OneLevel };
  Kind kind = Kind::Feature;
  std::string arg; ///< Feature: the feature's name; UnbatchReads: the component

  /// What it changes, in words: "every cond's predicate unbatched at the inner level (filed
  /// feature `cond.predicate:batched@inner`)".
  std::string phrase() const;
  /// `c` changed, or nullopt when it does not apply to `c` (changes nothing, or does not validate).
  std::optional<Case> apply(const Case &c) const;
};

/// Every cond with a tensor predicate replaced by both of its branches, inlined, and a
/// torch.where of their results per output (the per-example meaning of cond): the program then
/// meets no cond's rule. nullopt when it has no such cond, or the result does not validate.
std::optional<Case> selectBothBranches(const Case &c);

/// The step-arounds of the bug filed under `signatureKey`, in the order to try them.
std::vector<StepAround> stepAroundsOf(const std::string &signatureKey);

/// meta.json's "step_around": the phrases of stepAroundsOf, in order.
nlohmann::json stepAroundJson(const std::string &signatureKey);

} // namespace vf
