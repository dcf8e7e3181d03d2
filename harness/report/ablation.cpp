#include "harness/report/ablation.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "harness/report/shrinker.h"
#include "ir/constructs.h"
#include "ir/dependence.h"
#include "ir/validate.h"

namespace vf {

namespace {

using Inputs = std::set<size_t>; // indices of program inputs

/// One role a construct's arguments play: its predicate, its operands, ...
struct Role {
  std::string op, role; ///< "cond", "predicate"
  size_t construct;     ///< which construct, in program order: the roles of one construct share it
  Inputs deps;          ///< the program inputs the role's values depend on
  bool selector;        ///< chooses what runs (predicate, index, trip count): probed whole
};

/// The roles of every construct's arguments, in program order, each with the program inputs its
/// values depend on: the data flow of ir/dataflow.h (ir/dependence.h), the one walk every
/// analysis shares.
class Roles {
public:
  explicit Roles(const Program &p) : deps_(valueInputs(p)) { block(p.body); }
  const std::vector<Role> &all() const { return roles_; }

private:
  std::unordered_map<ValueId, uint64_t> deps_;
  std::vector<Role> roles_;
  size_t constructs_ = 0;

  Inputs of(const std::vector<ValueId> &ids, size_t from = 0, size_t to = SIZE_MAX) const {
    Inputs out;
    for (size_t k = from; k < ids.size() && k < to; ++k) {
      auto it = deps_.find(ids[k]);
      for (size_t i = 0; it != deps_.end() && i < 64; ++i)
        if (it->second >> i & 1) out.insert(i);
    }
    return out;
  }

  void add(const Stmt &s, const std::string &role, Inputs deps, bool selector) {
    roles_.push_back({s.op, role, constructs_, std::move(deps), selector});
  }

