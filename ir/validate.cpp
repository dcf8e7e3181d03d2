#include "ir/validate.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "ir/constructs.h"
#include "ir/op_registry.h"

namespace vf {

bool inferOpType(const std::string &op, const std::vector<Type> &args, const Attrs &attrs, Type &out,
                 std::string &error) {
  const OpDef *def = findOp(op);
  if (!def) {
    error = "unknown op '" + op + "'";
    return false;
  }
  if (static_cast<int>(args.size()) != def->arity) {
    error = "op '" + op + "' takes " + std::to_string(def->arity) + " argument(s), got " + std::to_string(args.size());
    return false;
  }
  error = checkAttrs(*def, args, attrs);
  if (error.empty()) error = def->type(args, attrs, out);
  return error.empty();
}

namespace {

/// How often `v` is used in `b` (arguments and yields, nested regions included).
size_t uses(const Block &b, ValueId v) {
  size_t n = static_cast<size_t>(std::count(b.yields.begin(), b.yields.end(), v));
  for (const auto &s : b.stmts) {
    n += static_cast<size_t>(std::count(s.args.begin(), s.args.end(), v));
    for (const auto &r : s.regions) n += uses(r, v);
  }
  return n;
}

/// The in-place rules (ir/constructs.h, scan's `nbuf`): an in-place op updates a buffer
/// parameter of the scan combine_fn it sits in, directly in that block (so it runs exactly once a
/// step); each buffer is updated by exactly one, has no other use (so every read of it sees one
/// value), and the combine_fn yields that update's result as the buffer's new value.
std::string inplaceRules(const Block &b, size_t nbuf) {
  std::map<ValueId, size_t> bufIndex;
  for (size_t j = 0; j < nbuf && j < b.params.size(); ++j) bufIndex[b.params[b.params.size() - nbuf + j].id] = j;
  std::vector<const Stmt *> update(nbuf, nullptr);
  for (const auto &s : b.stmts) {
    const OpDef *op = findOp(s.op);
    if (op && op->inplace) {
      std::string at = "in '%" + std::to_string(s.results.at(0).id) + " = " + s.op + "(...)': ";
      auto it = s.args.empty() ? bufIndex.end() : bufIndex.find(s.args[0]);
      if (it == bufIndex.end()) return at + "an in-place op may only update a buffer parameter of the scan combine_fn it is in";
      if (update[it->second]) return at + "buffer %" + std::to_string(it->first) + " is updated twice in one step";
      update[it->second] = &s;
    }
    const ConstructDef *c = findConstruct(s.op);
    for (const auto &r : s.regions) {
      size_t inner = c && c->kind == ConstructKind::Scan ? scanParts(s).bufs : 0;
      if (auto e = inplaceRules(r, inner); !e.empty()) return e;
    }
  }
  for (const auto &[id, j] : bufIndex) {
    std::string buf = "scan buffer %" + std::to_string(id) + ": ";
    if (!update[j]) return buf + "combine_fn must update it with an in-place op (add_, mul_, copy_)";
    if (uses(b, id) != 1) return buf + "its only use must be its in-place update (a read elsewhere would see the buffer mid-update)";
    if (b.yields.size() < nbuf || b.yields[b.yields.size() - nbuf + j] != update[j]->results.at(0).id)
      return buf + "combine_fn must yield its in-place update's result in the buffer's place (last " + std::to_string(nbuf) + ")";
  }
  return "";
}

class Validator {
public:
  std::string run(const Program &p) {
    try {
      std::vector<std::map<ValueId, Type>> scopes(1);
      define(scopes, p.body.params, "program input");
      block(p.body, scopes);
      if (p.body.yields.empty()) throw Err("the program returns nothing");
      if (auto e = inplaceRules(p.body, 0); !e.empty()) throw Err(e);
    } catch (const Err &e) {
      return e.msg;
    }
    return "";
  }

private:
  struct Err {
    std::string msg;
  };

  std::set<ValueId> seen_;

  static std::string name(ValueId v) { return "%" + std::to_string(v); }

  static std::string where(const Stmt &s) {
    std::string r;
    for (size_t i = 0; i < s.results.size(); ++i) r += (i ? ", " : "") + name(s.results[i].id);
    return "in '" + r + " = " + s.op + "(...)': ";
  }

