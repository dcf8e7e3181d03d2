#pragma once
/// The one walk over a program tree: every block (a program body or a construct's region) and
/// every statement, outermost first. Passes that need scoping (the validator, the printer, the
/// emitter) keep their own structured recursion; passes that only visit everything use this.
#include <functional>
#include <map>

#include "ir/program.h"

namespace vf {

/// Calls `fn(block, depth)` for `b` (depth 0) and then, pre-order, for every region under it
/// (a construct's regions at its block's depth + 1). A region is visited after `fn` has seen
/// the block that holds it, so `fn` may remove statements of the block it is given: their
/// regions are then not visited.
void forEachBlock(const Block &b, const std::function<void(const Block &, int depth)> &fn);
/// The same walk over a block that `fn` may change.
void forEachBlock(Block &b, const std::function<void(Block &, int depth)> &fn);

/// Calls `fn(stmt, depth)` for every statement of `b` and of the regions under it, pre-order
/// (a construct before the statements of its regions); `b`'s own statements are at depth 0.
void forEachStmt(const Block &b, const std::function<void(const Stmt &, int depth)> &fn);

/// Replaces every use (a statement's argument, a block's yield) of a key of `m` in `body` and the
/// regions under it by its value.
void replaceUses(Block &body, const std::map<ValueId, ValueId> &m);

/// Region `k` of construct `s` with its parameters replaced by the operands they are passed (the
/// last arguments of `s`): its statements and yields, ready to stand where `s` stood.
Block inlinedRegion(const Stmt &s, size_t k);

} // namespace vf
