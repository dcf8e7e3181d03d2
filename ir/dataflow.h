#pragma once
/// The one forward data-flow walk over a program, parameterised by what it tracks: a value's
/// fact is the join of the facts of what it was computed from. ir/precision (the least precise
/// floating dtype) and ir/dependence (which inputs) are its two domains.
///
/// Through a construct:
///  - a region's parameters take its operands' facts (a loop's: its carries');
///  - a value a region captures is read as it is (it was defined before the construct);
///  - each result takes what the regions yield for it, joined with whatever decides which region
///    runs or how many times: cond's predicate, switch's index, while_loop's condition;
///  - a loop's carries are walked to a fixpoint, each carry following what flows into it; a
///    while_loop's condition reaches every carry (under vmap a batched condition makes every
///    carry batched; the trip count decides every carry's value);
///  - a scan's in-place buffers are carries in value terms (ir/scan_outputs.h).
#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ir/constructs.h"
#include "ir/program.h"
#include "ir/scan_outputs.h"

namespace vf {

/// What a domain `D` provides:
///   using Fact = ...;                              // default-constructed: the least fact
///   static Fact join(const Fact &, const Fact &);  // monotone, of finite height
///   Fact define(const Def &v, Fact in) const;      // a value defined from `in` (its own type may add)
///   void selector(const Stmt &s, const Fact &f);   // a selector's fact, met in walk order (again, never
///                                                  // smaller, each time a loop around it is re-walked;
///                                                  // a scan with buffers walks a copy of its regions)
template <class D> class ForwardFlow {
public:
  using Fact = typename D::Fact;

  explicit ForwardFlow(D &domain) : d_(domain) {}

  /// Walks `b`, its parameters taking `params` (missing ones: the least fact).
  void region(const Block &b, const std::vector<Fact> &params) {
    for (size_t i = 0; i < b.params.size(); ++i) facts_[b.params[i].id] = d_.define(b.params[i], i < params.size() ? params[i] : Fact{});
    for (const auto &s : b.stmts) stmt(s);
  }

  Fact of(ValueId v) const {
    auto it = facts_.find(v);
    return it == facts_.end() ? Fact{} : it->second;
  }

  const std::unordered_map<ValueId, Fact> &facts() const { return facts_; }

private:
  D &d_;
  std::unordered_map<ValueId, Fact> facts_;

  std::vector<Fact> ofAll(const std::vector<ValueId> &vs, size_t from = 0, size_t to = SIZE_MAX) const {
    std::vector<Fact> out;
    for (size_t i = from; i < std::min(to, vs.size()); ++i) out.push_back(of(vs[i]));
    return out;
  }

  static void joinInto(std::vector<Fact> &into, const std::vector<Fact> &more) {
    for (size_t i = 0; i < into.size() && i < more.size(); ++i) into[i] = D::join(into[i], more[i]);
  }

  /// Runs `step` from `carry` until the carries stop changing: each round only joins more in,
  /// and the domain has finite height.
  template <class Step> std::vector<Fact> fixpoint(std::vector<Fact> carry, Step step) {
    for (;;) {
      std::vector<Fact> next = carry;
      joinInto(next, step(carry));
      if (next == carry) return carry;
      carry = std::move(next);
    }
  }

  /// A scan's results (carries, then ys).
  std::vector<Fact> scan(const Stmt &s) {
    const auto k = static_cast<size_t>(s.attrs.getInt("ncarry"));
    const auto xs = ofAll(s.args, k);
    auto carry = fixpoint(ofAll(s.args, 0, k), [&](const std::vector<Fact> &c) {
      std::vector<Fact> params = c;
      params.insert(params.end(), xs.begin(), xs.end());
      region(s.regions[0], params);
      return ofAll(s.regions[0].yields, 0, k);
    });
    const auto ys = ofAll(s.regions[0].yields, k);
    carry.insert(carry.end(), ys.begin(), ys.end());
    carry.resize(s.results.size());
    return carry;
  }

  /// vmap: its function runs on (slices of) the operands; each result is one of its yields,
  /// stacked (a slice depends on its operand as the operand does).
  std::vector<Fact> mapped(const Stmt &s) {
    region(s.regions[0], ofAll(s.args));
    std::vector<Fact> res = ofAll(s.regions[0].yields);
    res.resize(s.results.size());
    return res;
  }

  /// grad: its function runs on the operands; a gradient depends on whatever its 0-d value
  /// depends on, and on every operand (the derivative is taken at them).
  std::vector<Fact> gradient(const Stmt &s) {
    region(s.regions[0], ofAll(s.args));
    Fact f = s.regions[0].yields.empty() ? Fact{} : of(s.regions[0].yields[0]);
    for (auto a : s.args) f = D::join(f, of(a));
    return std::vector<Fact>(s.results.size(), f);
  }

  /// jvp: its function runs on the primals; its outputs are its yields, and each tangent depends
  /// on what the outputs depend on and on the tangents and primals (J t, J taken at the primals).
  std::vector<Fact> pushedForward(const Stmt &s) {
    const size_t k = s.args.size() / 2;
    region(s.regions[0], ofAll(s.args, 0, k));
    std::vector<Fact> res = ofAll(s.regions[0].yields);
    Fact all{};
    for (const auto &f : res) all = D::join(all, f);
    for (auto a : s.args) all = D::join(all, of(a));
    res.resize(s.results.size(), all);
    return res;
  }

  /// cond and switch: one region runs, chosen by the selector (absent for a Python-bool predicate).
  std::vector<Fact> alternatives(const Stmt &s) {
    const bool pythonBool = s.attrs.find("pred") != nullptr;
    const size_t first = pythonBool ? 0 : 1;
    const Fact sel = first ? of(s.args[0]) : Fact{};
    if (first) d_.selector(s, sel);
    std::vector<Fact> res(s.results.size(), sel);
    const auto operands = ofAll(s.args, first);
    for (const auto &r : s.regions) {
      region(r, operands);
      joinInto(res, ofAll(r.yields));
    }
    return res;
  }

  /// while_loop: its condition, then its body, until the carries stop changing.
  std::vector<Fact> whileLoop(const Stmt &s) {
    Fact trips{};
    auto carry = fixpoint(ofAll(s.args), [&](const std::vector<Fact> &c) {
      region(s.regions[0], c);
      trips = D::join(trips, s.regions[0].yields.empty() ? Fact{} : of(s.regions[0].yields[0]));
      d_.selector(s, trips);
      region(s.regions[1], c);
      std::vector<Fact> next = ofAll(s.regions[1].yields);
      for (auto &f : next) f = D::join(f, trips);
      return next;
    });
    for (auto &f : carry) f = D::join(f, trips);
    return carry;
  }

  void stmt(const Stmt &s) {
    std::vector<Fact> res(s.results.size());
    if (s.regions.empty()) {
      Fact in{};
      for (auto a : s.args) in = D::join(in, of(a));
      std::fill(res.begin(), res.end(), in);
    } else {
      switch (constructOf(s).kind) {
      case ConstructKind::Cond:
      case ConstructKind::Switch: res = alternatives(s); break;
      case ConstructKind::WhileLoop: res = whileLoop(s); break;
      case ConstructKind::Scan: res = scanParts(s).bufs > 0 ? buffersBackToEnd(s, scan(buffersAsCarries(s))) : scan(s); break;
      case ConstructKind::Vmap: res = mapped(s); break;
      case ConstructKind::Grad: res = gradient(s); break;
      case ConstructKind::Jvp: res = pushedForward(s); break;
      }
    }
    for (size_t i = 0; i < s.results.size(); ++i) facts_[s.results[i].id] = d_.define(s.results[i], i < res.size() ? res[i] : Fact{});
  }
};

} // namespace vf
