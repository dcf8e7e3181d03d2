#pragma once
/// The op registry: the one place an op is defined. Each entry gives its arity, attribute
/// domains, type rule, ATen evaluation, Python emission and generator weight. The entries live
/// in ops.cpp; generic families (pointwise unary, broadcasting binary, reductions) cover most.
#include <functional>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "ir/attrs.h"
#include "ir/types.h"

namespace vf {

/// What values an attribute may take, relative to the op's argument types. The generator
/// draws from it; the validator checks against it.
enum class AttrDomain {
  Dim,       ///< a dim of argument 0, negative allowed: [-r, r)
  NewDim,    ///< a position to insert a dim into argument 0: [-(r+1), r]
  Perm,      ///< a permutation of argument 0's dims
  Bool,      ///< true / false
  Scalar,    ///< a float scalar in [-2, 2]
  Index,     ///< an index into argument 0 along the op's `dim` attribute: [0, size)
  SignedIndex, ///< the same, counted from the end too (select): [-size, size)
  Indices,   ///< 1 to 3 such indices
  Shape,     ///< a shape with as many elements as argument 0 (reshape)
  Count,     ///< a small positive count in [1, 3] (chunks, split sizes, steps)
};

struct AttrSpec {
  std::string name;
  AttrDomain domain;
};

/// Per-evaluation bookkeeping: how close any comparison came to its decision boundary.
struct EvalCtx {
  double minMargin = 1e300; ///< smallest |a - b| seen by a float comparison, scaled
  /// The margin scale of the precision the op's arguments were computed in (ir/precision.h):
  /// a float64 argument cast from a float32 sum is as close to a boundary as a float32 one.
  /// The reference sets it per statement; 1 (float32 or better) otherwise.
  double precisionScale = 1.0;
  /// Off under vmap (the libtorch backend): measuring reads values with .item(), which a
  /// batched tensor refuses; the reference measures margins for every case anyway.
  bool measureMargins = true;
  /// Gradient modes: how close an argument came to a point where the op has no derivative
  /// (abs and relu at 0, clamp at its bounds, maximum/minimum at a tie), scaled as minMargin.
  /// Measured only when asked (the reference's VJP), so forward runs are unchanged.
  bool measureKinks = false;
  double minKink = 1e300;
  /// Ops with a restricted domain (sqrt, log, acos, div): the smallest distance of an argument
  /// from the edge of the op's domain, scaled as minMargin; negative where an argument left the
  /// domain or a finite argument gave a non-finite result (log(0), x / 0). Measured with the
  /// margins, so only where an op is actually evaluated per example (the reference's taken paths).
  double minDomain = 1e300;
  std::string domainOp; ///< the op that set minDomain
};

/// How much closer than a float32 value a value of dtype `t` must come to a decision boundary
/// to be as ambiguous (1 for float32 and float64, less for the half-precision dtypes).
double marginScale(at::ScalarType t);

/// Returns "" when the argument types and attributes are acceptable, else why not.
using TypeRule = std::function<std::string(const std::vector<Type> &, const Attrs &, Type &out)>;
using EvalFn = std::function<at::Tensor(const std::vector<at::Tensor> &, const Attrs &, EvalCtx &)>;

struct OpDef {
  std::string name;
  int arity = 1;
  std::vector<AttrSpec> attrs;
  TypeRule type;
  EvalFn eval;
  /// Python expression; `{0}`, `{1}`... are the arguments, `{name}` an attribute.
  std::string python;
  /// Relative weight for the generator (0 = never generated).
  double weight = 1.0;
  /// Argument dtypes the generator should offer: floating only, or any.
  bool floatArgsOnly = true;
  /// The result may share storage with argument 0 (a view): torch.cond branches may not
  /// return one, so the emitter clones it.
  bool view = false;
  /// Defined on part of its arguments only (sqrt, log, acos, div): the generator puts it only
  /// inside construct regions (GenPolicy::domainOpWeight), and its evaluation records how close
  /// it came to its domain's edge (EvalCtx::minDomain).
  bool restrictedDomain = false;
  /// An in-place update of a scan's buffer (`add_`, `mul_`, `copy_`): argument 0 must be a
  /// buffer parameter of the scan combine_fn it sits in (ir/constructs.h, `nbuf`), and its result
  /// is that buffer's value after the update. Evaluated out of place (the value semantics); the
  /// Python template mutates argument 0. Never drawn by the op generator (weight 0): the scan
  /// generator makes them.
  bool inplace = false;
  /// How many trailing arguments are read for their shape only (expand_as's target): a batched
  /// one does not make the result batched (ir/buffers.h).
  int shapeArgs = 0;
};

/// All registered ops, in a fixed order.
const std::vector<OpDef> &allOps();
/// Looks up an op by name; nullptr when unknown.
const OpDef *findOp(const std::string &name);

/// Checks attribute presence and domains for `op` against argument types ("" when fine).
std::string checkAttrs(const OpDef &op, const std::vector<Type> &args, const Attrs &attrs);

/// Fills the op's Python template with argument expressions and attributes.
std::string emitPython(const OpDef &op, const std::vector<std::string> &args, const Attrs &attrs);

} // namespace vf
