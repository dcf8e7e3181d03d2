#include "generators/case_gen.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <source_location>
#include <stdexcept>

#include "generators/choices.h"
#include "ir/dependence.h"
#include "ir/op_registry.h"
#include "ir/validate.h"
#include "ir/walk.h"

namespace vf {
namespace {

/// Draw helpers; valid only inside rc::gen::exec. `draw` is uniform over the whole range
/// whatever the generation size (choices, dims, probabilities); `scaled` grows with the size
/// (how many statements, inputs, dims), so that small sizes give small programs and shrinking
/// heads for them.
/// With a byte stream active (generators/choices.h) the bytes decide instead of RapidCheck.
int64_t draw(int64_t lo, int64_t hiInclusive) {
  if (auto *cs = activeChoices()) return lo + static_cast<int64_t>(cs->below(static_cast<uint64_t>(hiInclusive - lo) + 1));
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<int64_t>(lo, hiInclusive + 1));
}
int64_t scaled(int64_t lo, int64_t hiInclusive) {
  if (auto *cs = activeChoices()) {
    int size = std::clamp(*rc::gen::withSize([](int s) { return rc::gen::just(s); }), 0, rc::kNominalSize);
    return lo + static_cast<int64_t>(cs->below(static_cast<uint64_t>((hiInclusive - lo) * size / rc::kNominalSize) + 1));
  }
  return *rc::gen::inRange<int64_t>(lo, hiInclusive + 1);
}
uint64_t drawSeed() {
  if (auto *cs = activeChoices()) return cs->below(uint64_t{1} << 32);
  return *rc::gen::inRange<uint64_t>(0, uint64_t{1} << 53);
}
bool chance(int percent) { return draw(0, 99) < percent; }
/// One element; an empty choice is the generator's own bug, named by where it happened.
template <class T>
const T &pick(const std::vector<T> &v, std::source_location at = std::source_location::current()) {
  if (v.empty())
    throw std::logic_error("generator: nothing to choose from at " + std::string(at.file_name()) + ":" +
                           std::to_string(at.line()));
  return v[draw(0, static_cast<int64_t>(v.size()) - 1)];
}

/// Builds one program, structure and values drawn as it goes. Scopes hold the values visible
/// at the current point: a region sees its parameters, its own values and everything outside.
class ProgramBuilder {
public:
  explicit ProgramBuilder(const GenPolicy &p) : pol_(p) {}

  Program build() {
    if (pol_.gpuTier && chance(50)) return gpuTierProgram();
    Program prog;
    Shape base = drawShape();
    int64_t nIn = scaled(1, pol_.maxInputs);
    scopes_.emplace_back();
    scopeParams_.push_back(0); // the program's inputs are captured by name, never clash
    auto dtypes = allowedDTypes(pol_);
    for (int64_t i = 0; i < nIn; ++i) prog.body.params.push_back(Def{next_++, Type{pick(dtypes), relatedShape(base)}});
    // Predicates, switch indices and trip counts are computed from a floating value that
    // differs between examples: make sure there is one.
    if (std::none_of(prog.body.params.begin(), prog.body.params.end(),
                     [](const Def &d) { return isFloating(d.type.dtype) && d.type.numel() > 0; })) {
      std::vector<DType> floats;
      for (DType d : dtypes)
        if (isFloating(d)) floats.push_back(d);
      Type &t = prog.body.params[0].type;
      t.dtype = floats.empty() ? DType::f32 : pick(floats);
      for (auto &d : t.shape) d = std::max<int64_t>(d, 1);
    }
    // Now and then an index input: switches may take it as their index as it is.
    if (chance(pol_.indexInputPercent)) {
      indexInput_ = next_;
      prog.body.params.push_back(Def{next_++, Type{DType::i64, {}}});
    }
    // Now and then a predicate input of one element: conds may take it as their predicate as it
    // is. At 0 nothing is drawn, so every seed makes the case it made before the knob existed.
    if (pol_.predInputPercent > 0 && chance(pol_.predInputPercent)) {
      predInput_ = next_;
      prog.body.params.push_back(Def{next_++, Type{DType::b8, Shape(static_cast<size_t>(draw(0, 2)), 1)}});
    }
    for (const auto &d : prog.body.params) {
      inputs_.push_back(d.id);
      scopes_.back().push_back(d);
    }
    top_ = &prog.body;
    int64_t n = scaled(1, pol_.maxStmts);
    for (int64_t i = 0; i < n; ++i) stmt(prog.body, 0);
    prog.body.yields = chooseOutputs(prog.body);
    scopes_.pop_back();
    scopeParams_.pop_back();
    top_ = nullptr;
    return prog;
  }

private:
  const GenPolicy &pol_;
  ValueId next_ = 0;
  std::vector<std::vector<Def>> scopes_;
  std::vector<size_t> scopeParams_; ///< per scope: how many of its first values are region parameters
  std::vector<ValueId> inputs_;
  std::optional<ValueId> indexInput_; ///< an i64[] program input switches may use as their index
  std::optional<ValueId> predInput_;  ///< a one-element bool program input conds may use as their predicate
  int insideVmap_ = 0;                ///< how many transforms' functions (vmap, grad, jvp) enclose the block being built
  int insideJvp_ = 0;                 ///< how many jvp functions enclose it (no jvp nests in another)
  std::multiset<ValueId> hidden_;
  Block *top_ = nullptr;                   ///< the program's body, while it is built
  std::map<DType, ValueId> anchor_;        ///< per dtype: an exact 0-d zero computed from every input

  /// Ranks 0..maxRank, dims 1..maxDimSize (1 a quarter of the time), and now and then one
  /// dim of size 0.
  Shape drawShape() {
    Shape s(scaled(0, pol_.maxRank));
    for (auto &d : s) d = chance(25) ? 1 : draw(1, pol_.maxDimSize);
    if (!s.empty() && chance(pol_.zeroSizePercent)) s[draw(0, static_cast<int64_t>(s.size()) - 1)] = 0;
    return s;
  }

