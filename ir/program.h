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
struct VmapLevel {
  int64_t size = 1;
  std::vector<std::optional<int64_t>> in_dims;
  std::vector<int64_t> out_dims;
  std::optional<int64_t> chunk_size;
  bool operator==(const VmapLevel &) const = default;
};

/// How a program is batched: `levels[0]` is the outermost vmap. `data_seed` fixes the inputs.
struct BatchSpec {
  std::vector<VmapLevel> levels;
  uint64_t data_seed = 0;
  bool operator==(const BatchSpec &) const = default;
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

} // namespace vf
