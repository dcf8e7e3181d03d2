#include "ir/dependence.h"

#include <unordered_map>

#include "ir/dataflow.h"

namespace vf {

namespace {

/// ir/dataflow's domain: a value's fact is the set of program inputs it is computed from (bit i:
/// input i), its selectors' included.
struct DependenceDomain {
  using Fact = uint64_t;
  static Fact join(Fact a, Fact b) { return a | b; }
  Fact define(const Def &, Fact in) const { return in; }
  /// A selector met again (a loop around it re-walked, or a scan's regions copied) is the same
  /// selector: the same first result (every statement defines a value, ir/validate).
  void selector(const Stmt &s, Fact f) {
    auto [it, fresh] = index.try_emplace(s.results.at(0).id, order.size());
    if (fresh) order.push_back(f);
    else order[it->second] |= f;
  }
  std::vector<uint64_t> order;
  std::unordered_map<ValueId, size_t> index;
};

/// The walk over `p` from its inputs, each its own bit.
void walk(const Program &p, ForwardFlow<DependenceDomain> &flow) {
  std::vector<uint64_t> params;
  for (size_t i = 0; i < p.body.params.size(); ++i) params.push_back(i < 64 ? uint64_t{1} << i : 0);
  flow.region(p.body, params);
}

} // namespace

std::vector<uint64_t> selectorInputs(const Program &p) {
  DependenceDomain d;
  ForwardFlow<DependenceDomain> flow(d);
  walk(p, flow);
  return d.order;
}

std::unordered_map<ValueId, uint64_t> valueInputs(const Program &p) {
  DependenceDomain d;
  ForwardFlow<DependenceDomain> flow(d);
  walk(p, flow);
  return flow.facts();
}

} // namespace vf
