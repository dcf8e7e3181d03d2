#pragma once
/// The program model: SSA values, statements (ops and control-flow constructs with regions),
/// blocks, programs, batch specs and cases.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/attrs.h"
#include "ir/types.h"

namespace vf {

/// Values are numbered; a number is defined once in the whole program (`%7`).
using ValueId = int64_t;

/// A definition: a value and its per-example type.
struct Def {
  ValueId id = 0;
  Type type;
  bool operator==(const Def &) const = default;
};

struct Block;

/// One statement. `op` names an entry of the op registry (no regions) or a control-flow
/// construct (`cond`, ...) whose regions are the branches or bodies. A region may use any
/// value of an enclosing scope (a capture) besides its own parameters.
struct Stmt {
  std::string op;
  std::vector<ValueId> args;
  Attrs attrs;
  std::vector<Block> regions;
  std::vector<Def> results;
  bool operator==(const Stmt &) const;
};

/// A scope: parameters, statements, and the values it yields (a region's results, or the
/// program's outputs).
struct Block {
  std::vector<Def> params;
  std::vector<Stmt> stmts;
  std::vector<ValueId> yields;
  bool operator==(const Block &) const = default;
};

/// A whole program: `body.params` are the inputs, `body.yields` the outputs.
struct Program {
  Block body;
  bool operator==(const Program &) const = default;

  /// One past the largest value id in use.
  ValueId nextId() const;
  /// Number of statements, counting those inside regions, and the constructs themselves.
  size_t size() const;
  /// Deepest nesting of regions (0 for straight-line code).
  int depth() const;
};

/// One `vmap` level. `in_dims[i]` is nullopt for an input that this level does not batch.
/// `randomness` is torch.vmap's argument: "error" (the default), "different" or "same".
struct VmapLevel {
  int64_t size = 1;
  std::vector<std::optional<int64_t>> in_dims;
  std::vector<int64_t> out_dims;
  std::optional<int64_t> chunk_size;
  std::string randomness = "error";
  bool operator==(const VmapLevel &) const = default;
};

/// The randomness settings torch.vmap accepts.
const std::vector<std::string> &randomnessNames();

/// The memory layout a physical (batched) input is handed to vmap in. The values are the
/// same whatever the layout (the reference ignores it); only the strides and the storage
/// offset differ. `dim` is a dim of the physical tensor, in [0, rank).
struct Layout {
  enum class Kind {
    Contiguous, ///< row-major, offset 0
    Transposed, ///< `dim` and the last dim swapped in memory: x.transpose(dim,-1).contiguous().transpose(dim,-1)
    Expanded,   ///< stride 0 along `dim` (never a batch dim): every value repeats along it
    Strided,    ///< every other element of a larger buffer along `dim`, from offset 1 (a step-2 slice)
    Offset,     ///< contiguous, but starting 3 elements into its storage
  };
  Kind kind = Kind::Contiguous;
  int64_t dim = 0;
  bool operator==(const Layout &) const = default;
};

/// "contiguous", "transposed:1", "expanded:0", "strided:2", "offset" (the text format's spelling).
std::string layoutToString(const Layout &l);
/// Parses layoutToString's spelling; nullopt when malformed.
std::optional<Layout> parseLayout(const std::string &kind, std::optional<int64_t> dim);
/// The name of a layout kind ("transposed").
const char *layoutKindName(Layout::Kind k);

/// How a program is batched: `levels[0]` is the outermost vmap. `data_seed` fixes the inputs.
/// `layouts` has one entry per input, or none when every input is contiguous.
struct BatchSpec {
  std::vector<VmapLevel> levels;
  std::vector<Layout> layouts;
  uint64_t data_seed = 0;
  bool operator==(const BatchSpec &) const = default;

  /// Input `i`'s layout (contiguous when `layouts` is empty).
  Layout layoutOf(size_t i) const { return i < layouts.size() ? layouts[i] : Layout{}; }
};

/// A test case: everything needed to run it anywhere.
struct Case {
  Program program;
  BatchSpec spec;
  bool operator==(const Case &) const = default;
};

/// The per-example types of the program's outputs, in order.
std::vector<Type> outputTypes(const Program &p);

/// The physical (batched) type of input `i`: the per-example type with each batching level's
/// dim inserted, innermost level first.
Type physicalInputType(const Case &c, size_t i);

/// For each dim of input `i`'s physical type: the vmap level that batches it, or -1 for a
/// per-example dim.
std::vector<int> physicalDimLevels(const Case &c, size_t i);

} // namespace vf
