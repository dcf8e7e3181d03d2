#pragma once
/// The typing rules of the control-flow constructs, shared by the validator and the shrinker's
/// type re-inference. Semantics: see oracles/reference.h; Python: harness/python_emit.cpp.
///
///   cond(pred, operands...) [then, else]          pred: one-element bool
///   switch(index, operands...) [branch0, ...]     index: one-element integer, clamped
///   while_loop(carries...) [cond_fn, body_fn]     cond_fn yields a one-element bool,
///                                                 body_fn yields the next carries
///   scan(carries..., xs..., bufs...) {ncarry=K, reverse=B, nbuf=M} [combine]
///                                                 combine(carries, slices of xs at dim 0, bufs)
///                                                 yields the next carries, then ys, then the M
///                                                 buffers' new values; results: final carries,
///                                                 ys stacked at dim 0, final buffers. `nbuf` is
///                                                 optional (0). A buffer is an additional input
///                                                 that combine_fn updates in place (a KV cache):
///                                                 its new value is the result of one in-place op
///                                                 (OpDef::inplace) on its parameter, which has
///                                                 no other use; in value terms, a carry.
///   vmap(operands...) {in_dims=[D|None, ...], out_dims=[O, ...]} [fn]
///                                                 torch.vmap inside the program: fn runs on
///                                                 each slice of the operands along their in_dims
///                                                 (None: the whole operand), its results are
///                                                 stacked at out_dims. Every mapped operand has
///                                                 the same size N >= 1 there; at least one is
///                                                 mapped; fn may capture outer values.
///   grad(operands...) {argnums=[I, ...]} [fn]      torch.func.grad inside the program: fn
///                                                 takes the operands and yields one 0-d
///                                                 floating value; the results are its
///                                                 gradients with respect to the operands at
///                                                 argnums (increasing, each floating), of their
///                                                 types, zero where it does not depend on one.
///                                                 Captured values are constants to it.
///   jvp(primals..., tangents...) [fn]             torch.func.jvp inside the program: K
///                                                 floating primals, then K tangents of the
///                                                 same types (values of the program); fn takes
///                                                 the primals and yields floating values; the
///                                                 results are its yields, then their tangents
///                                                 (the Jacobian of fn times the tangents).
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"

namespace vf {

/// The most iterations a while_loop may run per example, in the reference and in every
/// lowering: a runaway loop is an error, not a hang.
inline constexpr int kMaxIterations = 10000;

/// Which construct a statement is. Every layer that gives a construct meaning (reference
/// semantics, Python, libtorch lowering, generation) switches over this enum without a
/// `default:`, and the build makes a missing case an error (-Werror=switch): adding a construct
/// here makes the compiler list every place that must learn it.
enum class ConstructKind { Cond, Switch, WhileLoop, Scan, Vmap, Grad, Jvp };

/// One control-flow construct: everything about it that is data, in one entry (the way an op
/// is one entry of the op registry). Semantics are code in the layers above (see ConstructKind).
struct ConstructDef {
  ConstructKind kind;
  std::string name; ///< the op name of the text format and of signatures: "while_loop"
  std::string knob; ///< its generation weight is `--gen KNOB_weight`: "while"
  int weight;       ///< its default generation weight, relative to the other constructs'
  /// A construct whose first argument picks the region that runs (cond's predicate, switch's
  /// index): the name of that argument, else "". Its regions are alternatives, each yielding
  /// the construct's results; its other arguments are the regions' operands.
  std::string selector;
  /// The coverage feature of the selector's batching: "pred" gives "pred=batched|unbatched".
  std::string selectorFeature;
  /// Coverage rows of its own uses, besides NAME and NAME-multi-output (harness/campaign/coverage.cpp).
  std::vector<std::string> coverageRows;
  /// The name of region `i` in messages: "then-branch", "body_fn", "branch 2".
  std::string (*regionName)(size_t i);
  /// Typing: see constructParams and constructResults.
  std::string (*params)(const Stmt &s, const std::vector<Type> &args, std::vector<std::vector<Type>> &params);
  std::string (*results)(const Stmt &s, const std::vector<Type> &args, const std::vector<std::vector<Type>> &yields,
                         std::vector<Type> &results);
  /// Python. `publicImport`: what a program that calls the public API needs ("" when it is
  /// under `torch.`); `directImport` and `directHelper`: direct mode's import of the op itself
  /// and the helper that does what the public wrapper does before it calls the op.
  std::string publicImport, directImport, directHelper;
  /// Python emitted in every mode where the program uses it: vmap's `_vmap`, torch.vmap in the
  /// batched run and a Python loop in `per_example` (whose run stays free of vmap).
  std::string helper = "";
  /// A function transform (vmap, grad, jvp) rather than a higher-order op: the generator weighs it
  /// `--gen region_transform_factor` times inside a region (levels interleaved with control flow).
  bool transform = false;
};

/// How a scan's arguments split (the registry's typing has checked them): `carries` carries,
/// `xs` scanned inputs, then `bufs` in-place buffers. The combine_fn's parameters and the
/// scan's results follow the same split (ys in place of xs among the results, before the bufs).
struct ScanParts {
  size_t carries = 0, xs = 0, bufs = 0;
};
ScanParts scanParts(const Stmt &s);

/// A vmap statement's mapped size (the size of its mapped operands' in_dims), given its
/// arguments' types; -1 when none is mapped or its attributes are malformed.
int64_t vmapSize(const Stmt &s, const std::vector<Type> &args);
/// A vmap statement's in_dims, None as nullopt (its attributes checked by the validator).
std::vector<std::optional<int64_t>> vmapInDims(const Stmt &s);

/// A grad statement's argnums (its attributes checked by the validator; empty when malformed).
std::vector<size_t> gradArgnums(const Stmt &s);

/// Every construct, in a fixed order (help texts, coverage rows, probes).
const std::vector<ConstructDef> &constructRegistry();
/// The construct named `op`, or nullptr for an op or an unknown name.
const ConstructDef *findConstruct(const std::string &op);
/// The construct of a statement with regions; throws std::logic_error for anything else.
const ConstructDef &constructOf(const Stmt &s);
/// The entry of a kind.
const ConstructDef &constructDef(ConstructKind k);

/// True for every construct of the registry (cond, switch, while_loop, scan, vmap, grad, jvp).
bool isConstruct(const std::string &op);
/// The constructs' names, for help texts and coverage.
const std::vector<std::string> &constructNames();

/// Checks the construct's arguments and attributes and gives each region's parameter types.
std::string constructParams(const Stmt &s, const std::vector<Type> &args, std::vector<std::vector<Type>> &params);
/// Checks what each region yields and gives the construct's result types.
std::string constructResults(const Stmt &s, const std::vector<Type> &args, const std::vector<std::vector<Type>> &yields,
                             std::vector<Type> &results);

} // namespace vf