  /// The opt-in GPU tier: a per-example outer product of N*M elements, N, M in [33000, 46340]
  /// (just under 2^31), so that a batch of 2 to 4 passes 2^31 and often 2^32 elements. It is
  /// reduced by amax (exact in any order) or filled (ones_like, then summed: exact integers),
  /// straight or inside a cond on a batched predicate.
  Program gpuTierProgram() {
    Program prog;
    static const std::vector<DType> dts = {DType::f32, DType::f16, DType::bf16};
    DType dt = pick(dts);
    Def a{next_++, Type{dt, {draw(33000, 46340)}}}, b{next_++, Type{dt, {draw(33000, 46340)}}};
    prog.body.params = {a, b};
    int64_t n = a.type.shape[0], m = b.type.shape[0];
    Type big{dt, {n, m}};
    bool fill = chance(40);
    int64_t dim = draw(0, 1);
    // outer, then amax along `dim` (or ones_like, then sum along `dim`), into `blk`.
    auto reduceBig = [&](Block &blk, ValueId x, ValueId y, bool negate) {
      Def o{next_++, big};
      blk.stmts.push_back(Stmt{"outer", {x, y}, {}, {}, {o}});
      ValueId src = o.id;
      if (negate) {
        Def ng{next_++, big};
        blk.stmts.push_back(Stmt{"neg", {src}, {}, {}, {ng}});
        src = ng.id;
      }
      if (fill) {
        Def f{next_++, big};
        blk.stmts.push_back(Stmt{"ones_like", {src}, {}, {}, {f}});
        src = f.id;
      }
      Attrs at;
      at.set("dim", dim);
      at.set("keepdim", false);
      Def r{next_++, Type{dt, {dim == 0 ? m : n}}};
      blk.stmts.push_back(Stmt{fill ? "sum" : "amax", {src}, at, {}, {r}});
      return r.id;
    };
    if (chance(50)) {
      prog.body.yields = {reduceBig(prog.body, a.id, b.id, false)};
      return prog;
    }
    Def total{next_++, Type{dt, {}}}, pred{next_++, Type{DType::b8, {}}};
    prog.body.stmts.push_back(Stmt{"sum_all", {a.id}, {}, {}, {total}});
    Attrs zero;
    zero.set("value", 0.0);
    prog.body.stmts.push_back(Stmt{"gt_scalar", {total.id}, zero, {}, {pred}});
    Def res{next_++, Type{dt, {dim == 0 ? m : n}}};
    Stmt c{"cond", {pred.id, a.id, b.id}, {}, {}, {res}};
    for (int k = 0; k < 2; ++k) {
      Block r;
      r.params = {Def{next_++, a.type}, Def{next_++, b.type}};
      r.yields = {reduceBig(r, r.params[0].id, r.params[1].id, k == 1)};
      c.regions.push_back(std::move(r));
    }
    prog.body.stmts.push_back(std::move(c));
    prog.body.yields = {res.id};
    return prog;
  }

  /// A shape that broadcasts with `base`: base itself, a suffix of it, or some dims set to 1.
  Shape relatedShape(const Shape &base) {
    switch (draw(0, 3)) {
    case 0: return base;
    case 1: return Shape(base.begin() + draw(0, static_cast<int64_t>(base.size())), base.end());
    case 2: {
      Shape s = base;
      for (auto &d : s)
        if (chance(40)) d = 1;
      return s;
    }
    default: return drawShape();
    }
  }

  /// Values a region may use: everything in scope except the values passed to it as operands
  /// (it sees those through its parameters; capturing one too makes dynamo see two aliasing
  /// inputs, which torch.cond rejects).
  /// Unless the policy allows deep captures, only the program's values, the region's own and
  /// its parent's computed values (not the parent's parameters): see GenPolicy::deepCaptures.
  /// `below`: as seen from that many scopes further in (1: a region about to be made here);
  /// `everything`: ignore the policy (a fallback where nothing else has the type needed).
  std::vector<Def> visible(size_t below = 0, bool everything = false) const {
    std::vector<Def> all;
    const size_t own = scopes_.size() - 1 + below;
    const bool restrict = !pol_.deepCaptures && !everything;
    for (size_t k = 0; k < scopes_.size(); ++k) {
      const bool program = k == 0, parent = k + 1 == own;
      if (restrict && !program && k != own && !parent) continue;
      for (size_t i = 0; i < scopes_[k].size(); ++i) {
        if (restrict && parent && !program && i < scopeParams_[k]) continue;
        if (!hidden_.count(scopes_[k][i].id)) all.push_back(scopes_[k][i]);
      }
    }
    return all;
  }

  Type typeOf(ValueId v) const {
    for (const auto &sc : scopes_)
      for (const auto &d : sc)
        if (d.id == v) return d.type;
    return Type{};
  }

  Def fresh(Type t) {
    Def d{next_++, std::move(t)};
    scopes_.back().push_back(d);
    return d;
  }

  /// `sofar`: the attributes drawn before this one (Index and Indices depend on `dim`).
  Attr drawAttr(AttrDomain dom, const std::vector<Type> &args, const Attrs &sofar = {}) {
    int64_t r = args.empty() ? 0 : args[0].rank();
    switch (dom) {
    case AttrDomain::Index:
    case AttrDomain::SignedIndex:
    case AttrDomain::Indices: {
      const Attr *d = sofar.find("dim");
      auto w = (d && r > 0) ? wrapDim(std::get<int64_t>(*d), r) : std::nullopt;
      int64_t size = w ? args[0].shape[*w] : 1;
      if (size < 1) return int64_t{0};
      if (dom == AttrDomain::Index) return draw(0, size - 1);
      if (dom == AttrDomain::SignedIndex) return draw(-size, size - 1); // from the end too, as torch allows
      IntList idx(draw(1, 3));
      for (auto &i : idx) i = draw(0, size - 1);
      return idx;
    }
    case AttrDomain::Dim: return draw(-std::max<int64_t>(r, 1), std::max<int64_t>(r, 1) - 1);
    case AttrDomain::NewDim: return draw(-(r + 1), r);
    case AttrDomain::Bool: return chance(50);
    case AttrDomain::Scalar: return static_cast<double>(draw(-8, 8)) / 4.0;
    case AttrDomain::Count: return draw(1, 3);
    case AttrDomain::Shape: {
      // Same elements, another arrangement: all in one dim, the dims reversed, or a 1 added.
      Shape s = args.empty() ? Shape{} : args[0].shape;
      switch (draw(0, 2)) {
      case 0: return IntList{args.empty() ? 1 : args[0].numel()};
      case 1: return IntList(s.rbegin(), s.rend());
      default: s.insert(s.begin() + draw(0, static_cast<int64_t>(s.size())), 1); return IntList(s);
      }
    }
    case AttrDomain::Perm: {
      IntList p(r);
      for (int64_t i = 0; i < r; ++i) p[i] = i;
      for (int64_t i = r - 1; i > 0; --i) std::swap(p[i], p[draw(0, i)]);
      for (auto &d : p)
        if (chance(30)) d -= r; // negative spelling of the same dim
      return p;
    }
    }
    return int64_t{0};
  }

  /// An op's weight here, in tenths: a restricted-domain op only inside a region, scaled by the
  /// policy.
  int64_t weightOf(const OpDef &op, bool inRegion) const {
    int64_t w = static_cast<int64_t>(op.weight * 10);
    if (op.restrictedDomain) w = inRegion ? w * pol_.domainOpWeight / 10 : 0;
    return w;
  }

  /// One op statement on visible values, or false when no arguments fit after some tries.
  bool opStmt(Block &b, bool inRegion) {
    const auto &ops = allOps();
    int64_t total = 0;
    for (const auto &o : ops) total += weightOf(o, inRegion);
    int64_t x = draw(0, total - 1);
    size_t which = 0;
    while (x >= weightOf(ops[which], inRegion)) x -= weightOf(ops[which++], inRegion);
    const OpDef &op = ops[which];
    auto vis = visible();
    std::vector<Def> cands;
    for (const auto &d : vis)
      if (!op.floatArgsOnly || isFloating(d.type.dtype)) cands.push_back(d);
    if (op.name == "where") cands = vis;
    if (cands.empty()) return false;
    for (int t = 0; t < pol_.tupleRetries; ++t) {
      std::vector<ValueId> args;
      std::vector<Type> types;
      for (int k = 0; k < op.arity; ++k) {
        // Prefer recent values so that statements chain instead of all reading the inputs.
        const Def &d = chance(50) ? cands[draw(std::max<int64_t>(0, static_cast<int64_t>(cands.size()) - 3),
                                               static_cast<int64_t>(cands.size()) - 1)]
                                  : pick(cands);
        args.push_back(d.id);
        types.push_back(d.type);
      }
      Attrs attrs;
      for (const auto &spec : op.attrs) attrs.set(spec.name, drawAttr(spec.domain, types, attrs));
      Type out;
      std::string err;
      if (!inferOpType(op.name, types, attrs, out, err)) continue;
      if (out.numel() > 4096) continue;
      b.stmts.push_back(Stmt{op.name, args, attrs, {}, {fresh(out)}});
      return true;
    }
    return false;
  }

