#include "harness/campaign/coverage.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "ir/constructs.h"
#include "ir/dependence.h"
#include "ir/walk.h"

namespace vf {

namespace {

bool isPrime(int64_t n) {
  if (n < 2) return false;
  for (int64_t k = 2; k * k <= n; ++k)
    if (n % k == 0) return false;
  return true;
}

/// The coverage features of a program's constructs. Which vmap levels (bit k: level k, 0
/// outermost) each value is batched at comes from the one data-flow walk (ir/dependence.h):
/// the levels that batch the inputs it is computed from.
class Walker {
public:
  Walker(const Case &c, std::set<std::string> &f) : f_(f), c_(c), deps_(valueInputs(c.program)) {
    for (size_t i = 0; i < c.program.body.params.size() && i < 64; ++i)
      for (size_t li = 0; li < c.spec.levels.size(); ++li)
        if (i < c.spec.levels[li].in_dims.size() && c.spec.levels[li].in_dims[i]) inputLevels_[i] |= 1u << li;
  }

  void block(const Block &b, std::set<ValueId> visible, int depth) {
    for (const auto &p : b.params) visible.insert(p.id);
    for (const auto &s : b.stmts) {
      if (s.regions.empty()) {
        if (s.args.size() == 2 && types_.count(s.args[0]) && types_.count(s.args[1]) &&
            types_[s.args[0]].shape != types_[s.args[1]].shape)
          f_.insert("broadcast");
      } else {
        construct(s, visible, depth);
      }
      for (const auto &d : s.results) {
        visible.insert(d.id);
        types_[d.id] = d.type;
      }
    }
  }

  void noteTypes(const Block &b) {
    for (const auto &p : b.params) types_[p.id] = p.type;
  }

private:
  std::set<std::string> &f_;
  const Case &c_;
  std::unordered_map<ValueId, uint64_t> deps_; ///< value -> the inputs it is computed from (bit i: input i)
  unsigned inputLevels_[64] = {};              ///< input -> the levels that batch it
  std::map<ValueId, Type> types_;
  int vmapsAround_ = 0; ///< the program's own vmap constructs enclosing the block walked

  /// The levels value `v` is batched at.
  unsigned mask(ValueId v) const {
    auto it = deps_.find(v);
    unsigned m = 0;
    for (size_t i = 0; it != deps_.end() && i < 64; ++i)
      if (it->second >> i & 1) m |= inputLevels_[i];
    return m;
  }

  static std::string batched(unsigned m) { return m ? "batched" : "unbatched"; }

  /// Outer values used inside `r` (captures), and whether there are any.
  void captures(const Block &r, const std::set<ValueId> &visible, std::set<ValueId> &out) {
    // A block's own values are defined before any region under it is visited.
    std::set<ValueId> own;
    forEachBlock(r, [&](const Block &rb, int) {
      for (const auto &p : rb.params) own.insert(p.id);
      for (const auto &st : rb.stmts) {
        for (auto a : st.args)
          if (!own.count(a) && visible.count(a)) out.insert(a);
        for (const auto &d : st.results) own.insert(d.id);
      }
      for (auto y : rb.yields)
        if (!own.count(y) && visible.count(y)) out.insert(y);
    });
  }

  /// True when one of a vmap's results is computed from no mapped operand (at its own level
  /// it is not batched): a value depends on a mapped parameter when an argument of the
  /// statement that makes it does, or any value its regions use.
  static bool returnsUnmapped(const Stmt &s) {
    const Block &fn = s.regions[0];
    const auto inDims = vmapInDims(s);
    std::set<ValueId> mapped;
    for (size_t i = 0; i < fn.params.size() && i < inDims.size(); ++i)
      if (inDims[i]) mapped.insert(fn.params[i].id);
    for (const auto &st : fn.stmts) {
      bool reads = std::any_of(st.args.begin(), st.args.end(), [&](ValueId a) { return mapped.count(a) > 0; });
      for (const auto &r : st.regions)
        forEachBlock(r, [&](const Block &b, int) {
          for (const auto &inner : b.stmts)
            for (auto a : inner.args) reads |= mapped.count(a) > 0;
          for (auto y : b.yields) reads |= mapped.count(y) > 0;
        });
      if (reads)
        for (const auto &d : st.results) mapped.insert(d.id);
    }
    return std::any_of(fn.yields.begin(), fn.yields.end(), [&](ValueId y) { return !mapped.count(y); });
  }

