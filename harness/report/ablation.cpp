#include "harness/report/ablation.h"

#include <algorithm>
#include <map>
#include <set>

#include "harness/report/shrinker.h"
#include "ir/constructs.h"
#include "ir/validate.h"

namespace vf {

namespace {

using Inputs = std::set<size_t>; // indices of program inputs

/// One role a construct's arguments play: its predicate, its operands, ...
struct Role {
  std::string op, role; ///< "cond", "predicate"
  Inputs deps;          ///< the program inputs the role's values depend on
  bool selector;        ///< chooses what runs (predicate, index, trip count): probed whole
};

/// Which program inputs each value depends on (through ops, construct operands and captures),
/// and the roles of every construct's arguments, in program order.
struct Flow {
  std::map<ValueId, Inputs> deps;
  std::vector<Role> roles;

  Inputs of(const std::vector<ValueId> &ids, size_t from = 0, size_t to = SIZE_MAX) {
    Inputs out;
    for (size_t k = from; k < ids.size() && k < to; ++k) out.insert(deps[ids[k]].begin(), deps[ids[k]].end());
    return out;
  }

  void block(const Block &b) {
    for (const auto &s : b.stmts) {
      if (s.regions.empty()) {
        Inputs d = of(s.args);
        for (const auto &r : s.results) deps[r.id] = d;
        continue;
      }
      // Region parameters take the construct's trailing arguments (cond and switch: after the
      // predicate or index; while_loop: the carries; scan: carries, then slices of xs).
      Inputs all = of(s.args);
      std::vector<Inputs> yields;
      for (const auto &r : s.regions) {
        size_t first = s.args.size() >= r.params.size() ? s.args.size() - r.params.size() : 0;
        for (size_t k = 0; k < r.params.size(); ++k) deps[r.params[k].id] = first + k < s.args.size() ? deps[s.args[first + k]] : all;
        block(r);
        yields.push_back(of(r.yields));
      }
      Inputs res = all;
      for (const auto &y : yields) res.insert(y.begin(), y.end());
      for (const auto &r : s.results) deps[r.id] = res;
      const ConstructDef &def = constructOf(s);
      switch (def.kind) {
      case ConstructKind::Cond:
      case ConstructKind::Switch:
        roles.push_back({s.op, def.selector, of(s.args, 0, 1), true});
        roles.push_back({s.op, "operands", of(s.args, 1), false});
        break;
      case ConstructKind::WhileLoop:
        roles.push_back({s.op, "trip count", yields.empty() ? all : yields[0], true});
        roles.push_back({s.op, "carries", all, false});
        break;
      case ConstructKind::Scan: {
        const ScanParts p = scanParts(s);
        roles.push_back({s.op, "carries", of(s.args, 0, p.carries), false});
        roles.push_back({s.op, "xs", of(s.args, p.carries, p.carries + p.xs), false});
        if (p.bufs > 0) roles.push_back({s.op, "buffers", of(s.args, p.carries + p.xs), false});
        break;
      }
      }
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

} // namespace

Ablation ablate(const Case &c, const StillFailsProbe &stillFails, int maxProbes) {
  Ablation a;
  std::set<std::string> features;
  const size_t n = c.spec.levels.size();
  // One probe: essential when the changed case is valid and no longer fails the same way. An
  // invalid change, or one past the budget, says nothing: the feature is not listed.
  auto essential = [&](const Case &cand) {
    if (!validateCase(cand).empty()) return false;
    if (a.probes >= maxProbes) {
      a.capped = true;
      return false;
    }
    ++a.probes;
    return !stillFails(cand);
  };
  auto add = [&](const std::string &f, const std::string &phrase) {
    if (features.insert(f).second) a.phrases.push_back(phrase);
  };

  Flow flow;
  for (size_t i = 0; i < c.program.body.params.size(); ++i) flow.deps[c.program.body.params[i].id] = {i};
  flow.block(c.program.body);

  // 1. Roles of the constructs, per level: a batched role unbatched (its inputs' in_dims to
  //    None), an unbatched role batched (in_dims 0). Selectors first, whole; a data role only
  //    through the inputs no other role of its construct depends on, so that unbatching the
  //    operands does not unbatch the predicate too.
  std::set<std::string> tried;
  std::map<std::string, size_t> rolePhrase; // "the predicate of cond" -> its phrase
  for (int pass = 0; pass < 2; ++pass)
    for (size_t ri = 0; ri < flow.roles.size(); ++ri) {
      const Role &role = flow.roles[ri];
      if (role.selector != (pass == 0)) continue;
      Inputs probe = role.deps;
      if (!role.selector)
        for (size_t rj = 0; rj < flow.roles.size(); ++rj) {
          const Role &other = flow.roles[rj];
          // The roles of the same construct sit next to each other in `roles`.
          if (rj == ri || other.op != role.op || (rj / 2) != (ri / 2)) continue;
          for (size_t i : other.deps) probe.erase(i);
        }
      if (probe.empty()) continue;
      for (size_t l = 0; l < n; ++l) {
        const auto &dims = c.spec.levels[l].in_dims;
        bool batched = false;
        for (size_t i : role.deps) batched |= dims[i].has_value();
        Case cand = c;
        bool changed = false;
        for (size_t i : probe) {
          auto &d = cand.spec.levels[l].in_dims[i];
          if (batched && d) d.reset(), changed = true;
          if (!batched && !d) d = 0, changed = true;
        }
        if (!changed) continue;
        keepLevelsBatched(cand);
        std::string f = role.op + "." + role.role + ":" + (batched ? "batched@" : "unbatched@") + levelName(l, n);
        if (features.count(f) || !tried.insert(f).second) continue;
        if (!essential(cand)) continue;
        // A second level of the same role joins the first's phrase: "the predicate of cond is
        // batched at the outer level and not at the inner level".
        std::string who = "the " + role.role + " of " + role.op;
        if (auto it = rolePhrase.find(who); it != rolePhrase.end()) {
          features.insert(f);
          a.phrases[it->second] += std::string(" and ") + (batched ? "" : "not ") + atLevel(l, n);
          continue;
        }
        rolePhrase[who] = a.phrases.size();
        add(f, "the " + role.role + " of " + role.op + (role.role == "operands" || role.role == "carries" || role.role == "xs" || role.role == "buffers" ? " are " : " is ") +
                     (batched ? "" : "not ") + "batched " + atLevel(l, n));
      }
    }

  // 2. Nesting: a level taken away.
  for (size_t l = 0; n > 1 && l < n; ++l) {
    Case cand = c;
    cand.spec.levels.erase(cand.spec.levels.begin() + l);
    if (essential(cand)) {
      add("nested", "vmap is nested (" + std::to_string(n) + " levels)");
      break;
    }
  }

  // 3. in_dims and out_dims: negative ones made positive (the same dim), positive ones 0.
  for (size_t l = 0; l < n; ++l) {
    const auto &lv = c.spec.levels[l];
    for (int sign : {-1, 1}) {
      Case cand = c;
      bool changed = false;
      for (size_t i = 0; i < lv.in_dims.size(); ++i) {
        auto &d = cand.spec.levels[l].in_dims[i];
        if (!d || (sign < 0 ? *d >= 0 : *d <= 0)) continue;
        d = sign < 0 ? *d + inputRankAt(c, i, l) : 0;
        changed = true;
      }
      if (changed && essential(cand))
        add(std::string("in_dims") + (sign < 0 ? "<0@" : ">0@") + levelName(l, n),
            std::string(sign < 0 ? "an in_dim is negative " : "an in_dim is positive (not 0) ") + atLevel(l, n));
      cand = c;
      changed = false;
      for (size_t o = 0; o < lv.out_dims.size(); ++o) {
        auto &d = cand.spec.levels[l].out_dims[o];
        if (sign < 0 ? d >= 0 : d <= 0) continue;
        d = sign < 0 ? d + outputRankAt(c, o, l) : 0;
        changed = true;
      }
      if (changed && essential(cand))
        add(std::string("out_dims") + (sign < 0 ? "<0@" : ">0@") + levelName(l, n),
            std::string(sign < 0 ? "an out_dim is negative " : "an out_dim is positive (not 0) ") + atLevel(l, n));
    }
    // 4. Chunking.
    if (lv.chunk_size) {
      Case cand = c;
      cand.spec.levels[l].chunk_size.reset();
      if (essential(cand)) add("chunk_size@" + levelName(l, n), "chunk_size is set " + atLevel(l, n));
    }
  }

  // 5. Dtype class: every input of one class moved to another (float -> int64, int -> float32,
  //    bool -> int64); only where the program still type-checks.
  for (const char *cls : {"float", "int", "bool"}) {
    Case cand = c;
    bool changed = false;
    for (auto &p : cand.program.body.params) {
      DType d = p.type.dtype;
      std::string k = isFloating(d) ? "float" : isIntegral(d) ? "int" : "bool";
      if (k != cls) continue;
      p.type.dtype = k == "int" ? DType::f32 : DType::i64;
      changed = true;
    }
    if (!changed || !reinferTypes(cand.program)) continue;
    const std::string to = std::string(cls) == "int" ? "float32" : "int64";
    if (essential(cand)) add(std::string("dtype=") + cls, std::string("the ") + cls + " inputs keep a " + cls + " dtype (made " + to + ", it passes)");
  }

  a.features.assign(features.begin(), features.end());
  return a;
}

std::string essentialSentence(const Ablation &a) {
  if (a.phrases.empty()) return "no single feature of the batching was found necessary: it fails whatever was changed";
  std::string s = "fails only when ";
  for (size_t i = 0; i < a.phrases.size(); ++i) {
    if (i) s += i + 1 == a.phrases.size() ? " and " : ", ";
    s += a.phrases[i];
  }
  return s;
}

} // namespace vf