  /// A new value of type `t` computed from one of `sources` (values of that type) by a
  /// type-preserving op of the registry, so that a region returns something it computed.
  /// `inRegion`: `b` is a region (a restricted-domain op may be drawn there only).
  std::optional<ValueId> computeOfType(Block &b, const Type &t, const std::vector<ValueId> &sources, bool inRegion = true) {
    if (sources.empty()) return std::nullopt;
    std::vector<const OpDef *> unary;
    for (const auto &op : allOps())
      if (op.arity == 1 && weightOf(op, inRegion) > 0) unary.push_back(&op);
    for (int tries = 0; tries < 6; ++tries) {
      const OpDef &op = *pick(unary);
      Attrs attrs;
      for (const auto &spec : op.attrs) attrs.set(spec.name, drawAttr(spec.domain, {t}, attrs));
      Type out;
      std::string err;
      if (!inferOpType(op.name, {t}, attrs, out, err) || out != t) continue;
      Def d = fresh(t);
      b.stmts.push_back(Stmt{op.name, {pick(sources)}, attrs, {}, {d}});
      return d.id;
    }
    return std::nullopt;
  }

  /// A region with parameters of `paramTypes`, random statements, then yields: first what
  /// `head` emits (a loop's condition or counter), then one value of each of `outTypes`.
  /// `hide` are the outer values passed in as operands: the region sees them as parameters.
  /// `tail`: called last, inside the region's scope, to append statements and yields (a scan's
  /// in-place buffer updates).
  Block region(const std::vector<Type> &paramTypes, const std::vector<ValueId> &hide, const std::vector<Type> &outTypes,
               int depth, const std::function<std::vector<ValueId>(Block &)> &head = nullptr,
               const std::function<void(Block &)> &prelude = nullptr, const std::function<void(Block &)> &tail = nullptr) {
    Block r;
    scopes_.emplace_back();
    for (const auto &t : paramTypes) r.params.push_back(fresh(t));
    scopeParams_.push_back(r.params.size());
    for (auto h : hide) hidden_.insert(h);
    if (prelude) prelude(r);
    int64_t n = scaled(0, std::max(0, pol_.maxStmts - 2));
    for (int64_t i = 0; i < n; ++i) stmt(r, depth);
    if (head) r.yields = head(r);
    auto vis = visible();
    const auto &own = scopes_.back();
    for (const auto &t : outTypes) {
      std::vector<ValueId> mine, any;
      for (const auto &d : own)
        if (d.type == t && !hidden_.count(d.id)) mine.push_back(d.id); // a scan's buffer parameters are hidden
      for (const auto &d : vis)
        if (d.type == t) any.push_back(d.id);
      if (any.empty()) // the types were drawn where more was in sight; rare
        for (const auto &d : visible(0, true))
          if (d.type == t) any.push_back(d.id);
      if (mine.empty() && chance(80))
        if (auto made = computeOfType(r, t, any)) mine.push_back(*made);
      r.yields.push_back(!mine.empty() && chance(90) ? pick(mine) : pick(any));
    }
    if (tail) tail(r);
    for (auto h : hide) hidden_.erase(hidden_.find(h));
    scopes_.pop_back();
    scopeParams_.pop_back();
    return r;
  }

  static std::vector<Type> typesOf(const std::vector<Def> &ds) {
    std::vector<Type> t;
    for (const auto &d : ds) t.push_back(d.type);
    return t;
  }
  static std::vector<ValueId> idsOf(const std::vector<Def> &ds) {
    std::vector<ValueId> v;
    for (const auto &d : ds) v.push_back(d.id);
    return v;
  }

  /// Up to `n` distinct visible non-bool values (operands must not alias each other).
  std::vector<Def> distinctOperands(int64_t n) {
    auto vis = visible();
    std::vector<Def> out;
    for (int64_t i = 0; i < n && !vis.empty(); ++i) {
      const Def &d = pick(vis);
      bool dup = std::any_of(out.begin(), out.end(), [&](const Def &o) { return o.id == d.id; });
      if (d.type.dtype != DType::b8 && !dup) out.push_back(d);
    }
    return out;
  }

  /// Types for a construct's outputs, drawn from the non-bool values its regions will see:
  /// their operands and what is visible one scope further in; none when no such value exists.
  std::vector<Type> outputTypesDrawn(const std::vector<Def> &operands) {
    std::vector<Def> cands = operands;
    for (const auto &d : visible(1))
      if (d.type.dtype != DType::b8) cands.push_back(d);
    std::vector<Type> out;
    if (cands.empty()) return out; // only bools in sight: the caller makes no construct
    int64_t n = draw(1, pol_.maxRegionOutputs);
    for (int64_t i = 0; i < n; ++i) out.push_back(pick(cands).type);
    return out;
  }

  /// A float value that differs between examples: mostly a program input, summed to 0-d.
  ValueId splittingScalar(Block &b) {
    // Non-empty values only: the sum of an empty tensor is exactly 0, on the boundary.
    std::vector<Def> floats, ins, others, bools;
    for (const auto &d : visible()) {
      if (d.type.numel() == 0) continue;
      if (isFloating(d.type.dtype)) {
        floats.push_back(d);
        if (std::find(inputs_.begin(), inputs_.end(), d.id) != inputs_.end()) ins.push_back(d);
      } else {
        (d.type.dtype == DType::b8 ? bools : others).push_back(d);
      }
    }
    if (floats.empty()) {
      // Integers (or bools) only in sight (the region's float values all passed in as empty
      // ones): a cast makes one. One nonempty floating program input always exists, so this is
      // rare; a value of a scope further out only as the last resort (a deep capture).
      Def from = !others.empty() ? pick(others) : !bools.empty() ? pick(bools) : pick(visible(0, true));
      Def f = fresh(Type{DType::f32, from.type.shape});
      b.stmts.push_back(Stmt{"to_f32", {from.id}, {}, {}, {f}});
      floats.push_back(f);
    }
    Def src = (!ins.empty() && chance(pol_.inputPredicatePercent)) ? pick(ins) : pick(floats);
    if (src.type.rank() > 0) {
      Def s = fresh(Type{src.type.dtype, {}});
      b.stmts.push_back(Stmt{"sum_all", {src.id}, {}, {}, {s}});
      src = s;
    }
    return src.id;
  }

  ValueId unaryStmt(Block &b, const std::string &op, ValueId x, DType dtype, Attrs attrs = {}) {
    Def d = fresh(Type{dtype, {}});
    b.stmts.push_back(Stmt{op, {x}, std::move(attrs), {}, {d}});
    return d.id;
  }