  void block(const Block &b) {
    for (const auto &s : b.stmts) {
      if (s.regions.empty()) continue;
      for (const auto &r : s.regions) block(r);
      const ConstructDef &def = constructOf(s);
      switch (def.kind) {
      case ConstructKind::Cond:
      case ConstructKind::Switch:
        add(s, def.selector, of(s.args, 0, 1), true);
        add(s, "operands", of(s.args, 1), false);
        break;
      case ConstructKind::WhileLoop: // the trip count is what cond_fn yields
        add(s, "trip count", s.regions[0].yields.empty() ? of(s.args) : of(s.regions[0].yields, 0, 1), true);
        add(s, "carries", of(s.args), false);
        break;
      case ConstructKind::Scan: {
        const ScanParts p = scanParts(s);
        add(s, "carries", of(s.args, 0, p.carries), false);
        add(s, "xs", of(s.args, p.carries, p.carries + p.xs), false);
        if (p.bufs > 0) add(s, "buffers", of(s.args, p.carries + p.xs), false);
        break;
      }
      case ConstructKind::Vmap:
      case ConstructKind::Grad: add(s, "operands", of(s.args), false); break;
      case ConstructKind::Jvp:
        add(s, "primals", of(s.args, 0, s.args.size() / 2), false);
        add(s, "tangents", of(s.args, s.args.size() / 2), false);
        break;
      }
      ++constructs_;
    }
  }
};

/// The rank, at level `l`, of input `i` as that level's vmap sees it: its per-example rank
/// plus one for every level from `l` inwards that batches it.
int64_t inputRankAt(const Case &c, size_t i, size_t l) {
  int64_t r = c.program.body.params[i].type.rank();
  for (size_t k = l; k < c.spec.levels.size(); ++k) r += c.spec.levels[k].in_dims[i] ? 1 : 0;
  return r;
}

/// The rank of output `o` after level `l` added its batch dim (every level adds one).
int64_t outputRankAt(const Case &c, size_t o, size_t l) {
  std::map<ValueId, int64_t> rank;
  std::function<void(const Block &)> walk = [&](const Block &b) {
    for (const auto &d : b.params) rank[d.id] = d.type.rank();
    for (const auto &s : b.stmts) {
      for (const auto &r : s.regions) walk(r);
      for (const auto &d : s.results) rank[d.id] = d.type.rank();
    }
  };
  walk(c.program.body);
  return rank[c.program.body.yields[o]] + static_cast<int64_t>(c.spec.levels.size() - l);
}

/// A level left batching no input is not a valid vmap: give it an unused batched scalar, so that
/// the predicate of a one-input program can be unbatched while the level stays (the program's
/// values do not change; its outputs are only expanded along that level).
void keepLevelsBatched(Case &c) {
  ValueId next = 0;
  std::function<void(const Block &)> walk = [&](const Block &b) {
    for (const auto &d : b.params) next = std::max(next, d.id + 1);
    for (const auto &s : b.stmts) {
      for (const auto &d : s.results) next = std::max(next, d.id + 1);
      for (const auto &r : s.regions) walk(r);
    }
  };
  walk(c.program.body);
  for (size_t l = 0; l < c.spec.levels.size(); ++l) {
    bool any = false;
    for (const auto &d : c.spec.levels[l].in_dims) any |= d.has_value();
    if (any) continue;
    Def extra;
    extra.id = next++;
    extra.type.dtype = DType::f32;
    c.program.body.params.push_back(extra);
    for (size_t k = 0; k < c.spec.levels.size(); ++k)
      c.spec.levels[k].in_dims.push_back(k == l ? std::optional<int64_t>(0) : std::nullopt);
    if (!c.spec.layouts.empty()) c.spec.layouts.push_back(Layout{});
  }
}

/// `cand`, changed from `c`, where it validates; an input whose batching changed (batched or not
/// at a level, or a level dropped) is handed over contiguous (a layout is made for the batched
/// tensor's rank).
std::optional<Case> validOrNone(Case cand, const Case &c) {
  if (cand == c) return std::nullopt;
  const bool levelsDropped = c.spec.levels.size() != cand.spec.levels.size();
  for (size_t i = 0; i < c.spec.layouts.size() && i < cand.spec.layouts.size(); ++i) {
    bool changed = levelsDropped;
    for (size_t l = 0; !changed && l < c.spec.levels.size(); ++l)
      changed = cand.spec.levels[l].in_dims[i].has_value() != c.spec.levels[l].in_dims[i].has_value();
    if (changed) cand.spec.layouts[i] = Layout{};
  }
  if (!validateCase(cand).empty()) return std::nullopt;
  return cand;
}

/// "in_dims<0", "in_dims>0", "out_dims<0", "out_dims>0" at `levels`: negative dims made positive
/// (the same dim), positive ones 0.
std::optional<Case> canonicalDims(const Case &c, const std::string &base, const std::vector<size_t> &levels) {
  const bool negative = base.find('<') != std::string::npos;
  Case cand = c;
  for (size_t l : levels) {
    auto &lv = cand.spec.levels[l];
    if (base.starts_with("in_dims"))
      for (size_t i = 0; i < lv.in_dims.size(); ++i) {
        auto &d = lv.in_dims[i];
        if (d && negative && *d < 0) d = *d + inputRankAt(c, i, l);
        if (d && !negative && *d > 0) d = 0;
      }
    else
      for (size_t o = 0; o < lv.out_dims.size(); ++o) {
        auto &d = lv.out_dims[o];
        if (negative && d < 0) d = d + outputRankAt(c, o, l);
        if (!negative && d > 0) d = 0;
      }
  }
  return validOrNone(std::move(cand), c);
}

/// "X.SEL:has-dims" (SEL: cond's predicate, switch's index): each of construct X's selectors that
/// has dims (a one-element tensor of shape [1] or [1, 1]) reshaped to 0-d just before X, which
/// leaves every example's value as it was. nullopt when no selector of X has dims.
std::optional<Case> selectorsMade0d(const Case &c, const std::string &op) {
  Case cand = c;
  ValueId next = cand.program.nextId();
  std::map<ValueId, Type> type;
  std::function<void(Block &)> walk = [&](Block &b) {
    for (const auto &d : b.params) type[d.id] = d.type;
    for (size_t k = 0; k < b.stmts.size(); ++k) {
      for (auto &r : b.stmts[k].regions) walk(r);
      for (const auto &d : b.stmts[k].results) type[d.id] = d.type;
      const Stmt &s = b.stmts[k];
      if (s.op != op || constructOf(s).selector.empty() || s.attrs.find("pred") || s.args.empty()) continue;
      const Type t = type[s.args[0]];
      if (t.rank() == 0) continue;
      Attrs shape;
      shape.set("shape", IntList{});
      const Def flat{next++, Type{t.dtype, {}}};
      const ValueId from = s.args[0];
      b.stmts[k].args[0] = flat.id;
      b.stmts.insert(b.stmts.begin() + static_cast<std::ptrdiff_t>(k), Stmt{"reshape", {from}, shape, {}, {flat}});
      ++k;
    }
  };
  walk(cand.program.body);
  return validOrNone(std::move(cand), c);
}

/// The program's own torch.vmap constructs with every negative in_dim ("in_dims<0") or out_dim
/// ("out_dims<0") made the positive dim it names (its operand's or result's rank added): the
/// same program. nullopt when none is negative.
std::optional<Case> programVmapDims(const Case &c, const std::string &base) {
  const bool in = base.starts_with("in_dims");
  Case cand = c;
  std::map<ValueId, int64_t> rank;
  bool changed = false;
  std::function<void(Block &)> walk = [&](Block &b) {
    for (const auto &d : b.params) rank[d.id] = d.type.rank();
    for (auto &s : b.stmts) {
      for (const auto &d : s.results) rank[d.id] = d.type.rank();
      for (auto &r : s.regions) walk(r);
      if (s.op != "vmap") continue;
      const char *name = in ? "in_dims" : "out_dims";
      const Attr *a = s.attrs.find(name);
      if (!a || !std::holds_alternative<IntList>(*a)) continue;
      IntList dims = std::get<IntList>(*a);
      bool here = false;
      for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == kNoneDim || dims[i] >= 0) continue;
        const int64_t r = in ? (i < s.args.size() ? rank[s.args[i]] : 0) : (i < s.results.size() ? s.results[i].type.rank() : 0);
        dims[i] += r;
        here = true;
      }
      if (here) s.attrs.set(name, dims);
      changed = changed || here;
    }
  };
  walk(cand.program.body);
  if (!changed) return std::nullopt;
  return validOrNone(std::move(cand), c);
}