  /// A selector (a switch's index, a cond's predicate) that is a program input itself, and
  /// whether a level maps it at a dim other than its first: in_dims past a one-element
  /// predicate's own dims, or, under nested levels, an outer level's dim behind an inner one's. A
  /// level's in_dim counts the dims it sees, the per-example ones and those of inner levels;
  /// outer levels' dims come later, so in the physical order a level's dim is not first where a
  /// dim it sees precedes it. Rows "<selector feature>-input" and "...-input-at-dim>0".
  void selectorInput(ValueId selector, const std::string &feature) {
    const auto &params = c_.program.body.params;
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].id != selector) continue;
      f_.insert(feature + "-input");
      const std::vector<int> dims = physicalDimLevels(c_, i);
      for (size_t p = 0; p < dims.size(); ++p)
        for (size_t q = 0; q < p && dims[p] >= 0; ++q)
          if (dims[q] < 0 || dims[q] > dims[p]) f_.insert(feature + "-input-at-dim>0");
    }
  }

  void construct(const Stmt &s, const std::set<ValueId> &visible, int depth) {
    f_.insert(s.op);
    if (s.results.size() > 1) f_.insert(s.op + "-multi-output");
    if (depth >= 1) f_.insert("nested-construct");
    if (depth >= 1 && constructOf(s).transform) f_.insert("transform-in-region"); // vmap, grad or jvp in a branch or body
    const ConstructDef &def = constructOf(s);
    bool isCond = def.kind == ConstructKind::Cond;
    bool pythonBool = isCond && s.attrs.find("pred");
    if (def.kind == ConstructKind::Scan && scanParts(s).bufs > 0) f_.insert("scan-inplace-buffer");
    if (def.kind == ConstructKind::Vmap) {
      if (depth >= 1) f_.insert("vmap-in-branch-or-body"); // a level opened inside control flow
      for (const auto &d : vmapInDims(s))
        if (!d) f_.insert("vmap-unmapped-operand");
      if (returnsUnmapped(s)) f_.insert("vmap-output-unmapped"); // vmap expands it to its size
    }
    if (def.kind == ConstructKind::Grad || def.kind == ConstructKind::Jvp) {
      if (depth >= 1) f_.insert(s.op + "-in-branch-or-body");
      if (vmapsAround_ > 0) f_.insert(s.op + "-in-vmap"); // per-slice derivatives of the program's own vmap
      bool holds = false;
      forEachBlock(s.regions[0], [&](const Block &b, int) {
        for (const auto &st : b.stmts) holds |= !st.regions.empty();
      });
      if (holds) f_.insert(s.op + "-of-control-flow"); // torch's control-flow ops under a derivative transform
    }
    if (!def.selector.empty() && !pythonBool && !s.args.empty()) selectorInput(s.args[0], def.selectorFeature);
    if (pythonBool) f_.insert("cond-python-bool");
    else if (s.args.size() == 1 && isCond) f_.insert("cond-no-operands");
    std::set<ValueId> caps;
    for (const auto &r : s.regions) captures(r, visible, caps);
    if (!caps.empty()) f_.insert("capture");
    unsigned capMask = 0;
    for (auto v : caps) capMask |= mask(v);
    bool selects = !def.selector.empty();
    vmapsAround_ += def.kind == ConstructKind::Vmap;
    for (const auto &r : s.regions) {
      noteTypes(r);
      block(r, visible, depth + 1);
    }
    vmapsAround_ -= def.kind == ConstructKind::Vmap;
    if (selects && !pythonBool) {
      unsigned pm = mask(s.args[0]), om = capMask;
      for (size_t k = 1; k < s.args.size(); ++k) om |= mask(s.args[k]);
      f_.insert(def.selectorFeature + "=" + batched(pm));
      if (pm && (om & ~pm)) {
        // Bit k is level k, 0 outermost: a higher bit is an inner level.
        unsigned innermostPred = 0, outermostPred = 0;
        for (unsigned k = 0; k < 32; ++k)
          if (pm & (1u << k)) innermostPred = k;
        for (unsigned k = 32; k-- > 0;)
          if (pm & (1u << k)) outermostPred = k;
        for (unsigned k = 0; k < 32; ++k) {
          if (!((om & ~pm) & (1u << k))) continue;
          if (k > innermostPred) f_.insert("pattern=pred-outer/operands-inner");
          if (k < outermostPred) f_.insert("pattern=pred-inner/operands-outer");
        }
      }
    } else if (pythonBool) {
      f_.insert("pred=python-bool");
    }
    if (def.kind == ConstructKind::WhileLoop && !s.regions[0].yields.empty())
      f_.insert("while-pred=" + batched(mask(s.regions[0].yields[0]))); // what cond_fn yields, over every iteration
  }
};

void dtypes(const Block &body, std::set<std::string> &f) {
  forEachBlock(body, [&](const Block &b, int) {
    for (const auto &d : b.params) f.insert("dtype=" + std::string(dtypeName(d.type.dtype)));
    for (const auto &s : b.stmts)
      for (const auto &d : s.results) f.insert("dtype=" + std::string(dtypeName(d.type.dtype)));
  });
}

} // namespace