  /// cond on a one-element bool that splits the batch: a sum of (mostly) an input compared
  /// with 0, so that examples with independent data take different branches.
  void condStmt(Block &b, int depth) {
    Stmt s{"cond", {}, {}, {}, {}};
    std::optional<Def> guard; // a guarded cond's x (see GenPolicy::guardedCondPercent)
    if (chance(pol_.pythonBoolPercent)) {
      s.attrs.set("pred", chance(50)); // a Python bool: the same branch for every example
    } else if (predInput_ && chance(50)) {
      s.args.push_back(*predInput_);
    } else {
      Attrs zero;
      zero.set("value", 0.0);
      ValueId x = splittingScalar(b);
      s.args.push_back(unaryStmt(b, "gt_scalar", x, DType::b8, zero));
      if (pol_.domainOpWeight > 0 && chance(pol_.guardedCondPercent))
        for (const auto &scope : scopes_)
          for (const auto &d : scope)
            if (d.id == x) guard = d;
    }
    auto operands = distinctOperands(scaled(0, pol_.maxOperands));
    if (guard && std::none_of(operands.begin(), operands.end(), [&](const Def &o) { return o.id == guard->id; }))
      operands.push_back(*guard);
    auto outTypes = outputTypesDrawn(operands);
    if (outTypes.empty()) return;
    for (const auto &o : operands) s.args.push_back(o.id);
    ValueId first = next_;
    next_ += static_cast<ValueId>(outTypes.size()); // results numbered before the regions
    // A guarded cond's then-branch first takes sqrt or log of x, which its predicate keeps > 0.
    std::function<void(Block &)> guarded;
    if (guard) {
      size_t at = std::find_if(operands.begin(), operands.end(), [&](const Def &o) { return o.id == guard->id; }) - operands.begin();
      std::string op = chance(50) ? "sqrt" : "log";
      guarded = [this, at, op](Block &r) {
        Def y = fresh(r.params[at].type);
        r.stmts.push_back(Stmt{op, {r.params[at].id}, {}, {}, {y}});
      };
    }
    for (int k = 0; k < 2; ++k)
      s.regions.push_back(region(typesOf(operands), idsOf(operands), outTypes, depth + 1, nullptr, k == 0 ? guarded : nullptr));
    for (size_t i = 0; i < outTypes.size(); ++i) s.results.push_back(Def{first + static_cast<ValueId>(i), outTypes[i]});
    for (const auto &r : s.results) scopes_.back().push_back(r);
    b.stmts.push_back(std::move(s));
  }

  /// switch on a per-example index in [-3, 5] (branch_index) or [-5, 5] (a program input of
  /// its own): often below 0 or past the last branch.
  void switchStmt(Block &b, int depth) {
    ValueId index = indexInput_ && chance(70) ? *indexInput_ : unaryStmt(b, "branch_index", splittingScalar(b), DType::i64);
    auto operands = distinctOperands(scaled(0, pol_.maxOperands));
    auto outTypes = outputTypesDrawn(operands);
    if (outTypes.empty()) return;
    Stmt s{"switch", {index}, {}, {}, {}};
    for (const auto &o : operands) s.args.push_back(o.id);
    ValueId first = next_;
    next_ += static_cast<ValueId>(outTypes.size());
    int64_t branches = draw(1, 4);
    for (int64_t k = 0; k < branches; ++k) s.regions.push_back(region(typesOf(operands), idsOf(operands), outTypes, depth + 1));
    for (size_t i = 0; i < outTypes.size(); ++i) s.results.push_back(Def{first + static_cast<ValueId>(i), outTypes[i]});
    for (const auto &r : s.results) scopes_.back().push_back(r);
    b.stmts.push_back(std::move(s));
  }

  /// while_loop with an integer counter from [-3, 5] and a per-example limit in [0, 4]: it
  /// runs at most 8 times for every input, and the trip count differs between examples.
  void whileStmt(Block &b, int depth) {
    ValueId start = unaryStmt(b, "branch_index", splittingScalar(b), DType::i64);
    ValueId limit = unaryStmt(b, "trip_limit", splittingScalar(b), DType::i64);
    auto carried = distinctOperands(scaled(0, 2));
    std::vector<Type> carryTypes = {Type{DType::i64, {}}};
    std::vector<ValueId> args = {start}, hide = {start};
    for (const auto &c : carried) {
      carryTypes.push_back(c.type);
      args.push_back(c.id);
      hide.push_back(c.id);
    }
    Stmt s{"while_loop", args, {}, {}, {}};
    ValueId first = next_;
    next_ += static_cast<ValueId>(carryTypes.size());
    s.regions.push_back(region(carryTypes, hide, {}, depth + 1, [&](Block &r) {
      Def p = fresh(Type{DType::b8, {}});
      r.stmts.push_back(Stmt{"lt", {r.params[0].id}, {}, {}, {p}});
      r.stmts.back().args.push_back(limit);
      return std::vector<ValueId>{p.id};
    }));
    std::vector<Type> rest(carryTypes.begin() + 1, carryTypes.end());
    s.regions.push_back(region(carryTypes, hide, rest, depth + 1, [&](Block &r) {
      return std::vector<ValueId>{unaryStmt(r, "increment", r.params[0].id, DType::i64)};
    }));
    for (size_t i = 0; i < carryTypes.size(); ++i) s.results.push_back(Def{first + static_cast<ValueId>(i), carryTypes[i]});
    for (const auto &r : s.results) scopes_.back().push_back(r);
    b.stmts.push_back(std::move(s));
  }

  /// Where a vmap's first result comes from when it is computed from nothing mapped (3 times in
  /// 10, else neither): an operand passed whole (None), or a value the function captures. vmap
  /// expands a result its function returns unbatched at its own level to the mapped size.
  struct UnmappedSource {
    std::optional<size_t> operand; ///< the index of an operand whose in_dim is None
    std::optional<Def> capture;
  };
  UnmappedSource unmappedSource(const std::vector<Def> &operands, const IntList &inDims, const std::vector<Type> &params) {
    std::vector<size_t> unmapped;
    for (size_t i = 0; i < operands.size(); ++i)
      if (inDims[i] == kNoneDim) unmapped.push_back(i);
    std::vector<Def> captures; // what the function will see of the enclosing scopes, operands aside
    for (const auto &d : visible(1))
      if (d.type.dtype != DType::b8 && std::none_of(operands.begin(), operands.end(), [&](const Def &o) { return o.id == d.id; }))
        captures.push_back(d);
    // Sources of the first operand's slice type are preferred: stacked where that operand was
    // mapped, the result has the operand's own type, which the enclosing region (a branch, a
    // loop body yielding its operands' types) is likely to read.
    auto likeFirst = [&](auto &from, auto typeOf) {
      std::remove_reference_t<decltype(from)> same;
      for (const auto &x : from)
        if (typeOf(x) == params[0]) same.push_back(x);
      if (!same.empty() && chance(70)) from = same;
    };
    likeFirst(unmapped, [&](size_t i) { return params[i]; });
    likeFirst(captures, [](const Def &d) { return d.type; });
    UnmappedSource src;
    if (chance(30)) {
      if (!unmapped.empty() && (captures.empty() || chance(50))) src.operand = pick(unmapped);
      else if (!captures.empty()) src.capture = pick(captures);
    }
    return src;
  }