/// "dtype=CLS": every input of that class moved to another (float -> int64, int -> float32,
/// bool -> int64); only where the program still type-checks.
std::optional<Case> moveDtypeClass(const Case &c, const std::string &cls) {
  Case cand = c;
  for (auto &p : cand.program.body.params) {
    const DType d = p.type.dtype;
    const std::string k = isFloating(d) ? "float" : isIntegral(d) ? "int" : "bool";
    if (k == cls) p.type.dtype = k == "int" ? DType::f32 : DType::i64;
  }
  if (!reinferTypes(cand.program)) return std::nullopt;
  return validOrNone(std::move(cand), c);
}

/// The inputs through which role `ri` of `all` is probed: a selector's whole; a data role's
/// only those no other role of its construct reads, so that unbatching the operands does not
/// unbatch the predicate too.
Inputs probeOf(const std::vector<Role> &all, size_t ri) {
  Inputs probe = all[ri].deps;
  if (!all[ri].selector)
    for (size_t rj = 0; rj < all.size(); ++rj)
      if (rj != ri && all[rj].construct == all[ri].construct)
        for (size_t i : all[rj].deps) probe.erase(i);
  return probe;
}

} // namespace

std::string levelName(size_t l, size_t n) {
  if (n == 1) return "vmap";
  if (n == 2) return l == 0 ? "outer" : "inner";
  return "level " + std::to_string(l + 1) + " of " + std::to_string(n);
}

namespace {

std::string atLevel(size_t l, size_t n) {
  if (n == 1) return "under vmap";
  return "at the " + levelName(l, n) + (n == 2 ? " level" : "");
}

/// One ablation: the features of a case probed in a fixed order, each change run once.
class Ablator {
public:
  Ablator(const Case &c, const StillFailsProbe &stillFails, int maxProbes)
      : c_(c), stillFails_(stillFails), maxProbes_(maxProbes), n_(c.spec.levels.size()) {}

