#pragma once
/// Every limit and distribution of the generators, in one place (YARPGen's GenPolicy).
#include <cstdint>
#include <vector>

#include "ir/types.h"

namespace vf {

struct GenPolicy {
  // ---- program structure ----
  int maxInputs = 3;          ///< program inputs: 1..maxInputs
  int maxRank = 3;            ///< rank of generated input tensors: 0..maxRank
  int maxDimSize = 4;         ///< each dim: 1..maxDimSize
  int maxStmts = 5;           ///< statements per block: 1..maxStmts (regions: 0..maxStmts-2)
  int maxDepth = 2;           ///< nesting depth of regions
  int condPercent = 35;       ///< chance (%) that a statement is a control-flow construct
  int condWeight = 4;         ///< relative weights of the constructs, when one is drawn
  int switchWeight = 2;
  int whileWeight = 2;
  int scanWeight = 2;
  int pythonBoolPercent = 10; ///< chance (%) that a cond's predicate is a Python bool
  int maxOperands = 3;        ///< explicit operands of a construct: 0..maxOperands
  int maxRegionOutputs = 2;   ///< values each region returns: 1..maxRegionOutputs
  int maxOutputs = 3;         ///< program outputs: 1..maxOutputs
  int inputPredicatePercent = 70; ///< predicates computed straight from a program input (symmetric data)
  int tupleRetries = 24;      ///< tries to find arguments an op's type rule accepts
  std::vector<DType> dtypes = {DType::f32};

  // ---- batch spec ----
  std::vector<int64_t> batchSizes = {1, 2, 3, 5, 7};
  int maxLevels = 2;          ///< nested vmap levels: 1..maxLevels
  int nestedPercent = 20;     ///< chance (%) of more than one level
  int noneInDimPercent = 25;  ///< chance (%) an input is not batched at a level
  int chunkPercent = 15;      ///< chance (%) a level sets chunk_size
};

} // namespace vf

#include <string>

namespace vf {

/// Sets one integer field of the policy by name ("max_depth", "max_region_outputs", ...);
/// returns "" on success, else why not (unknown field, value out of range).
std::string setPolicyField(GenPolicy &p, const std::string &key, int64_t value);
/// The names setPolicyField knows, for help texts.
std::vector<std::string> policyFieldNames();

} // namespace vf