  /// torch.vmap inside the program (issue 28): one operand mapped at one of its dims (of size
  /// N >= 1, sometimes given as a negative dim), up to two more mapped at a dim of the same size
  /// or not mapped (None), a function over their slices that may capture outer values (batched
  /// at the enclosing levels: levels interleaved with control flow), and one or two results
  /// stacked at out_dims, negative ones too; now and then the first is computed from an
  /// unmapped operand or a capture alone.
  void vmapStmt(Block &b, int depth) {
    std::vector<Def> cands;
    for (const auto &d : visible())
      if (d.type.dtype != DType::b8 && std::any_of(d.type.shape.begin(), d.type.shape.end(), [](int64_t n) { return n >= 1; }))
        cands.push_back(d);
    if (cands.empty()) return condStmt(b, depth);
    const Def first = pick(cands);
    std::vector<int64_t> dims;
    for (int64_t k = 0; k < first.type.rank(); ++k)
      if (first.type.shape[k] >= 1) dims.push_back(k);
    const int64_t dim = pick(dims), n = first.type.shape[dim];
    auto written = [&](int64_t k, int64_t rank) { return chance(30) ? k - rank : k; }; // a negative dim is the same dim
    std::vector<Def> operands = {first};
    IntList inDims = {written(dim, first.type.rank())};
    for (const auto &d : distinctOperands(scaled(0, 2))) {
      if (d.id == first.id) continue;
      std::vector<int64_t> same;
      for (int64_t k = 0; k < d.type.rank(); ++k)
        if (d.type.shape[k] == n) same.push_back(k);
      inDims.push_back(!same.empty() && chance(70) ? written(pick(same), d.type.rank()) : kNoneDim);
      operands.push_back(d);
    }
    std::vector<Type> params;
    for (size_t i = 0; i < operands.size(); ++i) {
      Type t = operands[i].type;
      if (inDims[i] != kNoneDim) t.shape.erase(t.shape.begin() + *wrapDim(inDims[i], t.rank()));
      params.push_back(t);
    }
    const UnmappedSource src = unmappedSource(operands, inDims, params);
    std::vector<Type> outTypes, results;
    IntList outDims;
    const bool firstLikeOperand = chance(50);
    for (int64_t i = draw(1, 2); i > 0; --i) {
      const bool first = outTypes.empty();
      Type t = !first ? pick(params) : src.operand ? params[*src.operand] : src.capture ? src.capture->type : firstLikeOperand ? params[0] : pick(params);
      outTypes.push_back(t);
      const int64_t o = first && t == params[0] && chance(80) ? dim : draw(0, t.rank());
      outDims.push_back(written(o, t.rank() + 1));
      t.shape.insert(t.shape.begin() + o, n);
      results.push_back(t);
    }
    Attrs attrs;
    attrs.set("in_dims", inDims);
    attrs.set("out_dims", outDims);
    Stmt s{"vmap", idsOf(operands), attrs, {}, {}};
    ValueId firstResult = next_;
    next_ += static_cast<ValueId>(results.size());
    ++insideVmap_;
    s.regions.push_back(region(params, idsOf(operands), outTypes, depth + 1, nullptr, nullptr, [&](Block &r) {
      if (!src.operand && !src.capture) return;
      const ValueId v = src.operand ? r.params[*src.operand].id : src.capture->id;
      r.yields[0] = chance(50) ? v : computeOfType(r, outTypes[0], {v}).value_or(v);
    }));
    --insideVmap_;
    for (size_t i = 0; i < results.size(); ++i) s.results.push_back(Def{firstResult + static_cast<ValueId>(i), results[i]});
    for (const auto &r : s.results) scopes_.back().push_back(r);
    b.stmts.push_back(std::move(s));
  }

  /// torch.func.grad inside the program (issue 28): a floating operand and up to two more, the
  /// floating ones differentiated now and then too (argnums), and a function over them that may
  /// capture outer values and hold any construct, whose one 0-d yield sums (or sums the squares
  /// of) a floating value it computed, plus now and then a differentiated parameter itself.
  /// Under the batch spec's levels or in a batched region: per-sample gradients of control flow.
  void gradStmt(Block &b, int depth) {
    std::vector<Def> floats;
    for (const auto &d : visible())
      if (isFloating(d.type.dtype)) floats.push_back(d);
    if (floats.empty()) return condStmt(b, depth);
    std::vector<Def> operands = {pick(floats)};
    for (const auto &d : distinctOperands(scaled(0, 2)))
      if (d.id != operands[0].id) operands.push_back(d);
    IntList argnums = {0};
    for (size_t i = 1; i < operands.size(); ++i)
      if (isFloating(operands[i].type.dtype) && chance(50)) argnums.push_back(static_cast<int64_t>(i));
    Attrs attrs;
    attrs.set("argnums", argnums);
    Stmt s{"grad", idsOf(operands), attrs, {}, {}};
    ValueId firstResult = next_;
    next_ += static_cast<ValueId>(argnums.size());
    ++insideVmap_;
    s.regions.push_back(region(typesOf(operands), idsOf(operands), {}, derivativeDepth(depth, pol_.gradControlFlow), nullptr, nullptr, [&](Block &r) {
      r.yields = {gradScalar(r, argnums)};
    }));
    --insideVmap_;
    for (size_t k = 0; k < argnums.size(); ++k)
      s.results.push_back(Def{firstResult + static_cast<ValueId>(k), operands[static_cast<size_t>(argnums[k])].type});
    for (const auto &r : s.results) scopes_.back().push_back(r);
    b.stmts.push_back(std::move(s));
  }

  /// The depth a derivative transform's function is built at: one level in, or, where its
  /// control flow is off (grad_control_flow, jvp_control_flow), the depth limit: ops only.
  int derivativeDepth(int depth, int controlFlow) const {
    return controlFlow ? depth + 1 : std::max<int>(depth + 1, static_cast<int>(pol_.maxDepth));
  }