std::vector<std::string> featuresOf(const Case &c) {
  std::set<std::string> f;
  Walker w(c, f);
  w.noteTypes(c.program.body);
  w.block(c.program.body, {}, 0);
  dtypes(c.program.body, f);
  int depth = c.program.depth();
  if (depth >= 1) f.insert(depth >= 4 ? "depth>=4" : "depth=" + std::to_string(depth));
  size_t nLevels = c.spec.levels.size();
  f.insert("vmap-levels=" + std::to_string(nLevels));
  if (nLevels > 1) {
    bool equal = true;
    for (const auto &l : c.spec.levels) equal &= l.size == c.spec.levels[0].size;
    f.insert(equal ? "levels=equal-sizes" : "levels=unequal-sizes");
    for (size_t i = 0; i < c.program.body.params.size(); ++i) {
      size_t n = 0;
      for (const auto &l : c.spec.levels) n += i < l.in_dims.size() && l.in_dims[i].has_value();
      f.insert(n == 0 ? "input-at-no-level" : n == nLevels ? "input-at-all-levels" : "input-at-some-levels");
    }
  }
  for (const auto &l : c.spec.levels) {
    if (l.size == 1) f.insert("batch=1");
    else if (l.size == 2) f.insert("batch=2");
    else if (l.size >= 31) f.insert("batch>=31");
    else if (isPrime(l.size)) f.insert("batch=prime>2");
    if (l.chunk_size) f.insert(l.size % *l.chunk_size == 0 ? "chunk=divides" : "chunk=not-dividing");
    if (l.randomness != "error") f.insert("randomness=" + l.randomness);
    for (const auto &d : l.in_dims) f.insert(!d ? "in_dims=None" : *d < 0 ? "in_dims<0" : *d > 0 ? "in_dims>0" : "in_dims=0");
    for (auto d : l.out_dims) f.insert(d < 0 ? "out_dims<0" : d > 0 ? "out_dims>0" : "out_dims=0");
  }
  for (const auto &l : c.spec.layouts)
    if (l.kind != Layout::Kind::Contiguous) f.insert("layout=" + std::string(layoutKindName(l.kind)));
  for (const auto &p : c.program.body.params) {
    if (p.type.rank() == 0) f.insert("0-d input");
    for (auto d : p.type.shape) {
      if (d == 0) f.insert("size-0 dim");
      if (d == 1) f.insert("size-1 dim");
    }
  }
  return {f.begin(), f.end()};
}

const std::vector<std::string> &Coverage::rows() {
  static const std::vector<std::string> r = [] {
    // constructs and how they are used: the registry's
    std::vector<std::string> rows;
    for (const auto &d : constructRegistry()) {
      rows.insert(rows.end(), {d.name, d.name + "-multi-output"});
      rows.insert(rows.end(), d.coverageRows.begin(), d.coverageRows.end());
    }
    const std::vector<std::string> rest = {
      "nested-construct", "transform-in-region", "capture",
      // nesting depth of regions
      "depth=1", "depth=2", "depth=3", "depth>=4",
      // predicates, indices and loop conditions, batched or not
      "pred=batched", "pred=unbatched", "pred=python-bool", "switch-index=batched", "switch-index=unbatched",
      "while-pred=batched", "while-pred=unbatched",
      // vmap levels and which levels batch what
      "vmap-levels=1", "vmap-levels=2", "vmap-levels=3", "levels=equal-sizes", "levels=unequal-sizes",
      "input-at-all-levels", "input-at-some-levels", "input-at-no-level", "pattern=pred-outer/operands-inner",
      "pattern=pred-inner/operands-outer",
      // batch sizes, chunking, randomness
      "batch=1", "batch=2", "batch=prime>2", "batch>=31", "chunk=divides", "chunk=not-dividing",
      "randomness=different", "randomness=same",
      // in_dims and out_dims kinds
      "in_dims=None", "in_dims=0", "in_dims>0", "in_dims<0", "out_dims=0", "out_dims>0", "out_dims<0",
      // dtypes of values, layouts and shapes of inputs
      "dtype=f32", "dtype=f64", "dtype=f16", "dtype=bf16", "dtype=i64", "dtype=i32", "dtype=bool",
      "layout=transposed", "layout=expanded", "layout=strided", "layout=offset", "0-d input", "size-0 dim",
      "size-1 dim", "broadcast"};
    rows.insert(rows.end(), rest.begin(), rest.end());
    return rows;
  }();
  return r;
}

void Coverage::add(const Case &c) {
  for (const auto &f : featuresOf(c)) counts_[f]++;
}

std::string Coverage::brief() const {
  // Each construct under its knob's name, then a few features of the batch spec.
  static const std::vector<std::pair<std::string, std::string>> shown = [] {
    std::vector<std::pair<std::string, std::string>> s;
    for (const auto &d : constructRegistry()) s.emplace_back(d.name, d.knob);
    s.insert(s.end(), {{"nested-construct", "nested"}, {"capture", "capture"}, {"vmap-levels=2", "vmap2"}, {"vmap-levels=3", "vmap3"},
                       {"in_dims<0", "neg-dim"}, {"in_dims=None", "none-dim"}, {"chunk=not-dividing", "chunk-nd"}, {"pred=batched", "bpred"}});
    return s;
  }();
  std::string s;
  for (const auto &[k, label] : shown) {
    auto it = counts_.find(k);
    s += (s.empty() ? "" : " ") + label + ":" + std::to_string(it == counts_.end() ? 0 : it->second);
  }
  return s;
}

} // namespace vf
