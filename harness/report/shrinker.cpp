#include "harness/report/shrinker.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "ir/constructs.h"
#include "ir/op_registry.h"
#include "ir/validate.h"
#include "ir/walk.h"

namespace vf {

namespace {

// ---- helpers over the program tree -----------------------------------------------------------

void countUses(const Block &body, std::map<ValueId, int> &uses) {
  forEachBlock(body, [&](const Block &b, int) {
    for (const auto &s : b.stmts)
      for (auto a : s.args) uses[a]++;
    for (auto y : b.yields) uses[y]++;
  });
}

/// Every block of the program, outermost first, with the values visible at its start.
struct BlockRef {
  Block *block;
  std::vector<Def> visibleAtStart;
};

void collectBlocks(Block &b, std::vector<Def> visible, std::vector<BlockRef> &out) {
  visible.insert(visible.end(), b.params.begin(), b.params.end());
  out.push_back({&b, visible});
  for (auto &s : b.stmts) {
    for (auto &r : s.regions) collectBlocks(r, visible, out);
    visible.insert(visible.end(), s.results.begin(), s.results.end());
  }
}

/// Candidates are made on copies; `edit` gets the copy's i-th block.
template <class Edit> std::vector<Case> perBlock(const Case &c, Edit edit) {
  std::vector<Case> out;
  Case probe = c;
  std::vector<BlockRef> blocks;
  collectBlocks(probe.program.body, {}, blocks);
  for (size_t bi = 0; bi < blocks.size(); ++bi) {
    size_t n = blocks[bi].block->stmts.size();
    for (size_t si = 0; si < n; ++si) {
      Case cand = c;
      std::vector<BlockRef> cb;
      collectBlocks(cand.program.body, {}, cb);
      if (edit(cand, *cb[bi].block, si, cb[bi].visibleAtStart)) out.push_back(std::move(cand));
    }
  }
  return out;
}

/// perBlock once per variant `which` in [0, n): `edit` also gets the variant (the region, the
/// operand or the argnum a pass changes), candidates of variant 0 first.
template <class Edit> std::vector<Case> perBlockVariants(const Case &c, size_t n, Edit edit) {
  std::vector<Case> out;
  for (size_t which = 0; which < n; ++which) {
    auto more = perBlock(c, [&](Case &cand, Block &b, size_t si, const std::vector<Def> &vis) { return edit(cand, b, si, vis, which); });
    out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  return out;
}

// ---- passes: each returns candidates, biggest cuts first -------------------------------------

/// Removes every statement whose results nobody uses.
std::vector<Case> dropDeadCode(const Case &c) {
  Case cand = c;
  bool changed = true, any = false;
  while (changed) {
    changed = false;
    std::map<ValueId, int> uses;
    countUses(cand.program.body, uses);
    // A block is swept before the regions of the statements it keeps.
    forEachBlock(cand.program.body, [&](Block &b, int) {
      auto dead = [&](const Stmt &s) {
        return std::none_of(s.results.begin(), s.results.end(), [&](const Def &d) { return uses[d.id] > 0; });
      };
      size_t before = b.stmts.size();
      b.stmts.erase(std::remove_if(b.stmts.begin(), b.stmts.end(), dead), b.stmts.end());
      changed |= b.stmts.size() != before;
    });
    any |= changed;
  }
  if (!any) return {};
  return {cand};
}

/// Replaces a construct by one of its regions, inlined: parameters become the operands and
/// the construct's results become the region's yields.
std::vector<Case> inlineRegions(const Case &c) {
  return perBlockVariants(c, 8, [](Case &, Block &b, size_t si, const std::vector<Def> &, size_t which) {
    Stmt s = b.stmts[si];
    // Only a branch can stand in for its construct; a loop body or combine_fn cannot.
    if (s.regions.empty() || constructOf(s).selector.empty() || s.regions.size() <= which) return false;
    const Block r = inlinedRegion(s, which);
    std::map<ValueId, ValueId> res;
    for (size_t i = 0; i < s.results.size(); ++i) res[s.results[i].id] = r.yields[i];
    b.stmts.erase(b.stmts.begin() + si);
    b.stmts.insert(b.stmts.begin() + si, r.stmts.begin(), r.stmts.end());
    replaceUses(b, res);
    return true;
  });
}

/// Replaces a vmap by its function run on slice 0 of its mapped operands, each result that is
/// read expanded back to the mapped size at its out_dim: the case without the transform, where
/// every slice sees what the first one computes.
std::vector<Case> dropVmaps(const Case &c) {
  return perBlock(c, [](Case &cand, Block &b, size_t si, const std::vector<Def> &) {
    const Stmt s = b.stmts[si];
    if (s.regions.empty() || constructOf(s).kind != ConstructKind::Vmap) return false;
    const auto inDims = vmapInDims(s);
    const IntList outDims = s.attrs.getInts("out_dims");
    const Block &fn = s.regions[0];
    ValueId next = cand.program.nextId();
    Block inlined; // the selects, the function's statements, the expands (which read its yields)
    std::map<ValueId, ValueId> slices, results;
    for (size_t i = 0; i < fn.params.size() && i < inDims.size(); ++i) {
      if (!inDims[i]) {
        slices[fn.params[i].id] = s.args[i];
        continue;
      }
      Attrs at;
      at.set("dim", *wrapDim(*inDims[i], fn.params[i].type.rank() + 1));
      at.set("index", int64_t{0});
      inlined.stmts.push_back(Stmt{"select", {s.args[i]}, at, {}, {Def{next, fn.params[i].type}}});
      slices[fn.params[i].id] = next++;
    }
    inlined.stmts.insert(inlined.stmts.end(), fn.stmts.begin(), fn.stmts.end());
    std::map<ValueId, int> uses;
    countUses(cand.program.body, uses);
    for (size_t k = 0; k < s.results.size() && k < fn.yields.size() && k < outDims.size(); ++k) {
      if (!uses[s.results[k].id]) continue; // nothing reads it: no stand-in
      const Type &t = s.results[k].type;
      const int64_t o = *wrapDim(outDims[k], t.rank());
      Type front = t; // the result with its mapped dim first
      front.shape.erase(front.shape.begin() + o);
      front.shape.insert(front.shape.begin(), t.shape[o]);
      Attrs count;
      count.set("count", t.shape[o]);
      inlined.stmts.push_back(Stmt{"expand", {fn.yields[k]}, count, {}, {Def{next, front}}});
      results[s.results[k].id] = next++;
      if (o == 0) continue;
      Attrs mv;
      mv.set("dim", int64_t{0});
      mv.set("to", o);
      inlined.stmts.push_back(Stmt{"movedim", {next - 1}, mv, {}, {Def{next, t}}});
      results[s.results[k].id] = next++;
    }
    replaceUses(inlined, slices);
    b.stmts.erase(b.stmts.begin() + si);
    b.stmts.insert(b.stmts.begin() + si, inlined.stmts.begin(), inlined.stmts.end());
    replaceUses(b, results);
    return true;
  });
}

/// Passes one of a vmap's mapped operands whole (its in_dim None) where another stays mapped:
/// its function then sees the whole operand, and the types that follow are re-inferred.
std::vector<Case> unmapVmapOperands(const Case &c) {
  return perBlockVariants(c, 3, [](Case &cand, Block &b, size_t si, const std::vector<Def> &, size_t which) {
    Stmt &s = b.stmts[si];
    if (s.regions.empty() || constructOf(s).kind != ConstructKind::Vmap) return false;
    IntList in = s.attrs.getInts("in_dims");
    if (which >= in.size() || in[which] == kNoneDim || std::count(in.begin(), in.end(), kNoneDim) + 2 > static_cast<std::ptrdiff_t>(in.size()))
      return false;
    in[which] = kNoneDim;
    s.attrs.set("in_dims", in);
    return reinferTypes(cand.program);
  });
}

/// Differentiates a grad with respect to one operand fewer: each use of that gradient reads the
/// operand itself instead (of the same type).
std::vector<Case> dropArgnums(const Case &c) {
  return perBlockVariants(c, 3, [](Case &cand, Block &b, size_t si, const std::vector<Def> &, size_t which) {
    Stmt &s = b.stmts[si];
    if (s.regions.empty() || constructOf(s).kind != ConstructKind::Grad || s.results.size() < 2 || which >= s.results.size()) return false;
    IntList argnums = s.attrs.getInts("argnums");
    const std::map<ValueId, ValueId> m = {{s.results[which].id, s.args[static_cast<size_t>(argnums[which])]}};
    argnums.erase(argnums.begin() + static_cast<std::ptrdiff_t>(which));
    s.attrs.set("argnums", argnums);
    s.results.erase(s.results.begin() + static_cast<std::ptrdiff_t>(which));
    replaceUses(cand.program.body, m);
    return true;
  });
}

/// The values `s` reads (its arguments and what the statements of its regions read) that are
/// not defined inside it.
std::set<ValueId> freeValues(const Stmt &s) {
  std::set<ValueId> used(s.args.begin(), s.args.end()), defined;
  for (const auto &r : s.regions)
    forEachBlock(r, [&](const Block &b, int) {
      for (const auto &d : b.params) defined.insert(d.id);
      for (const auto &t : b.stmts) {
        used.insert(t.args.begin(), t.args.end());
        for (const auto &d : t.results) defined.insert(d.id);
      }
      used.insert(b.yields.begin(), b.yields.end());
    });
  for (auto d : defined) used.erase(d);
  return used;
}

/// Moves statement `j` of region `k` of `b.stmts[si]` out, to just before that construct, with
/// the statements of the region it reads from; a region parameter it reads becomes the operand
/// passed to it (the same value in a branch or a grad, the first value in a loop body).
bool hoistOut(Block &b, size_t si, size_t k, size_t j) {
  Block &r = b.stmts[si].regions[k];
  if (r.params.size() > b.stmts[si].args.size()) return false; // a scan's slices: no operand stands for them
  std::set<ValueId> needed = freeValues(r.stmts[j]);
  std::vector<bool> moved(r.stmts.size(), false);
  moved[j] = true;
  for (size_t i = j; i-- > 0;) {
    const auto &res = r.stmts[i].results;
    if (std::none_of(res.begin(), res.end(), [&](const Def &d) { return needed.count(d.id) > 0; })) continue;
    moved[i] = true;
    const auto more = freeValues(r.stmts[i]);
    needed.insert(more.begin(), more.end());
  }
  const Block inlined = inlinedRegion(b.stmts[si], k); // its statements reading the operands for the parameters
  std::vector<Stmt> out, kept;
  for (size_t i = 0; i < moved.size(); ++i) {
    if (moved[i]) out.push_back(inlined.stmts[i]);
    else kept.push_back(std::move(r.stmts[i]));
  }
  r.stmts = std::move(kept);
  b.stmts.insert(b.stmts.begin() + static_cast<std::ptrdiff_t>(si), out.begin(), out.end());
  return true;
}

/// Moves a construct (a transform, a branch, a loop) out of the region that holds it, with what
/// it reads of that region: the case without the nesting, where the repro shows whether the bug
/// needs the construct inside control flow.
std::vector<Case> hoistConstructs(const Case &c) {
  return perBlockVariants(c, 4, [](Case &, Block &b, size_t si, const std::vector<Def> &, size_t which) {
    const Stmt &s = b.stmts[si];
    size_t seen = 0;
    for (size_t k = 0; k < s.regions.size(); ++k)
      for (size_t j = 0; j < s.regions[k].stmts.size(); ++j)
        if (!s.regions[k].stmts[j].regions.empty() && seen++ == which) return hoistOut(b, si, k, j);
    return false;
  });
}

/// Replaces a while_loop by its initial carries (as if it ran zero times).
std::vector<Case> dropLoops(const Case &c) {
  return perBlock(c, [](Case &cand, Block &b, size_t si, const std::vector<Def> &) {
    const Stmt &s = b.stmts[si];
    if (s.regions.empty() || constructOf(s).kind != ConstructKind::WhileLoop) return false;
    std::map<ValueId, ValueId> m;
    for (size_t i = 0; i < s.results.size(); ++i) m[s.results[i].id] = s.args[i];
    b.stmts.erase(b.stmts.begin() + si);
    replaceUses(cand.program.body, m);
    return true;
  });
}

/// Drops an in-place buffer of a scan (the first or the second): its argument, parameter, update
/// and yield, and each use of its final value reads its initial value instead.
std::vector<Case> dropBuffers(const Case &c) {
  std::vector<Case> out;
  for (size_t j = 0; j < 2; ++j) {
    auto more = perBlock(c, [j](Case &cand, Block &b, size_t si, const std::vector<Def> &) {
      Stmt &s = b.stmts[si];
      if (s.regions.empty() || constructOf(s).kind != ConstructKind::Scan) return false;
      const ScanParts p = scanParts(s);
      if (j >= p.bufs) return false;
      const size_t ai = p.carries + p.xs + j;
      Block &r = s.regions[0];
      const ValueId init = s.args[ai], param = r.params.at(ai).id, result = s.results[s.results.size() - p.bufs + j].id;
      s.args.erase(s.args.begin() + static_cast<std::ptrdiff_t>(ai));
      r.params.erase(r.params.begin() + static_cast<std::ptrdiff_t>(ai));
      r.yields.erase(r.yields.end() - static_cast<std::ptrdiff_t>(p.bufs - j));
      s.results.erase(s.results.end() - static_cast<std::ptrdiff_t>(p.bufs - j));
      std::erase_if(r.stmts, [&](const Stmt &t) { return !t.args.empty() && t.args[0] == param && findOp(t.op) && findOp(t.op)->inplace; });
      std::erase_if(s.attrs.items, [](const auto &kv) { return kv.first == "nbuf"; });
      if (p.bufs > 1) s.attrs.set("nbuf", static_cast<int64_t>(p.bufs - 1));
      replaceUses(cand.program.body, {{result, init}});
      return true;
    });
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

/// Drops one statement, re-routing each use of its results to an earlier value of the same type.
std::vector<Case> dropStatements(const Case &c) {
  return perBlock(c, [](Case &cand, Block &b, size_t si, const std::vector<Def> &visibleAtStart) {
    std::vector<Def> visible = visibleAtStart;
    for (size_t k = 0; k < si; ++k) visible.insert(visible.end(), b.stmts[k].results.begin(), b.stmts[k].results.end());
    std::map<ValueId, ValueId> m;
    for (const auto &r : b.stmts[si].results) {
      auto it = std::find_if(visible.begin(), visible.end(), [&](const Def &d) { return d.type == r.type; });
      if (it == visible.end()) return false;
      m[r.id] = it->id;
    }
    b.stmts.erase(b.stmts.begin() + si);
    replaceUses(cand.program.body, m);
    return true;
  });
}

/// Drops a program output (and its out_dims), or a construct result that nobody uses.
std::vector<Case> dropOutputs(const Case &c) {
  std::vector<Case> out;
  size_t n = c.program.body.yields.size();
  for (size_t i = 0; n > 1 && i < n; ++i) {
    Case cand = c;
    cand.program.body.yields.erase(cand.program.body.yields.begin() + i);
    for (auto &l : cand.spec.levels) l.out_dims.erase(l.out_dims.begin() + i);
    out.push_back(std::move(cand));
  }
  std::map<ValueId, int> uses;
  countUses(c.program.body, uses);
  auto more = perBlock(c, [&](Case &, Block &b, size_t si, const std::vector<Def> &) {
    Stmt &s = b.stmts[si];
    if (s.regions.empty() || constructOf(s).selector.empty() || s.results.size() < 2) return false;
    for (size_t i = 0; i < s.results.size(); ++i)
      if (uses[s.results[i].id] == 0) {
        s.results.erase(s.results.begin() + i);
        for (auto &r : s.regions) r.yields.erase(r.yields.begin() + i);
        return true;
      }
    return false;
  });
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

/// Drops a program input nobody uses, with its in_dims.
std::vector<Case> dropInputs(const Case &c) {
  std::vector<Case> out;
  std::map<ValueId, int> uses;
  countUses(c.program.body, uses);
  for (size_t i = 0; i < c.program.body.params.size(); ++i) {
    if (uses[c.program.body.params[i].id] > 0 || c.program.body.params.size() == 1) continue;
    Case cand = c;
    cand.program.body.params.erase(cand.program.body.params.begin() + i);
    for (auto &l : cand.spec.levels) l.in_dims.erase(l.in_dims.begin() + i);
    if (!cand.spec.layouts.empty()) cand.spec.layouts.erase(cand.spec.layouts.begin() + i);
    out.push_back(std::move(cand));
  }
  return out;
}

/// Simplifies the batch spec: one level fewer, smaller batches, no chunking, in_dims and
/// out_dims to 0 or None, contiguous inputs, the default randomness.
std::vector<Case> shrinkSpec(const Case &c) {
  std::vector<Case> out;
  const auto &levels = c.spec.levels;
  if (!c.spec.layouts.empty()) {
    Case all = c;
    all.spec.layouts.clear();
    out.push_back(std::move(all));
    for (size_t i = 0; i < c.spec.layouts.size(); ++i)
      if (c.spec.layouts[i].kind != Layout::Kind::Contiguous) {
        Case one = c;
        one.spec.layouts[i] = Layout{};
        out.push_back(std::move(one));
      }
  }
  for (size_t li = 0; li < levels.size(); ++li)
    if (levels[li].randomness != "error") {
      Case cand = c;
      cand.spec.levels[li].randomness = "error";
      out.push_back(std::move(cand));
    }
  for (size_t li = 0; levels.size() > 1 && li < levels.size(); ++li) {
    Case cand = c;
    cand.spec.levels.erase(cand.spec.levels.begin() + li);
    out.push_back(std::move(cand));
  }
  for (size_t li = 0; li < levels.size(); ++li) {
    for (int64_t size : {int64_t{1}, int64_t{2}}) {
      if (levels[li].size <= size) continue;
      Case cand = c;
      cand.spec.levels[li].size = size;
      if (cand.spec.levels[li].chunk_size && *cand.spec.levels[li].chunk_size > size) cand.spec.levels[li].chunk_size = size;
      out.push_back(std::move(cand));
    }
    if (levels[li].chunk_size) {
      Case cand = c;
      cand.spec.levels[li].chunk_size.reset();
      out.push_back(std::move(cand));
    }
    for (size_t i = 0; i < levels[li].in_dims.size(); ++i) {
      if (levels[li].in_dims[i]) {
        Case none = c;
        none.spec.levels[li].in_dims[i].reset();
        out.push_back(std::move(none));
        if (*levels[li].in_dims[i] != 0) {
          Case zero = c;
          zero.spec.levels[li].in_dims[i] = 0;
          out.push_back(std::move(zero));
        }
      }
    }
    for (size_t o = 0; o < levels[li].out_dims.size(); ++o)
      if (levels[li].out_dims[o] != 0) {
        Case cand = c;
        cand.spec.levels[li].out_dims[o] = 0;
        out.push_back(std::move(cand));
      }
  }
  return out;
}

/// Shrinks input shapes: a dim to 1, or away; statement types follow.
std::vector<Case> shrinkShapes(const Case &c) {
  std::vector<Case> out;
  for (size_t i = 0; i < c.program.body.params.size(); ++i) {
    const Shape &s = c.program.body.params[i].type.shape;
    for (size_t d = 0; d < s.size(); ++d) {
      for (int variant = 0; variant < 2; ++variant) {
        if (variant == 0 && s[d] <= 1) continue;
        Case cand = c;
        Shape &cs = cand.program.body.params[i].type.shape;
        if (variant == 0) cs[d] = 1;
        else cs.erase(cs.begin() + d);
        if (reinferTypes(cand.program)) out.push_back(std::move(cand));
      }
    }
  }
  return out;
}

/// Simplifies attributes: scalars to 0 or 1, flags to false, dims to 0.
std::vector<Case> simplifyAttrs(const Case &c) {
  std::vector<Case> out;
  for (int variant = 0; variant < 3; ++variant) {
    auto more = perBlock(c, [&](Case &cand, Block &b, size_t si, const std::vector<Def> &) {
      Stmt &s = b.stmts[si];
      for (auto &[name, a] : s.attrs.items) {
        Attr simpler = a;
        if (auto *d = std::get_if<double>(&a)) {
          if (variant == 2) continue;
          double want = variant == 0 ? 0.0 : 1.0;
          if (*d == want || (variant == 1 && *d == 0.0)) continue;
          simpler = want;
        } else if (auto *f = std::get_if<bool>(&a)) {
          if (variant != 0 || !*f) continue;
          simpler = false;
        } else if (auto *i = std::get_if<int64_t>(&a)) {
          if (variant != 0 || *i == 0) continue;
          simpler = int64_t{0};
        } else {
          continue;
        }
        a = simpler;
        return reinferTypes(cand.program);
      }
      return false;
    });
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

/// How far an attribute is from its simplest value; part of a case's weight.
int64_t attrWeight(const Block &b) {
  int64_t w = 0;
  forEachStmt(b, [&](const Stmt &s, int) {
    for (const auto &[name, a] : s.attrs.items) {
      if (auto *d = std::get_if<double>(&a)) w += *d == 0.0 ? 0 : *d == 1.0 ? 1 : 2;
      else if (auto *f = std::get_if<bool>(&a)) w += *f ? 1 : 0;
      else if (auto *i = std::get_if<int64_t>(&a)) w += *i == 0 ? 0 : 1;
      else if (auto *l = std::get_if<IntList>(&a)) w += std::count_if(l->begin(), l->end(), [](int64_t d) { return d != kNoneDim; }); // argnums; a vmap's dims (None simplest)
    }
  });
  return w;
}

} // namespace

bool reinferTypes(Program &p) {
  std::map<ValueId, Type> types;
  std::function<bool(Block &)> block = [&](Block &b) {
    for (auto &d : b.params) types[d.id] = d.type;
    for (auto &s : b.stmts) {
      std::vector<Type> args;
      for (auto a : s.args) {
        auto it = types.find(a);
        if (it == types.end()) return false;
        args.push_back(it->second);
      }
      if (s.regions.empty()) {
        Type t;
        std::string err;
        if (!inferOpType(s.op, args, s.attrs, t, err)) return false;
        s.results[0].type = t;
      } else {
        std::vector<std::vector<Type>> params, yields;
        if (!constructParams(s, args, params).empty()) return false;
        for (size_t k = 0; k < s.regions.size(); ++k) {
          auto &r = s.regions[k];
          if (r.params.size() != params[k].size()) return false;
          for (size_t i = 0; i < r.params.size(); ++i) r.params[i].type = params[k][i];
          if (!block(r)) return false;
          std::vector<Type> ys;
          for (auto y : r.yields) ys.push_back(types[y]);
          yields.push_back(ys);
        }
        std::vector<Type> results;
        if (!constructResults(s, args, yields, results).empty() || results.size() != s.results.size()) return false;
        for (size_t i = 0; i < s.results.size(); ++i) s.results[i].type = results[i];
      }
      for (auto &d : s.results) types[d.id] = d.type;
    }
    return true;
  };
  return block(p.body);
}

int64_t shrinkSize(const Program &p) {
  int64_t n = 0;
  forEachStmt(p.body, [&](const Stmt &s, int) { n += s.regions.empty() ? 1 : 4; });
  return n;
}

int64_t caseWeight(const Case &c) {
  int64_t w = shrinkSize(c.program) * 1000000;
  w += static_cast<int64_t>(c.program.body.yields.size() + c.program.body.params.size()) * 10000;
  for (const auto &l : c.spec.levels) {
    w += 1000 + l.size * 10 + (l.chunk_size ? 5 : 0) + (l.randomness != "error" ? 5 : 0);
    for (const auto &d : l.in_dims) w += d ? (*d == 0 ? 1 : 2) : 0;
    for (auto d : l.out_dims) w += d == 0 ? 0 : 1;
  }
  for (const auto &p : c.program.body.params) w += (p.type.numel() + p.type.rank()) * 10;
  for (const auto &l : c.spec.layouts) w += l.kind != Layout::Kind::Contiguous ? 5 : 0;
  forEachStmt(c.program.body, [&](const Stmt &, int depth) { w += depth * 100; }); // the nesting a hoist removes
  return w + attrWeight(c.program.body);
}

Case shrinkCase(const Case &start, const StillFails &fails, ShrinkStats *stats, int maxAttempts) {
  using Pass = std::vector<Case> (*)(const Case &);
  static const Pass passes[] = {dropDeadCode, inlineRegions, hoistConstructs, dropVmaps, unmapVmapOperands, dropArgnums, dropLoops, dropBuffers, dropStatements, dropOutputs, dropInputs, shrinkSpec, shrinkShapes,
                                 simplifyAttrs};
  ShrinkStats local;
  ShrinkStats &st = stats ? *stats : local;
  Case cur = start;
  // Each pass is applied until none of its candidates still fails, then the next pass; rounds
  // over the pass list repeat until a whole round changes nothing, so the result is 1-minimal
  // under every pass. After a success a pass goes on from the candidate that succeeded: the
  // ones before it failed to reproduce on the bigger case, and are tried again last (a rotation,
  // not a skip) rather than first. This avoids re-running the failed candidates of every
  // earlier pass after each accepted step.
  bool progress = true;
  while (progress && st.attempts < maxAttempts) {
    progress = false;
    for (Pass pass : passes) {
      size_t from = 0;
      for (bool accepted = true; accepted && st.attempts < maxAttempts;) {
        accepted = false;
        std::vector<Case> cands = pass(cur);
        const int64_t curWeight = caseWeight(cur);
        for (size_t k = 0; k < cands.size(); ++k) {
          size_t i = (from + k) % cands.size();
          Case &cand = cands[i];
          if (caseWeight(cand) >= curWeight || !validateCase(cand).empty()) continue;
          if (st.attempts >= maxAttempts) break;
          ++st.attempts;
          if (!fails(cand)) continue;
          ++st.accepted;
          cur = std::move(cand);
          accepted = progress = true;
          from = i;
          break;
        }
      }
    }
  }
  return cur;
}

} // namespace vf