  /// torch.func.jvp inside the program (issue 28): one or two floating primals of rank >= 1, each with a
  /// tangent of its type that the program computes (a type-preserving op of the primal or of
  /// another value, or a visible value of that type), and a function of the primals that may
  /// capture outer values, yielding one or two floating values of the primals' types.
  void jvpStmt(Block &b, int depth) {
    if (insideJvp_ > 0) return gradStmt(b, depth); // torch has no nested forward-mode AD ("not supported at the moment")
    // Primals (and so the yields, of their types) of rank >= 1: torch.func.jvp gives a 0-d float32
    // value's tangent as float64 wherever a Python scalar meets it (pytorch/pytorch#90065, open),
    // already in torch's own per-example run, which would disagree with the reference every time.
    std::vector<Def> floats;
    for (const auto &d : visible())
      if (isFloating(d.type.dtype) && d.type.rank() >= 1) floats.push_back(d);
    if (floats.empty()) return condStmt(b, depth);
    std::vector<Def> primals = {pick(floats)};
    if (chance(40)) {
      const Def &second = pick(floats);
      if (second.id != primals[0].id) primals.push_back(second);
    }
    std::vector<ValueId> tangents;
    for (const auto &p : primals) {
      std::vector<ValueId> same;
      for (const auto &d : floats)
        if (d.type == p.type) same.push_back(d.id);
      const auto made = chance(70) ? computeOfType(b, p.type, same, depth > 0) : std::nullopt;
      tangents.push_back(made.value_or(pick(same)));
    }
    std::vector<Type> outTypes;
    for (int64_t i = draw(1, 2); i > 0; --i) outTypes.push_back(pick(primals).type);
    Stmt s{"jvp", idsOf(primals), {}, {}, {}};
    s.args.insert(s.args.end(), tangents.begin(), tangents.end());
    ValueId firstResult = next_;
    next_ += static_cast<ValueId>(2 * outTypes.size());
    ++insideVmap_, ++insideJvp_;
    s.regions.push_back(region(typesOf(primals), idsOf(primals), outTypes, derivativeDepth(depth, pol_.jvpControlFlow)));
    --insideVmap_, --insideJvp_;
    for (size_t k = 0; k < 2 * outTypes.size(); ++k)
      s.results.push_back(Def{firstResult + static_cast<ValueId>(k), outTypes[k % outTypes.size()]});
    for (const auto &r : s.results) scopes_.back().push_back(r);
    b.stmts.push_back(std::move(s));
  }

  /// A grad function's 0-d floating yield: the sum (or sum of squares) of a floating value the
  /// region computed, else of a differentiated parameter, plus now and then the sum of another
  /// differentiated parameter, so that the gradient reads the function's statements.
  ValueId gradScalar(Block &r, const IntList &argnums) {
    std::vector<Def> computed;
    const auto &own = scopes_.back();
    for (size_t i = r.params.size(); i < own.size(); ++i)
      if (isFloating(own[i].type.dtype)) computed.push_back(own[i]);
    auto param = [&] { return r.params[static_cast<size_t>(pick(argnums))]; };
    auto apply = [&](const std::string &op, const std::vector<Def> &args) {
      std::vector<Type> types;
      for (const auto &a : args) types.push_back(a.type);
      Type t;
      std::string err;
      if (!inferOpType(op, types, {}, t, err)) throw std::logic_error("grad's yield: " + op + ": " + err);
      Def d = fresh(t);
      r.stmts.push_back(Stmt{op, idsOf(args), {}, {}, {d}});
      return d;
    };
    auto summed = [&](const Def &v, bool square) {
      const Def x = square ? apply("mul", {v, v}) : v;
      return x.type.rank() == 0 ? x : apply("sum_all", {x});
    };
    Def y = summed(!computed.empty() && chance(80) ? pick(computed) : param(), chance(50));
    if (chance(40)) y = apply("add", {y, summed(param(), false)});
    return y.id;
  }

  /// scan over dim 0 of one or two xs of equal length, with one or two carries and up to two
  /// stacked outputs, forwards or reversed.
  void scanStmt(Block &b, int depth) {
    std::vector<Def> xsCands;
    for (const auto &d : visible())
      if (isFloating(d.type.dtype) && d.type.rank() >= 1 && d.type.shape[0] >= 1) xsCands.push_back(d);
    if (xsCands.empty()) return condStmt(b, depth);
    std::vector<Def> xs = {pick(xsCands)};
    for (const auto &d : xsCands)
      if (xs.size() < 2 && d.id != xs[0].id && d.type.shape[0] == xs[0].type.shape[0] && chance(40)) xs.push_back(d);
    std::vector<Def> carries;
    for (const auto &d : distinctOperands(scaled(1, 2)))
      if (std::none_of(xs.begin(), xs.end(), [&](const Def &x) { return x.id == d.id; })) carries.push_back(d);
    if (carries.empty()) {
      ValueId v = splittingScalar(b);
      carries.push_back(Def{v, typeOf(v)});
    }
    std::vector<Type> params = typesOf(carries);
    for (const auto &x : xs) {
      Type slice = x.type;
      slice.shape.erase(slice.shape.begin());
      params.push_back(slice);
    }
    std::vector<Type> ysTypes;
    for (int64_t i = draw(0, 2); i > 0; --i) ysTypes.push_back(pick(params));
    std::vector<Type> outTypes = typesOf(carries);
    outTypes.insert(outTypes.end(), ysTypes.begin(), ysTypes.end());
    std::vector<ValueId> hide = idsOf(carries);
    for (const auto &x : xs) hide.push_back(x.id);
    Attrs attrs;
    attrs.set("ncarry", static_cast<int64_t>(carries.size()));
    attrs.set("reverse", chance(30));
    std::vector<ValueId> args = idsOf(carries);
    for (const auto &x : xs) args.push_back(x.id);
    Stmt s{"scan", args, attrs, {}, {}};
    std::vector<Type> results = typesOf(carries);
    for (auto y : ysTypes) {
      y.shape.insert(y.shape.begin(), xs[0].type.shape[0]);
      results.push_back(y);
    }
    // In-place buffers (GenPolicy::scanInplacePercent): their initial values are arguments after
    // the xs, their parameters follow the slices, and combine_fn ends with their updates.
    // Not inside a vmap's function: the anchor that keeps a buffer batched wherever anything is
    // covers the batch spec's levels only, and an in-place update of a buffer a level the
    // program opens does not batch, with a value it does, breaks vmap's in-place rule.
    std::vector<Def> bufs;
    if (insideVmap_ == 0 && pol_.scanInplacePercent > 0 && chance(pol_.scanInplacePercent))
      for (int64_t j = draw(1, 4) == 4 ? 2 : 1; j > 0; --j)
        if (auto init = bufferInit(b)) bufs.push_back(*init);
    std::function<void(Block &)> hideBufs, updateBufs;
    if (!bufs.empty()) {
      s.attrs.set("nbuf", static_cast<int64_t>(bufs.size()));
      for (const auto &d : bufs) {
        s.args.push_back(d.id);
        params.push_back(d.type);
        results.push_back(d.type);
        hide.push_back(d.id);
      }
      const size_t nb = bufs.size();
      // A buffer parameter's only use is its update: hidden from the region's own statements.
      hideBufs = [this, nb](Block &r) {
        for (size_t j = 0; j < nb; ++j) hidden_.insert(r.params[r.params.size() - nb + j].id);
      };
      const size_t firstSlice = carries.size();
      updateBufs = [this, nb, firstSlice](Block &r) {
        // Every buffer stays hidden until all are updated: no update reads another buffer.
        for (size_t j = 0; j < nb; ++j) r.yields.push_back(bufferUpdate(r, r.params[r.params.size() - nb + j], r.params.at(firstSlice)));
        for (size_t j = 0; j < nb; ++j) hidden_.erase(hidden_.find(r.params[r.params.size() - nb + j].id));
      };
    }
    ValueId first = next_;
    next_ += static_cast<ValueId>(results.size());
    s.regions.push_back(region(params, hide, outTypes, depth + 1, nullptr, hideBufs, updateBufs));
    for (size_t i = 0; i < results.size(); ++i) s.results.push_back(Def{first + static_cast<ValueId>(i), results[i]});
    for (const auto &r : s.results) scopes_.back().push_back(r);
    b.stmts.push_back(std::move(s));
  }

