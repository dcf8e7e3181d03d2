#pragma once
/// Every limit and distribution of the generators, in one place (YARPGen's GenPolicy).
#include <cstdint>
#include <vector>

#include "ir/constructs.h"
#include "ir/types.h"

namespace vf {

struct GenPolicy {
  // The integer knobs, each with its default, its range and what it does: generators/policy.def.
#define VF_KNOB(key, member, def, lo, hi, what) int member = def;
#include "generators/policy.def"
#undef VF_KNOB

  /// Relative weights of the constructs when one is drawn (`--gen KNOB_weight`), indexed by
  /// ConstructKind; the defaults are the construct registry's (ConstructDef::weight).
  std::vector<int> constructWeights = defaultConstructWeights();
  int &weight(ConstructKind k) { return constructWeights.at(static_cast<size_t>(k)); }
  int weight(ConstructKind k) const { return constructWeights.at(static_cast<size_t>(k)); }

  int tupleRetries = 24; ///< tries to find arguments an op's type rule accepts
  /// Input dtypes, repeated by weight (float32 most often); every program gets at least one
  /// non-empty floating input, since predicates, indices and trip counts are computed from one.
  std::vector<DType> dtypes = {DType::f32, DType::f32, DType::f32, DType::f64, DType::f16,
                               DType::bf16, DType::i64, DType::i32, DType::b8};
  std::vector<int64_t> batchSizes = {1, 2, 2, 3, 5, 7, 11, 13}; ///< 1, 2 and primes
  std::vector<int64_t> largeBatchSizes = {31, 64, 97};

  /// The registry's weight of every construct, in ConstructKind order.
  static std::vector<int> defaultConstructWeights();
};

/// The dtypes the policy may draw (its weighted list filtered by dtypeMask; f32 if none is left).
std::vector<DType> allowedDTypes(const GenPolicy &p);

} // namespace vf

#include <string>

namespace vf {

/// Sets one integer field of the policy by name ("max_depth", "max_region_outputs", ...);
/// returns "" on success, else why not (unknown field, value out of range).
std::string setPolicyField(GenPolicy &p, const std::string &key, int64_t value);
/// Applies one "KEY=VALUE" setting (`--gen KEY=VALUE`, an item of $VMAPFUZZ_GEN): VALUE must be
/// a whole integer. Returns "" on success, else why not (no '=', not an integer, or
/// setPolicyField's reason); the policy is unchanged then.
std::string applyPolicySetting(GenPolicy &p, const std::string &keyValue);
/// The names setPolicyField knows, for help texts: policy.def's keys, then each construct's
/// weight knob.
std::vector<std::string> policyFieldNames();
/// The `--gen` knob of a construct's generation weight: "while_weight".
std::string weightKnob(const ConstructDef &d);

} // namespace vf
