#include "ir/walk.h"

namespace vf {

namespace {

template <class B, class Fn> void walkBlocks(B &b, int depth, const Fn &fn) {
  fn(b, depth);
  for (auto &s : b.stmts)
    for (auto &r : s.regions) walkBlocks(r, depth + 1, fn);
}

void walkStmts(const Block &b, int depth, const std::function<void(const Stmt &, int)> &fn) {
  for (const auto &s : b.stmts) {
    fn(s, depth);
    for (const auto &r : s.regions) walkStmts(r, depth + 1, fn);
  }
}

} // namespace

void forEachBlock(const Block &b, const std::function<void(const Block &, int)> &fn) { walkBlocks(b, 0, fn); }

void forEachBlock(Block &b, const std::function<void(Block &, int)> &fn) { walkBlocks(b, 0, fn); }

void forEachStmt(const Block &b, const std::function<void(const Stmt &, int)> &fn) { walkStmts(b, 0, fn); }

void replaceUses(Block &body, const std::map<ValueId, ValueId> &m) {
  auto sub = [&](ValueId &v) {
    if (auto it = m.find(v); it != m.end()) v = it->second;
  };
  forEachBlock(body, [&](Block &b, int) {
    for (auto &s : b.stmts)
      for (auto &a : s.args) sub(a);
    for (auto &y : b.yields) sub(y);
  });
}

Block inlinedRegion(const Stmt &s, size_t k) {
  Block r = s.regions.at(k);
  std::map<ValueId, ValueId> m;
  const size_t first = s.args.size() - r.params.size(); // cond's operands follow its predicate
  for (size_t i = 0; i < r.params.size(); ++i) m[r.params[i].id] = s.args[first + i];
  replaceUses(r, m);
  return r;
}

} // namespace vf