  Ablation run() {
    roles();
    nesting();
    for (size_t l = 0; l < n_; ++l) {
      dims(l);
      chunking(l);
    }
    programDims();
    selectorShapes();
    dtypes();
    a_.features.assign(features_.begin(), features_.end());
    return a_;
  }

private:
  const Case &c_;
  const StillFailsProbe &stillFails_;
  const int maxProbes_;
  const size_t n_;
  Ablation a_;
  std::set<std::string> features_;
  std::set<std::string> tried_;
  std::map<std::string, size_t> rolePhrase_; ///< "the predicate of cond" -> its phrase

  /// One probe: essential when the changed case is valid and no longer fails the same way. An
  /// invalid change, or one past the budget, says nothing: the feature is not listed.
  bool essential(const Case &cand) {
    if (!validateCase(cand).empty()) return false;
    if (a_.probes >= maxProbes_) {
      a_.capped = true;
      return false;
    }
    ++a_.probes;
    return !stillFails_(cand);
  }

  void add(const std::string &f, const std::string &phrase) {
    if (features_.insert(f).second) a_.phrases.push_back(phrase);
  }

  /// 1. Roles of the constructs, per level: a batched role unbatched (its inputs' in_dims to
  ///    None), an unbatched role batched (in_dims 0). Selectors first, whole; a data role only
  ///    through the inputs no other role of its construct depends on, so that unbatching the
  ///    operands does not unbatch the predicate too.
  void roles() {
    const Roles roles(c_.program);
    const std::vector<Role> &all = roles.all();
    for (int pass = 0; pass < 2; ++pass)
      for (size_t ri = 0; ri < all.size(); ++ri) {
        const Role &role = all[ri];
        if (role.selector != (pass == 0)) continue;
        const Inputs probe = probeOf(all, ri);
        if (probe.empty()) continue;
        for (size_t l = 0; l < n_; ++l) roleAtLevel(role, probe, l);
      }
  }

  void roleAtLevel(const Role &role, const Inputs &probe, size_t l) {
    const auto &dims = c_.spec.levels[l].in_dims;
    bool batched = false;
    for (size_t i : role.deps) batched |= dims[i].has_value();
    Case cand = c_;
    bool changed = false;
    for (size_t i : probe) {
      auto &d = cand.spec.levels[l].in_dims[i];
      if (batched && d) d.reset(), changed = true;
      if (!batched && !d) d = 0, changed = true;
    }
    if (!changed) return;
    keepLevelsBatched(cand);
    std::string f = role.op + "." + role.role + ":" + (batched ? "batched@" : "unbatched@") + levelName(l, n_);
    if (features_.count(f) || !tried_.insert(f).second) return;
    if (!essential(cand)) return;
    // A second level of the same role joins the first's phrase: "the predicate of cond is
    // batched at the outer level and not at the inner level".
    const std::string who = "the " + role.role + " of " + role.op;
    if (auto it = rolePhrase_.find(who); it != rolePhrase_.end()) {
      features_.insert(f);
      a_.phrases[it->second] += std::string(" and ") + (batched ? "" : "not ") + atLevel(l, n_);
      return;
    }
    rolePhrase_[who] = a_.phrases.size();
    const bool plural = role.role == "operands" || role.role == "carries" || role.role == "xs" || role.role == "buffers";
    add(f, who + (plural ? " are " : " is ") + (batched ? "" : "not ") + "batched " + atLevel(l, n_));
  }

  /// 2. Nesting: essential when every level taken away ends the failure. Where one level's
  ///    removal does not, that level alone was incidental; where only some removals end it,
  ///    what they took was a feature of that level (a negative in_dim there, say), which the
  ///    other probes name.
  void nesting() {
    if (n_ < 2) return;
    for (size_t l = 0; l < n_; ++l) {
      Case cand = c_;
      cand.spec.levels.erase(cand.spec.levels.begin() + static_cast<std::ptrdiff_t>(l));
      if (!essential(cand)) return;
    }
    add("nested", "vmap is nested (" + std::to_string(n_) + " levels)");
  }