  void define(std::vector<std::map<ValueId, Type>> &scopes, const std::vector<Def> &defs, const char *what) {
    for (const auto &d : defs) {
      if (d.id < 0) throw Err(std::string(what) + " " + name(d.id) + " has a negative number");
      if (!seen_.insert(d.id).second) throw Err(name(d.id) + " is defined twice");
      for (auto s : d.type.shape)
        if (s < 0) throw Err(name(d.id) + " has a negative dimension");
      scopes.back()[d.id] = d.type;
    }
  }

  static const Type *lookup(const std::vector<std::map<ValueId, Type>> &scopes, ValueId v) {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto f = it->find(v);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }

  std::vector<Type> types(const std::vector<std::map<ValueId, Type>> &scopes, const std::vector<ValueId> &ids,
                          const std::string &ctx) {
    std::vector<Type> out;
    for (auto v : ids) {
      const Type *t = lookup(scopes, v);
      if (!t) throw Err(ctx + name(v) + " is not defined in this scope");
      out.push_back(*t);
    }
    return out;
  }

  void block(const Block &b, std::vector<std::map<ValueId, Type>> &scopes) {
    for (const auto &s : b.stmts) stmt(s, scopes);
    types(scopes, b.yields, "yield: ");
  }

  /// Validates a region against its parameter types; returns the types it yields.
  std::vector<Type> region(const Block &r, std::vector<std::map<ValueId, Type>> &scopes, const std::vector<Type> &paramTypes,
                           const std::string &ctx, const std::string &regionName) {
    if (r.params.size() != paramTypes.size())
      throw Err(ctx + regionName + " takes " + std::to_string(r.params.size()) + " parameter(s) but gets " +
                std::to_string(paramTypes.size()) + " operand(s)");
    for (size_t i = 0; i < paramTypes.size(); ++i)
      if (r.params[i].type != paramTypes[i])
        throw Err(ctx + regionName + " parameter " + name(r.params[i].id) + " is " + typeToString(r.params[i].type) +
                  " but its operand is " + typeToString(paramTypes[i]));
    scopes.emplace_back();
    define(scopes, r.params, "region parameter");
    block(r, scopes);
    auto ys = types(scopes, r.yields, ctx + regionName + " yield: ");
    scopes.pop_back();
    return ys;
  }

  static std::string regionName(const Stmt &s, size_t i) {
    const ConstructDef *d = findConstruct(s.op);
    return d ? d->regionName(i) : "region " + std::to_string(i);
  }

  void construct(const Stmt &s, std::vector<std::map<ValueId, Type>> &scopes, const std::vector<Type> &args) {
    std::string ctx = where(s);
    std::vector<std::vector<Type>> params, yields;
    if (auto e = constructParams(s, args, params); !e.empty()) throw Err(ctx + e);
    std::vector<Type> declared;
    for (const auto &r : s.results) declared.push_back(r.type);
    for (size_t i = 0; i < s.regions.size(); ++i) {
      yields.push_back(region(s.regions[i], scopes, params[i], ctx, regionName(s, i)));
      if (constructOf(s).selector.empty()) continue;
      // Branches: each must yield exactly the declared results.
      const auto &ys = yields.back();
      if (ys.size() != declared.size())
        throw Err(ctx + regionName(s, i) + " yields " + std::to_string(ys.size()) + " value(s), expected " +
                  std::to_string(declared.size()));
      for (size_t k = 0; k < ys.size(); ++k)
        if (ys[k] != declared[k])
          throw Err(ctx + regionName(s, i) + " output " + std::to_string(k) + " is " + typeToString(ys[k]) +
                    " but must be " + typeToString(declared[k]));
    }
    std::vector<Type> results;
    if (auto e = constructResults(s, args, yields, results); !e.empty()) throw Err(ctx + e);
    if (results.size() != declared.size())
      throw Err(ctx + s.op + " gives " + std::to_string(results.size()) + " value(s) but " +
                std::to_string(declared.size()) + " are declared");
    for (size_t k = 0; k < results.size(); ++k)
      if (results[k] != declared[k])
        throw Err(ctx + "result " + std::to_string(k) + " is declared " + typeToString(declared[k]) + " but " + s.op +
                  " gives " + typeToString(results[k]));
  }

