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
  int maxDepth = 4;           ///< nesting depth of regions
  int condPercent = 35;       ///< chance (%) that a statement is a control-flow construct
  int condWeight = 4;         ///< relative weights of the constructs, when one is drawn
  int switchWeight = 2;
  int whileWeight = 2;
  int scanWeight = 2;
  /// Chance (%) that a scan gets an in-place buffer: a fresh tensor its combine_fn updates with
  /// add_, mul_ or copy_ (scan's mutable additional inputs, torch >= 2.14), returned by the scan.
  /// 0: never. Under vmap the buffer is made batched wherever anything is (an exact zero
  /// computed from every input is added to it), so vmap's in-place rule always holds.
  int scanInplacePercent = 30;
  int pythonBoolPercent = 10; ///< chance (%) that a cond's predicate is a Python bool
  int maxOperands = 3;        ///< explicit operands of a construct: 0..maxOperands
  int maxRegionOutputs = 2;   ///< values each region returns: 1..maxRegionOutputs
  int maxOutputs = 3;         ///< program outputs: 1..maxOutputs
  int inputPredicatePercent = 70; ///< predicates computed straight from a program input (symmetric data)
  /// Ops with a restricted domain (sqrt, log, acos, div: OpDef::restrictedDomain), in tenths of
  /// their registry weight: 10 = that weight, 0 = never. Only inside construct regions (branches,
  /// loop bodies, scan combine fns), where a batched cond runs the untaken branch on data outside
  /// the domain; a taken path that leaves it is re-drawn or `ambiguous` (harness/campaign/margin.h).
  int domainOpWeight = 10;
  /// Chance (%) that a cond on a tensor predicate is a guarded one: the predicate is `x > 0` for
  /// a 0-d floating operand x, and the then-branch starts with a restricted-domain op of x
  /// (sqrt or log), the way real code guards one: each example's taken path stays inside the
  /// domain, and a batched cond that runs both branches meets it outside (for the examples that
  /// take the else-branch). 0 with domain_op_weight=0.
  int guardedCondPercent = 20;
  int tupleRetries = 24;      ///< tries to find arguments an op's type rule accepts
  /// 0: a region captures values of the program, of its own scope and of its parent region,
  /// but not its parent's parameters nor values of regions further out. 1: any enclosing
  /// value. Dynamo (torch 2.14) names the lifted inputs of nested higher-order ops after the
  /// nodes they come from, and two such names can collide ("SyntaxError: duplicate argument
  /// 'child' / 'gt_true_branch' in function definition", reports/unbatched-error-dynamo-
  /// duplicate-argument): with 1, about 1.4 % of programs are rejected unbatched for it.
  int deepCaptures = 0;
  /// 0: a campaign stops generating a construct that start-up probes find no batching rule for
  /// in any of its modes (counted once in the summary). 1: keep generating it.
  int keepUnsupported = 0;
  /// Input dtypes, repeated by weight (float32 most often); every program gets at least one
  /// non-empty floating input, since predicates, indices and trip counts are computed from one.
  std::vector<DType> dtypes = {DType::f32, DType::f32, DType::f32, DType::f64, DType::f16,
                               DType::bf16, DType::i64, DType::i32, DType::b8};
  int dtypeMask = 127;        ///< bit k set: DType k (f32 f64 f16 bf16 i64 i32 bool) may be drawn
  int zeroSizePercent = 6;    ///< chance (%) that a drawn shape gets one size-0 dim

  // ---- batch spec ----
  std::vector<int64_t> batchSizes = {1, 2, 2, 3, 5, 7, 11, 13}; ///< 1, 2 and primes
  std::vector<int64_t> largeBatchSizes = {31, 64, 97};
  int largeBatchPercent = 3;  ///< chance (%) a level draws a large size (product of sizes kept <= maxTotalBatch)
  int maxTotalBatch = 128;    ///< the product of the levels' sizes stays at or below this
  int maxLevels = 3;          ///< nested vmap levels: 1..maxLevels
  int nestedPercent = 30;     ///< chance (%) of more than one level
  int equalSizesPercent = 30; ///< chance (%) that nested levels all get the same size
  int noneInDimPercent = 25;  ///< chance (%) an input is not batched at a level
  int unbatchedInputPercent = 10; ///< chance (%) one input is batched at no level at all
  /// Chance (%) that the inputs one selector (cond's predicate, switch's index, a while_loop's
  /// condition) is computed from are left unbatched at one level that batches other inputs: the
  /// batching rules' unbatched-selector path, which random in_dims reach only when every input
  /// the selector reads happens to be left out.
  int unbatchedSelectorPercent = 50;
  int chunkPercent = 20;      ///< chance (%) a level sets chunk_size (half dividing its size, half not)
  int randomnessPercent = 20; ///< chance (%) a level sets randomness to "different" or "same"
  int layoutPercent = 30;     ///< chance (%) a case hands some inputs over non-contiguous
  int maxRedraws = 8;         ///< data re-draws to move predicates off their decision boundary
  /// A program that passes in a campaign's first mode, when that is `direct`, runs again with
  /// this many other batch specs and data (harness/campaign/draw.h: drawRespec): the program is
  /// generated once, and a direct run costs milliseconds. 0: every case is a fresh program.
  int respecsPerPass = 0;

  // ---- opt-in tier for GPU kernel limits ----
  /// 1: half of the cases are batched outer products and fills whose batched element counts
  /// pass 2^31 or 2^32 (tens of GiB: for a GPU; never run on CPU in tests).
  int gpuTier = 0;
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
/// The names setPolicyField knows, for help texts.
std::vector<std::string> policyFieldNames();

} // namespace vf