  /// A 0-d zero of `dt` computed from every program input (zeros_like of its sum): batched at
  /// every vmap level that batches any input. Made once per dtype, in the program's body (before
  /// the statement being built there), so that every region can capture it.
  ValueId anchor(DType dt) {
    if (auto it = anchor_.find(dt); it != anchor_.end()) return it->second;
    Block &top = *top_;
    auto add = [&](const std::string &op, std::vector<ValueId> args, Type t) {
      Def d{next_++, std::move(t)};
      scopes_.front().push_back(d);
      top.stmts.push_back(Stmt{op, std::move(args), {}, {}, {d}});
      return d;
    };
    std::optional<Def> acc;
    for (ValueId in : inputs_) {
      Def x{in, typeOf(in)};
      if (!isFloating(x.type.dtype)) x = add("to_f32", {in}, Type{DType::f32, x.type.shape});
      Def sum = add("sum_all", {x.id}, Type{x.type.dtype, {}});
      Def zero = add("zeros_like", {sum.id}, sum.type);
      acc = acc ? add("add", {acc->id, zero.id}, Type{resultType(acc->type, zero.type), {}}) : zero;
    }
    if (acc->type.dtype != dt) acc = add(dt == DType::f64 ? "to_f64" : "to_f32", {acc->id}, Type{dt, {}});
    return anchor_[dt] = acc->id;
  }

  /// A buffer's initial value, in `b` before the scan: a visible value (float32 or float64, cast
  /// if need be) plus anchor(): batched wherever anything is, so that vmap's rule for in-place
  /// ops (the updated tensor must be batched wherever the update is) always holds.
  std::optional<Def> bufferInit(Block &b) {
    std::vector<Def> cands;
    for (const auto &d : visible())
      if (isFloating(d.type.dtype) && d.type.numel() <= 4096) cands.push_back(d);
    if (cands.empty() || !top_) return std::nullopt;
    Def base = pick(cands);
    if (base.type.dtype != DType::f32 && base.type.dtype != DType::f64) {
      Def c = fresh(Type{DType::f32, base.type.shape});
      b.stmts.push_back(Stmt{"to_f32", {base.id}, {}, {}, {c}});
      base = c;
    }
    ValueId z = anchor(base.type.dtype);
    Def init = fresh(base.type);
    b.stmts.push_back(Stmt{"add", {base.id, z}, {}, {}, {init}});
    return init;
  }

  /// The update of buffer parameter `p`, the last statement of combine_fn: add_ (most often),
  /// mul_ or copy_ of a value of the step that broadcasts to the buffer's shape (the sum of a
  /// slice when none does). Returns its result, the buffer's new value.
  ValueId bufferUpdate(Block &r, const Def &p, const Def &slice) {
    int64_t which = draw(0, 9);
    std::string op = which < 6 ? "add_" : which < 8 ? "mul_" : "copy_";
    std::vector<ValueId> own, any;
    const std::vector<Def> mine = scopes_.back();
    for (const auto &d : visible()) {
      auto s = broadcastShapes(p.type.shape, d.type.shape);
      if (d.id == p.id || d.type.dtype == DType::b8 || !s || *s != p.type.shape) continue;
      any.push_back(d.id);
      if (std::any_of(mine.begin(), mine.end(), [&](const Def &m) { return m.id == d.id; })) own.push_back(d.id);
    }
    ValueId v;
    if (!own.empty() && chance(85)) v = pick(own);
    else if (!any.empty() && chance(50)) v = pick(any);
    else if (slice.type.rank() == 0) v = slice.id;
    else {
      // The slice of the first xs (always floating), summed to 0-d: broadcasts to any buffer.
      Def sum = fresh(Type{slice.type.dtype, {}});
      r.stmts.push_back(Stmt{"sum_all", {slice.id}, {}, {}, {sum}});
      v = sum.id;
    }
    Def d = fresh(p.type);
    r.stmts.push_back(Stmt{op, {p.id, v}, {}, {}, {d}});
    return d.id;
  }

  void stmt(Block &b, int depth) {
    if (depth < pol_.maxDepth && chance(pol_.condPercent)) {
      // One construct, drawn by the policy's weights in registry order (the last one when
      // every weight is 0); inside a region a transform weighs region_transform_factor times
      // its weight: levels opened inside control flow, interleaved with the batch spec's.
      const auto &registry = constructRegistry();
      auto weight = [&](ConstructKind kind) {
        return pol_.weight(kind) * (depth > 0 && constructDef(kind).transform ? pol_.regionTransformFactor : 1);
      };
      int64_t total = 0;
      for (const auto &d : registry) total += weight(d.kind);
      int64_t x = draw(0, std::max<int64_t>(total, 1) - 1);
      size_t k = 0;
      while (k + 1 < registry.size() && (x -= weight(registry[k].kind)) >= 0) ++k;
      switch (registry[k].kind) {
      case ConstructKind::Cond: condStmt(b, depth); break;
      case ConstructKind::Switch: switchStmt(b, depth); break;
      case ConstructKind::WhileLoop: whileStmt(b, depth); break;
      case ConstructKind::Scan: scanStmt(b, depth); break;
      case ConstructKind::Vmap: vmapStmt(b, depth); break;
      case ConstructKind::Grad: gradStmt(b, depth); break;
      case ConstructKind::Jvp: jvpStmt(b, depth); break;
      }
      return;
    }
    for (int t = 0; t < 4; ++t)
      if (opStmt(b, depth > 0)) return;
  }

