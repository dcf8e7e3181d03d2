#include "ir/program.h"

#include <algorithm>
#include <map>

#include "ir/walk.h"

namespace vf {

bool Stmt::operator==(const Stmt &o) const {
  return op == o.op && args == o.args && attrs == o.attrs && regions == o.regions &&
         results == o.results;
}

namespace {

/// The largest value id, the statement count and the deepest region nesting, in one walk.
struct TreeStats {
  ValueId maxId = -1;
  size_t stmts = 0;
  int depth = 0;
};

TreeStats treeStats(const Block &body) {
  TreeStats t;
  forEachBlock(body, [&](const Block &b, int depth) {
    t.depth = std::max(t.depth, depth);
    for (const auto &p : b.params) t.maxId = std::max(t.maxId, p.id);
    for (const auto &s : b.stmts) {
      ++t.stmts;
      for (const auto &r : s.results) t.maxId = std::max(t.maxId, r.id);
    }
  });
  return t;
}

} // namespace

ValueId Program::nextId() const { return treeStats(body).maxId + 1; }

size_t Program::size() const { return treeStats(body).stmts; }

int Program::depth() const { return treeStats(body).depth; }

std::vector<Type> outputTypes(const Program &p) {
  std::map<ValueId, Type> types;
  forEachBlock(p.body, [&](const Block &b, int) {
    for (const auto &d : b.params) types[d.id] = d.type;
    for (const auto &s : b.stmts)
      for (const auto &d : s.results) types[d.id] = d.type;
  });
  std::vector<Type> out;
  for (auto y : p.body.yields) out.push_back(types[y]);
  return out;
}

std::vector<int> physicalDimLevels(const Case &c, size_t i) {
  std::vector<int> dims(c.program.body.params.at(i).type.rank(), -1);
  for (size_t li = c.spec.levels.size(); li-- > 0;) {
    const auto &l = c.spec.levels[li];
    if (i >= l.in_dims.size() || !l.in_dims[i]) continue;
    int64_t d = *l.in_dims[i], r = static_cast<int64_t>(dims.size()) + 1;
    if (d < 0) d += r;
    dims.insert(dims.begin() + std::clamp<int64_t>(d, 0, r - 1), static_cast<int>(li));
  }
  return dims;
}

const std::vector<std::string> &randomnessNames() {
  static const std::vector<std::string> n = {"error", "different", "same"};
  return n;
}

const char *layoutKindName(Layout::Kind k) {
  switch (k) {
  case Layout::Kind::Contiguous: return "contiguous";
  case Layout::Kind::Transposed: return "transposed";
  case Layout::Kind::Expanded: return "expanded";
  case Layout::Kind::Strided: return "strided";
  case Layout::Kind::Offset: return "offset";
  }
  return "contiguous";
}

static bool layoutHasDim(Layout::Kind k) {
  return k == Layout::Kind::Transposed || k == Layout::Kind::Expanded || k == Layout::Kind::Strided;
}

std::string layoutToString(const Layout &l) {
  std::string s = layoutKindName(l.kind);
  if (layoutHasDim(l.kind)) s += ":" + std::to_string(l.dim);
  return s;
}

std::optional<Layout> parseLayout(const std::string &kind, std::optional<int64_t> dim) {
  for (auto k : {Layout::Kind::Contiguous, Layout::Kind::Transposed, Layout::Kind::Expanded, Layout::Kind::Strided,
                 Layout::Kind::Offset}) {
    if (kind != layoutKindName(k)) continue;
    if (layoutHasDim(k) != dim.has_value()) return std::nullopt;
    return Layout{k, dim.value_or(0)};
  }
  return std::nullopt;
}

Type physicalInputType(const Case &c, size_t i) {
  Type t = c.program.body.params.at(i).type;
  for (auto it = c.spec.levels.rbegin(); it != c.spec.levels.rend(); ++it) {
    if (i >= it->in_dims.size() || !it->in_dims[i]) continue;
    int64_t d = *it->in_dims[i];
    int64_t r = t.rank() + 1;
    if (d < 0) d += r;
    t.shape.insert(t.shape.begin() + d, it->size);
  }
  return t;
}

} // namespace vf