  void stmt(const Stmt &s, std::vector<std::map<ValueId, Type>> &scopes) {
    std::string ctx = where(s);
    if (s.results.empty()) throw Err("a '" + s.op + "' statement defines no value");
    auto args = types(scopes, s.args, ctx);
    if (isConstruct(s.op)) {
      construct(s, scopes, args);
    } else {
      if (!s.regions.empty()) throw Err(ctx + "op '" + s.op + "' takes no regions");
      if (s.results.size() != 1) throw Err(ctx + "op '" + s.op + "' defines exactly one value");
      Type t;
      std::string err;
      if (!inferOpType(s.op, args, s.attrs, t, err)) throw Err(ctx + err);
      if (t != s.results[0].type)
        throw Err(ctx + "result is declared " + typeToString(s.results[0].type) + " but the op gives " + typeToString(t));
    }
    define(scopes, s.results, "result");
  }
};

} // namespace

std::string validateProgram(const Program &p) { return Validator().run(p); }

/// Each input's layout must fit its physical type (called once the levels are known good).
static std::string validateLayouts(const Case &c) {
  const auto &ls = c.spec.layouts;
  size_t n = c.program.body.params.size();
  if (ls.empty()) return "";
  if (ls.size() != n)
    return "layouts has " + std::to_string(ls.size()) + " entries for " + std::to_string(n) + " inputs";
  for (size_t i = 0; i < n; ++i) {
    const Layout &l = ls[i];
    Type t = physicalInputType(c, i);
    std::string at = "layout " + layoutToString(l) + " of input " + std::to_string(i) + " (" + typeToString(t) + "): ";
    bool hasDim = l.kind == Layout::Kind::Transposed || l.kind == Layout::Kind::Expanded || l.kind == Layout::Kind::Strided;
    if (hasDim && (l.dim < 0 || l.dim >= t.rank())) return at + "dim out of range";
    if (l.kind == Layout::Kind::Transposed && l.dim == t.rank() - 1) return at + "needs a dim other than the last";
    if (l.kind == Layout::Kind::Expanded) {
      if (physicalDimLevels(c, i)[l.dim] >= 0) return at + "a batch dim may not be expanded (its examples would be copies)";
      if (t.shape[l.dim] < 1) return at + "needs a dim of size >= 1";
    }
  }
  return "";
}

std::string validateCase(const Case &c) {
  std::string e = validateProgram(c.program);
  if (!e.empty()) return e;
  const auto &ins = c.program.body.params;
  size_t nOut = c.program.body.yields.size();
  if (c.spec.levels.empty()) return "the batch spec has no vmap level";
  // Rank of each input as seen at each level, innermost last: outer levels see more dims.
  for (size_t li = 0; li < c.spec.levels.size(); ++li) {
    const auto &l = c.spec.levels[li];
    std::string at = "vmap level " + std::to_string(li) + ": ";
    if (l.size < 1) return at + "batch size must be >= 1";
    if (l.in_dims.size() != ins.size())
      return at + "in_dims has " + std::to_string(l.in_dims.size()) + " entries for " + std::to_string(ins.size()) + " inputs";
    if (l.out_dims.size() != nOut)
      return at + "out_dims has " + std::to_string(l.out_dims.size()) + " entries for " + std::to_string(nOut) + " outputs";
    if (l.chunk_size && *l.chunk_size < 1) return at + "chunk_size must be >= 1";
    const auto &rn = randomnessNames();
    if (std::find(rn.begin(), rn.end(), l.randomness) == rn.end())
      return at + "randomness must be error, different or same, got '" + l.randomness + "'";
    bool any = false;
    for (size_t i = 0; i < ins.size(); ++i) {
      if (!l.in_dims[i]) continue;
      any = true;
      int64_t rank = ins[i].type.rank() + 1;
      for (size_t inner = li + 1; inner < c.spec.levels.size(); ++inner)
        if (c.spec.levels[inner].in_dims.size() > i && c.spec.levels[inner].in_dims[i]) ++rank;
      if (!wrapDim(*l.in_dims[i], rank) || rank == 0)
        return at + "in_dims " + std::to_string(*l.in_dims[i]) + " out of range for input " + std::to_string(i);
    }
    if (!any) return at + "no input is batched";
  }
  if (auto e = validateLayouts(c); !e.empty()) return e;
  // out_dims: the inner level's output has rank r+1, each outer level adds one.
  auto outs = outputTypes(c.program);
  for (size_t o = 0; o < nOut; ++o) {
    int64_t rank = outs[o].rank();
    for (size_t li = c.spec.levels.size(); li-- > 0;) {
      ++rank;
      if (!wrapDim(c.spec.levels[li].out_dims[o], rank))
        return "vmap level " + std::to_string(li) + ": out_dims " + std::to_string(c.spec.levels[li].out_dims[o]) +
               " out of range for output " + std::to_string(o);
    }
  }
  return "";
}

} // namespace vf