  /// 3. in_dims and out_dims of level `l`: negative ones made positive (the same dim), positive ones 0.
  void dims(size_t l) {
    for (int sign : {-1, 1})
      for (const char *which : {"in_dims", "out_dims"}) {
        const std::string f = std::string(which) + (sign < 0 ? "<0" : ">0");
        auto cand = canonicalDims(c_, f, {l});
        if (cand && essential(*cand))
          add(f + "@" + levelName(l, n_), std::string("an ") + (which[0] == 'i' ? "in_dim" : "out_dim") +
                                              (sign < 0 ? " is negative " : " is positive (not 0) ") + atLevel(l, n_));
      }
  }

  /// 3b. Negative in_dims and out_dims of the program's own torch.vmap constructs (vmap's front
  ///     end takes them as it takes the batch spec's): made the positive dims they name.
  void programDims() {
    for (const char *which : {"in_dims", "out_dims"}) {
      const std::string f = std::string(which) + "<0";
      auto cand = programVmapDims(c_, f);
      if (cand && essential(*cand))
        add(f + "@program", std::string("an ") + (which[0] == 'i' ? "in_dim" : "out_dim") + " of a torch.vmap in the program is negative");
    }
  }

  /// 3c. Selectors with dims (cond's predicate, switch's index of shape [1] or [1, 1], one
  ///     element each): made 0-d, every example's value unchanged.
  void selectorShapes() {
    for (const auto &def : constructRegistry()) {
      if (def.selector.empty()) continue;
      auto cand = selectorsMade0d(c_, def.name);
      if (cand && essential(*cand))
        add(def.name + "." + def.selector + ":has-dims",
            "the " + def.selector + " of " + def.name + " has dims (one element, rank > 0; made 0-d, it passes)");
    }
  }

  /// 4. Chunking of level `l`.
  void chunking(size_t l) {
    if (!c_.spec.levels[l].chunk_size) return;
    Case cand = c_;
    cand.spec.levels[l].chunk_size.reset();
    if (essential(cand)) add("chunk_size@" + levelName(l, n_), "chunk_size is set " + atLevel(l, n_));
  }

  /// 5. Dtype class: every input of one class moved to another (float -> int64, int -> float32,
  ///    bool -> int64); only where the program still type-checks.
  void dtypes() {
    for (const char *cls : {"float", "int", "bool"}) {
      auto cand = moveDtypeClass(c_, cls);
      const std::string to = std::string(cls) == "int" ? "float32" : "int64";
      if (cand && essential(*cand))
        add(std::string("dtype=") + cls, std::string("the ") + cls + " inputs keep a " + cls + " dtype (made " + to + ", it passes)");
    }
  }
};

} // namespace

Ablation ablate(const Case &c, const StillFailsProbe &stillFails, int maxProbes) { return Ablator(c, stillFails, maxProbes).run(); }

std::string essentialSentence(const Ablation &a) {
  if (a.phrases.empty()) return "no single feature of the batching was found necessary: it fails whatever was changed";
  std::string s = "fails only when ";
  for (size_t i = 0; i < a.phrases.size(); ++i) {
    if (i) s += i + 1 == a.phrases.size() ? " and " : ", ";
    s += a.phrases[i];
  }
  return s;
}

