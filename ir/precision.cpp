#include "ir/precision.h"

#include <algorithm>
#include <cstdint>

#include "ir/dataflow.h"
#include "ir/walk.h"

namespace vf {
namespace {

/// Smaller is less precise.
int precisionRank(DType d) {
  switch (d) {
  case DType::bf16: return 0;
  case DType::f16: return 1;
  case DType::f32: return 2;
  case DType::f64: return 3;
  default: return 4;
  }
}

std::optional<DType> floatingOrNone(DType d) { return isFloating(d) ? std::optional<DType>(d) : std::nullopt; }

/// ir/dataflow's domain: a value's precision is the least precise of its own dtype and of what
/// it was computed from (nullopt: exact).
struct PrecisionDomain {
  using Fact = std::optional<DType>;
  static Fact join(const Fact &a, const Fact &b) { return lessPrecise(a, b); }
  Fact define(const Def &v, Fact in) const { return lessPrecise(in, floatingOrNone(v.type.dtype)); }
  void selector(const Stmt &, const Fact &) {}
};

} // namespace

std::optional<DType> lessPrecise(std::optional<DType> a, std::optional<DType> b) {
  if (!a) return b;
  if (!b) return a;
  return precisionRank(*a) <= precisionRank(*b) ? a : b;
}

std::unordered_map<ValueId, DType> valuePrecisions(const Program &p) {
  PrecisionDomain d;
  ForwardFlow<PrecisionDomain> flow(d);
  flow.region(p.body, {});
  std::unordered_map<ValueId, DType> out;
  for (const auto &[v, f] : flow.facts())
    if (f) out.emplace(v, *f);
  return out;
}

std::vector<std::optional<DType>> outputPrecisions(const Program &p) {
  auto map = valuePrecisions(p);
  std::vector<std::optional<DType>> out;
  for (auto y : p.body.yields) {
    auto it = map.find(y);
    out.push_back(it == map.end() ? std::nullopt : std::optional<DType>(it->second));
  }
  return out;
}

std::optional<DType> programPrecision(const Program &p) {
  std::optional<DType> all;
  forEachBlock(p.body, [&](const Block &b, int) {
    for (const auto &prm : b.params) all = lessPrecise(all, floatingOrNone(prm.type.dtype));
    for (const auto &s : b.stmts)
      for (const auto &d : s.results) all = lessPrecise(all, floatingOrNone(d.type.dtype));
  });
  return all;
}

} // namespace vf
