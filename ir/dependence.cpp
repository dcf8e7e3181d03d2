#include "ir/dependence.h"

#include <unordered_map>

#include "ir/constructs.h"

namespace vf {

namespace {

class Deps {
public:
  std::vector<uint64_t> selectors;

  explicit Deps(const Program &p) {
    for (size_t i = 0; i < p.body.params.size() && i < 64; ++i) dep_[p.body.params[i].id] = uint64_t{1} << i;
    block(p.body);
  }

private:
  std::unordered_map<ValueId, uint64_t> dep_;

  uint64_t of(ValueId v) const {
    auto it = dep_.find(v);
    return it == dep_.end() ? 0 : it->second; // a value of no input (a constant)
  }

  /// Walks `b` (its parameters set by the caller); returns what its yields depend on.
  uint64_t block(const Block &b) {
    for (const auto &s : b.stmts) {
      uint64_t args = 0;
      for (auto a : s.args) args |= of(a);
      uint64_t out = args;
      if (!s.regions.empty()) out |= construct(s, args);
      for (const auto &r : s.results) dep_[r.id] = out;
    }
    uint64_t y = 0;
    for (auto v : b.yields) y |= of(v);
    return y;
  }

  /// A construct's regions; returns what their yields depend on. A value a region captures is
  /// read through dep_ as it is (it was defined before the construct).
  uint64_t construct(const Stmt &s, uint64_t args) {
    const ConstructDef &def = constructOf(s);
    const bool pythonBool = def.kind == ConstructKind::Cond && s.attrs.find("pred");
    const size_t lead = !def.selector.empty() && !pythonBool ? 1 : 0;
    if (lead) selectors.push_back(of(s.args[0]));
    if (!def.selector.empty()) { // alternatives: parameter k is operand k
      uint64_t out = 0;
      for (const auto &r : s.regions) {
        for (size_t k = 0; k < r.params.size() && lead + k < s.args.size(); ++k) dep_[r.params[k].id] = of(s.args[lead + k]);
        out |= block(r);
      }
      return out;
    }
    // A loop: its carries take what the regions yield, so walk until nothing more flows in.
    uint64_t carried = args, out = 0, loopCond = 0;
    const size_t mark = selectors.size();
    for (;;) {
      selectors.resize(mark); // the regions' own selectors: kept from the last walk only
      out = 0;
      for (size_t ri = 0; ri < s.regions.size(); ++ri) {
        for (const auto &p : s.regions[ri].params) dep_[p.id] = carried;
        uint64_t y = block(s.regions[ri]);
        if (def.kind == ConstructKind::WhileLoop && ri == 0) loopCond = y;
        out |= y;
      }
      if ((carried | out) == carried) break;
      carried |= out;
    }
    if (def.kind == ConstructKind::WhileLoop) selectors.push_back(loopCond);
    return out;
  }
};

} // namespace

std::vector<uint64_t> selectorInputs(const Program &p) { return Deps(p).selectors; }

} // namespace vf