namespace {

/// The levels of an `n`-level case a feature's level name stands for: "inner" the last,
/// "outer" every other one, "level K of N" the K-th where the case has N levels; "vmap", no name,
/// or a name that does not fit this case: every level.
std::vector<size_t> levelsNamed(const std::string &name, size_t n) {
  std::vector<size_t> all;
  for (size_t l = 0; l < n; ++l) all.push_back(l);
  if (name == "inner" && n > 0) return {n - 1};
  if (name == "outer" && n > 1) return {all.begin(), all.end() - 1};
  size_t k = 0, of = 0;
  if (std::sscanf(name.c_str(), "level %zu of %zu", &k, &of) == 2 && of == n && k >= 1 && k <= n) return {k - 1};
  return all;
}

/// "X.role:batched" / "X.role:unbatched" at `levels`: every construct X's role (a data role only
/// through the inputs no other role of its construct reads, as the ablation probes it).
std::optional<Case> rebatchRole(const Case &c, const std::string &base, const std::vector<size_t> &levels) {
  const size_t dot = base.find('.'), colon = base.find(':');
  if (dot == std::string::npos || colon == std::string::npos || colon < dot) return std::nullopt;
  const std::string op = base.substr(0, dot), role = base.substr(dot + 1, colon - dot - 1);
  const bool unbatch = base.substr(colon + 1) == "batched";
  const Roles roles(c.program);
  const std::vector<Role> &all = roles.all();
  Case cand = c;
  for (size_t ri = 0; ri < all.size(); ++ri) {
    if (all[ri].op != op || all[ri].role != role) continue;
    for (size_t l : levels)
      for (size_t i : probeOf(all, ri)) {
        auto &d = cand.spec.levels[l].in_dims[i];
        if (unbatch) d.reset();
        else if (!d) d = 0;
      }
  }
  keepLevelsBatched(cand);
  return validOrNone(std::move(cand), c);
}

} // namespace

std::optional<Case> withoutFeature(const Case &c, const std::string &feature) {
  const size_t at = feature.find('@');
  const std::string base = feature.substr(0, at);
  const std::vector<size_t> levels = levelsNamed(at == std::string::npos ? "" : feature.substr(at + 1), c.spec.levels.size());
  if (base == "nested") {
    if (c.spec.levels.size() < 2) return std::nullopt;
    Case cand = c;
    cand.spec.levels.erase(cand.spec.levels.begin(), cand.spec.levels.end() - 1); // the innermost stays
    keepLevelsBatched(cand);
    return validOrNone(std::move(cand), c);
  }
  if (base == "chunk_size") {
    Case cand = c;
    for (size_t l : levels) cand.spec.levels[l].chunk_size.reset();
    return validOrNone(std::move(cand), c);
  }
  if (base.starts_with("in_dims") || base.starts_with("out_dims")) {
    const std::string level = at == std::string::npos ? "" : feature.substr(at + 1);
    const bool negative = base.find('<') != std::string::npos;
    if (level == "program") return negative ? programVmapDims(c, base) : std::nullopt;
    auto cand = canonicalDims(c, base, levels);
    // No level named (a front-end feature, whose levels are dropped): the program's vmaps too.
    if (level.empty() && negative)
      if (auto both = programVmapDims(cand ? *cand : c, base)) return both;
    return cand;
  }
  if (base.starts_with("dtype=")) return moveDtypeClass(c, base.substr(6));
  if (base.ends_with(":has-dims")) return selectorsMade0d(c, base.substr(0, base.find('.')));
  // A role batched at the innermost level is met by every level's rule that sees it batched (a
  // predicate batched at the outer level only reaches the outer level's rule batched): unbatched
  // at every level. Batched at an outer level is another path, that only those levels take.
  const bool anyLevel = base.size() > 8 && base.compare(base.size() - 8, 8, ":batched") == 0 &&
                        (at == std::string::npos || feature.substr(at + 1) == "inner");
  return rebatchRole(c, base, anyLevel ? levelsNamed("", c.spec.levels.size()) : levels);
}

std::optional<Case> unbatchReadsOf(const Case &c, const std::string &component) {
  const size_t colon = component.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const std::string kind = component.substr(0, colon), name = component.substr(colon + 1);
  if (kind != "hop" && kind != "op") return std::nullopt;
  const auto deps = valueInputs(c.program);
  uint64_t reads = 0;
  std::function<void(const Block &)> walk = [&](const Block &b) {
    for (const auto &s : b.stmts) {
      for (const auto &r : s.regions) walk(r);
      if (s.op != name || (kind == "hop") != !s.regions.empty()) continue;
      for (ValueId a : s.args)
        if (auto it = deps.find(a); it != deps.end()) reads |= it->second;
    }
  };
  walk(c.program.body);
  Case cand = c;
  for (auto &lv : cand.spec.levels)
    for (size_t i = 0; i < lv.in_dims.size() && i < 64; ++i)
      if (reads >> i & 1) lv.in_dims[i].reset();
  keepLevelsBatched(cand);
  return validOrNone(std::move(cand), c);
}

} // namespace vf
