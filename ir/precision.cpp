#include "ir/precision.h"

#include <algorithm>
#include <cstdint>

#include "ir/constructs.h"
#include "ir/scan_outputs.h"
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

using P = std::optional<DType>;

/// A forward data-flow pass: a value's precision is the least precise of its own dtype and of
/// what it was computed from. Through a construct, a region's parameters take their arguments'
/// precision, its results their regions' yields', and whatever decides which region runs or how
/// many times (a predicate, a switch index, a loop's condition) reaches every result.
class Analysis {
public:
  std::unordered_map<ValueId, DType> map;

  void region(const Block &b, const std::vector<P> &params) {
    for (size_t i = 0; i < b.params.size(); ++i)
      set(b.params[i].id, lessPrecise(i < params.size() ? params[i] : std::nullopt, floatingOrNone(b.params[i].type.dtype)));
    for (const auto &s : b.stmts) stmt(s);
  }

  P of(ValueId v) const {
    auto it = map.find(v);
    return it == map.end() ? std::nullopt : P(it->second);
  }

private:
  P set(ValueId v, P d) {
    if (d) map[v] = *d;
    return d;
  }

  std::vector<P> ofAll(const std::vector<ValueId> &vs, size_t from = 0, size_t to = SIZE_MAX) const {
    std::vector<P> out;
    for (size_t i = from; i < std::min(to, vs.size()); ++i) out.push_back(of(vs[i]));
    return out;
  }

  /// Runs `regions` with `params` until the loop-carried precisions stop changing: each round
  /// may only make them less precise, and there are four floating dtypes.
  template <class Step> std::vector<P> fixpoint(std::vector<P> carry, Step step) {
    for (int round = 0; round < 8; ++round) {
      std::vector<P> next = step(carry);
      bool same = true;
      for (size_t i = 0; i < carry.size(); ++i) {
        P merged = lessPrecise(carry[i], i < next.size() ? next[i] : std::nullopt);
        same = same && merged == carry[i];
        carry[i] = merged;
      }
      if (same) break;
    }
    return carry;
  }

  /// A scan's result precisions (carries, then ys).
  std::vector<P> scan(const Stmt &s) {
    std::vector<P> res(s.results.size());
    size_t k = static_cast<size_t>(s.attrs.getInt("ncarry"));
    auto xs = ofAll(s.args, k);
    auto carry = fixpoint(ofAll(s.args, 0, k), [&](const std::vector<P> &c) {
      std::vector<P> params = c;
      params.insert(params.end(), xs.begin(), xs.end());
      region(s.regions[0], params);
      return ofAll(s.regions[0].yields, 0, k);
    });
    auto ys = ofAll(s.regions[0].yields, k);
    for (size_t i = 0; i < res.size(); ++i) res[i] = i < k ? (i < carry.size() ? carry[i] : std::nullopt) : (i - k < ys.size() ? ys[i - k] : std::nullopt);
    return res;
  }

  void stmt(const Stmt &s) {
    std::vector<P> res(s.results.size());
    if (s.regions.empty()) {
      P in;
      for (auto a : s.args) in = lessPrecise(in, of(a));
      std::fill(res.begin(), res.end(), in);
    } else {
      switch (constructOf(s).kind) {
      case ConstructKind::Cond:
      case ConstructKind::Switch: {
        // cond's predicate may be a Python bool (an attribute, no argument).
        bool pythonBool = s.attrs.find("pred") != nullptr;
        size_t first = pythonBool ? 0 : 1;
        P selector = first ? of(s.args[0]) : std::nullopt;
        std::fill(res.begin(), res.end(), selector);
        auto operands = ofAll(s.args, first);
        for (const auto &r : s.regions) {
          region(r, operands);
          for (size_t i = 0; i < res.size() && i < r.yields.size(); ++i) res[i] = lessPrecise(res[i], of(r.yields[i]));
        }
        break;
      }
      case ConstructKind::WhileLoop: {
        P trips;
        auto carry = fixpoint(ofAll(s.args), [&](const std::vector<P> &c) {
          region(s.regions[0], c);
          trips = lessPrecise(trips, s.regions[0].yields.empty() ? std::nullopt : of(s.regions[0].yields[0]));
          region(s.regions[1], c);
          return ofAll(s.regions[1].yields);
        });
        for (size_t i = 0; i < res.size(); ++i) res[i] = lessPrecise(i < carry.size() ? carry[i] : std::nullopt, trips);
        break;
      }
      case ConstructKind::Scan:
        // An in-place buffer is a carry in value terms (ir/scan_outputs.h).
        if (scanParts(s).bufs > 0) {
          const Stmt c = buffersAsCarries(s);
          res = buffersBackToEnd(s, scan(c));
        } else {
          res = scan(s);
        }
        break;
      }
    }
    for (size_t i = 0; i < s.results.size(); ++i) set(s.results[i].id, lessPrecise(res[i], floatingOrNone(s.results[i].type.dtype)));
  }
};

} // namespace

std::optional<DType> lessPrecise(std::optional<DType> a, std::optional<DType> b) {
  if (!a) return b;
  if (!b) return a;
  return precisionRank(*a) <= precisionRank(*b) ? a : b;
}

std::unordered_map<ValueId, DType> valuePrecisions(const Program &p) {
  Analysis a;
  std::vector<P> inputs;
  for (const auto &prm : p.body.params) inputs.push_back(floatingOrNone(prm.type.dtype));
  a.region(p.body, inputs);
  return std::move(a.map);
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