  std::vector<ValueId> chooseOutputs(const Block &b) {
    std::vector<ValueId> out;
    if (!b.stmts.empty()) out.push_back(b.stmts.back().results.front().id);
    auto vis = scopes_.back();
    int64_t extra = draw(0, pol_.maxOutputs - 1);
    // Results of constructs are the interesting ones: offer them first.
    std::vector<ValueId> cf;
    for (const auto &s : b.stmts)
      if (!s.regions.empty())
        for (const auto &r : s.results) cf.push_back(r.id);
    for (int64_t i = 0; i < extra || out.empty(); ++i) {
      ValueId v = (!cf.empty() && chance(60)) ? pick(cf) : pick(vis).id;
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
      if (out.size() >= static_cast<size_t>(pol_.maxOutputs)) break;
    }
    return out;
  }
};

/// Rank of a value as seen by vmap level `li` (its own dim included) given inner levels.
int64_t levelRank(const std::vector<VmapLevel> &levels, size_t li, size_t input, int64_t base) {
  int64_t r = base + 1;
  for (size_t k = li + 1; k < levels.size(); ++k)
    if (levels[k].in_dims[input]) ++r;
  return r;
}

/// The largest element count of any value of `p` (the GPU tier's are past 2^20).
int64_t maxNumel(const Block &body) {
  int64_t m = 0;
  forEachBlock(body, [&](const Block &b, int) {
    for (const auto &d : b.params) m = std::max(m, d.type.numel());
    for (const auto &s : b.stmts)
      for (const auto &d : s.results) m = std::max(m, d.type.numel());
  });
  return m;
}

/// A chunk_size for a level of `size`: half the time one that divides it, else one that does
/// not (larger than the size when every smaller one divides).
int64_t drawChunk(int64_t size) {
  std::vector<int64_t> divides, notDividing;
  for (int64_t k = 1; k <= size; ++k) (size % k == 0 ? divides : notDividing).push_back(k);
  if (notDividing.empty() || chance(50)) return chance(20) ? size + draw(1, 3) : pick(divides);
  return pick(notDividing);
}

/// Which inputs each level batches: any subset of levels per input, at least one input per
/// level.
void drawBatchedSets(BatchSpec &s, size_t nIn, const GenPolicy &policy) {
  for (auto &l : s.levels) {
    l.in_dims.assign(nIn, std::nullopt);
    bool any = false;
    for (size_t i = 0; i < nIn; ++i)
      if (!chance(policy.noneInDimPercent)) l.in_dims[i] = 0, any = true;
    if (!any) l.in_dims[draw(0, static_cast<int64_t>(nIn) - 1)] = 0;
  }
  // Now and then an input that no level batches (captured by every level as is).
  if (nIn > 1 && chance(policy.unbatchedInputPercent)) {
    size_t i = draw(0, static_cast<int64_t>(nIn) - 1);
    for (auto &l : s.levels) {
      l.in_dims[i].reset();
      bool any = false;
      for (const auto &d : l.in_dims) any |= d.has_value();
      if (!any) l.in_dims[(i + 1) % nIn] = 0;
    }
  }
}

/// Now and then (GenPolicy::unbatchedSelectorPercent) the inputs one selector of `p` is
/// computed from are left unbatched at one level, which batches some other input: there the
/// construct's batching rule takes its unbatched-selector path (cond_op on a predicate that every
/// example shares, with vmapped branches). A selector computed from every input, or from none,
/// is left as drawn.
void unbatchASelector(BatchSpec &s, const Program &p, size_t nIn, const GenPolicy &policy) {
  if (!chance(policy.unbatchedSelectorPercent)) return;
  const std::vector<uint64_t> selectors = selectorInputs(p);
  if (selectors.empty()) return;
  const uint64_t from = pick(selectors);
  std::vector<size_t> others;
  for (size_t i = 0; i < nIn; ++i)
    if (i >= 64 || !(from >> i & 1)) others.push_back(i);
  if (from == 0 || others.empty()) return;
  auto &l = s.levels[draw(0, static_cast<int64_t>(s.levels.size()) - 1)];
  for (size_t i = 0; i < nIn && i < 64; ++i)
    if (from >> i & 1) l.in_dims[i].reset();
  if (std::none_of(others.begin(), others.end(), [&](size_t i) { return l.in_dims[i].has_value(); })) l.in_dims[pick(others)] = 0;
}

/// The spec of a GPU-tier program: one level of size 2 to 4 over its two 1-d inputs.
BatchSpec gpuTierSpec(const Program &p) {
  BatchSpec s;
  s.levels.resize(1);
  auto &l = s.levels[0];
  l.size = draw(2, 4);
  l.in_dims = {chance(50) ? 0 : -2, chance(70) ? std::optional<int64_t>(chance(50) ? 0 : -2) : std::nullopt};
  l.out_dims = {chance(50) ? 0 : -1};
  s.data_seed = *rc::gen::inRange<uint64_t>(0, uint64_t{1} << 53);
  return s;
}

/// Layouts for some inputs of `c` (its levels already drawn): transposed, expanded along a
/// per-example dim, strided along any dim, or just offset into their storage.
std::vector<Layout> drawLayouts(const Case &c) {
  std::vector<Layout> ls;
  bool any = false;
  for (size_t i = 0; i < c.program.body.params.size(); ++i) {
    Type t = physicalInputType(c, i);
    auto levels = physicalDimLevels(c, i);
    std::vector<Layout> options;
    for (int64_t d = 0; d + 1 < t.rank(); ++d) options.push_back({Layout::Kind::Transposed, d});
    for (int64_t d = 0; d < t.rank(); ++d) {
      options.push_back({Layout::Kind::Strided, d});
      if (levels[d] < 0 && t.shape[d] >= 2) options.push_back({Layout::Kind::Expanded, d});
    }
    options.push_back({Layout::Kind::Offset, 0});
    Layout l;
    if (chance(60)) l = pick(options);
    any |= l.kind != Layout::Kind::Contiguous;
    ls.push_back(l);
  }
  if (!any) ls.clear();
  return ls;
}

} // namespace

rc::Gen<Program> genProgram(const GenPolicy &policy) {
  return rc::gen::exec([policy] { return ProgramBuilder(policy).build(); });
}

rc::Gen<BatchSpec> genBatchSpec(const Program &p, const GenPolicy &policy) {
  return rc::gen::exec([p, policy] {
    if (maxNumel(p.body) > (int64_t{1} << 20)) return gpuTierSpec(p);
    BatchSpec s;
    size_t nLevels = (policy.maxLevels > 1 && chance(policy.nestedPercent)) ? draw(2, policy.maxLevels) : 1;
    size_t nIn = p.body.params.size(), nOut = p.body.yields.size();
    s.levels.resize(nLevels);
    // Sizes: 1, 2, primes, now and then a large one; nested levels equal or not.
    bool equal = nLevels > 1 && chance(policy.equalSizesPercent);
    int64_t total = 1;
    for (auto &l : s.levels) {
      l.size = pick(policy.batchSizes);
      if (chance(policy.largeBatchPercent)) l.size = pick(policy.largeBatchSizes);
      if (equal) l.size = s.levels[0].size;
      for (int t = 0; t < 4 && l.size > 1 && total * l.size > policy.maxTotalBatch; ++t) l.size = pick(policy.batchSizes);
      if (total * l.size > policy.maxTotalBatch) l.size = 1;
      total *= l.size;
    }
    // Choose which levels batch which inputs first, innermost level last.
    drawBatchedSets(s, nIn, policy);
    unbatchASelector(s, p, nIn, policy);
    // Then the dims, which depend on how many inner levels batch the same input.
    for (size_t li = 0; li < nLevels; ++li)
      for (size_t i = 0; i < nIn; ++i)
        if (s.levels[li].in_dims[i]) {
          int64_t r = levelRank(s.levels, li, i, p.body.params[i].type.rank());
          s.levels[li].in_dims[i] = draw(-r, r - 1);
        }
    auto outs = outputTypes(p);
    for (size_t li = 0; li < nLevels; ++li) {
      auto &l = s.levels[li];
      for (size_t o = 0; o < nOut; ++o) {
        int64_t r = outs[o].rank() + static_cast<int64_t>(nLevels - li);
        l.out_dims.push_back(draw(-r, r - 1));
      }
      if (chance(policy.chunkPercent)) l.chunk_size = drawChunk(l.size);
      if (chance(policy.randomnessPercent)) l.randomness = chance(50) ? "different" : "same";
    }
    if (chance(policy.layoutPercent)) s.layouts = drawLayouts(Case{p, s});
    s.data_seed = drawSeed();
    return s;
  });
}

rc::Gen<Case> genCase(const GenPolicy &policy) {
  return rc::gen::mapcat(genProgram(policy), [policy](Program p) {
    return rc::gen::map(genBatchSpec(p, policy), [p](BatchSpec s) { return Case{p, std::move(s)}; });
  });
}

Case generateCase(uint64_t seed, int size, const GenPolicy &policy) {
  return genCase(policy)(rc::Random(seed), size).value();
}

} // namespace vf
