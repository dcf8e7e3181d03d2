#pragma once
/// The program emitter behind emitProgram (python_emit.h): statements, regions and control-flow
/// constructs, written into a PyWriter. Each construct is one plan (python_constructs.cpp): its
/// regions as functions and the line that calls the op, the same for both APIs, which differ
/// only in the callee and in the captured values lifted into explicit operands (direct mode).
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/backends/exec_config.h"
#include "harness/backends/torch/py_writer.h"
#include "ir/program.h"

namespace vf {

/// How a region returns its yields: a tuple (branches, loop bodies), one value (a loop's
/// cond_fn), or (carries, ys) (the public scan's combine_fn).
enum class Ret { Tuple, Single, CarryAndYs };

/// How ProgramEmitter::block ends a block.
struct BlockOptions {
  /// A control-flow region: it may not return an alias of its inputs or of its other yields,
  /// so a yield it did not compute itself (with an op that is not a view) is cloned, as is
  /// every repeat of one.
  bool region = false;
  Ret ret = Ret::Tuple;
  size_t split = 0;   ///< Ret::CarryAndYs: the first `split` yields are the carries
  /// Leading yields that are loop carries: torch wants a carry's metadata, strides included,
  /// to match its initial value's, so they are returned as fresh contiguous tensors.
  size_t carries = 0;
  /// Trailing yields that are a scan's in-place buffers: the statements update them in place,
  /// they are not returned.
  size_t buffers = 0;
};

/// One region of a construct as a Python function `def name(params):`.
struct RegionFn {
  std::string name;
  const Block *body = nullptr;
  BlockOptions opt;
  std::vector<std::string> params;   ///< the region's own parameters, then the lifted values
  std::vector<std::string> prologue; ///< lines before the body (the public scan unpacks its carry and x)
};

/// A construct's statement: buffer lines, its regions, the call, and the lines after it.
struct ConstructPlan {
  std::vector<std::string> before; ///< e.g. a scan's buffers, made fresh from their initial values
  std::vector<RegionFn> regions;
  std::string call;                ///< `targets = op(...)`
  std::vector<std::string> after;  ///< e.g. a scan's buffer results bound to the buffers
};

class ProgramEmitter {
public:
  ProgramEmitter(const Program &p, Api api);
  /// `def program(...)`; `noGrad`: decorated with torch.no_grad() (see emitProgram).
  std::string program(const Program &p, bool noGrad);

private:
  PyWriter w_;
  std::set<ValueId> inputs_;
  /// Direct mode: the higher-order ops are called themselves, through the `_cond`, `_switch`,
  /// `_while_loop` and `_scan` helpers of the construct registry; captured values are lifted
  /// into explicit trailing operands, as dynamo lifts them on the public path.
  bool direct_;
  /// Values that share storage have the same root: a view op's result shares its argument's.
  std::map<ValueId, ValueId> root_;
  /// Captured values re-bound to a clone while a construct's regions are emitted.
  std::map<ValueId, std::string> rename_;

  std::string v(ValueId id) const;
  ValueId root(ValueId id) const;
  std::vector<std::string> names(const std::vector<ValueId> &ids) const;
  /// Emits the statements of `b` and its return.
  void block(const Block &b, const BlockOptions &opt);
  void stmt(const Stmt &s);
  void function(const RegionFn &r);
  /// torch rejects a higher-order op whose inputs (operands and captured values) share
  /// storage: operands are cloned where they alias an earlier one; an aliasing captured value
  /// is re-bound to a clone emitted before the construct. Returns the renames to undo after it.
  std::vector<ValueId> unalias(const Stmt &s, size_t firstOperand, std::vector<std::string> &operands);
  /// The plan of a construct (python_constructs.cpp): `args` its operands, `lifted` the captured
  /// values it passes explicitly (direct mode; empty on the public path).
  ConstructPlan plan(const Stmt &s, const std::vector<std::string> &args, const std::vector<std::string> &lifted) const;
  ConstructPlan scanPlan(const Stmt &s, const std::vector<std::string> &args, const std::vector<std::string> &lifted) const;
  RegionFn region(std::string name, const Block &b, BlockOptions opt, const std::vector<std::string> &lifted) const;
};

/// Values used inside `s`'s regions but defined outside them: dynamo lifts them as inputs.
std::set<ValueId> capturedValues(const Stmt &s);
/// Fresh tensors with the canonical contiguous strides (`.contiguous()` keeps odd strides of
/// size-1 dims, which torch's carry metadata check then rejects).
std::vector<std::string> contiguous(std::vector<std::string> xs);

} // namespace vf
