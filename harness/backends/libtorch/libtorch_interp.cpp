#include "harness/backends/libtorch/libtorch_interp.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "ir/scalar_type.h"
#include "harness/backends/libtorch/libtorch_vmap.h"
#include "ir/constructs.h"
#include "ir/op_registry.h"
#include "ir/scan_outputs.h"

namespace vf {

LoweringFault parseLoweringFault(const std::string &name, bool &ok) {
  ok = true;
  if (name.empty()) return LoweringFault::None;
  if (name == "flip-select") return LoweringFault::FlipSelect;
  if (name == "no-while-mask") return LoweringFault::NoWhileMask;
  ok = false;
  return LoweringFault::None;
}

namespace {


using Tensors = std::vector<at::Tensor>;

/// The examples a region runs for: undefined = all of them, else a (batched) 0-d bool.
at::Tensor both(const at::Tensor &mask, const at::Tensor &p) { return mask.defined() ? at::logical_and(mask, p) : p; }

class BatchedInterp {
public:
  explicit BatchedInterp(LoweringFault fault) : fault_(fault) {}

  Tensors block(const Block &b, const Tensors &params, const at::Tensor &mask) {
    for (size_t i = 0; i < b.params.size(); ++i) env_[b.params[i].id] = params.at(i);
    for (const auto &s : b.stmts) stmt(s, mask);
    Tensors out;
    for (auto y : b.yields) out.push_back(env_.at(y));
    return out;
  }

private:
  LoweringFault fault_;
  std::unordered_map<ValueId, at::Tensor> env_;

  at::Tensor select(const at::Tensor &p, const at::Tensor &t, const at::Tensor &f) const {
    return fault_ == LoweringFault::FlipSelect ? at::where(p, f, t) : at::where(p, t, f);
  }

  void stmt(const Stmt &s, const at::Tensor &mask) {
    Tensors a;
    for (auto v : s.args) a.push_back(env_.at(v));
    Tensors res;
    if (s.regions.empty()) {
      EvalCtx ctx;
      ctx.measureMargins = false;
      res.push_back(findOp(s.op)->eval(a, s.attrs, ctx));
    } else {
      switch (constructOf(s).kind) {
      case ConstructKind::Cond: res = cond(s, a, mask); break;
      case ConstructKind::Switch: res = switchStmt(s, a, mask); break;
      case ConstructKind::WhileLoop: res = whileLoop(s, a, mask); break;
      case ConstructKind::Scan:
        // An in-place buffer is a carry in value terms (ir/scan_outputs.h): lowered as one.
        if (scanParts(s).bufs > 0) {
          const Stmt c = buffersAsCarries(s);
          Tensors ca;
          for (auto v : c.args) ca.push_back(env_.at(v));
          res = buffersBackToEnd(s, scan(c, ca, mask));
        } else {
          res = scan(s, a, mask);
        }
        break;
      case ConstructKind::Vmap: // a transform opened inside the program: not lowered here (the runner says unsupported)
      case ConstructKind::Grad:
      case ConstructKind::Jvp:
        throw std::runtime_error("torch." + std::string(s.op == "vmap" ? s.op : "func." + s.op) +
                                 " inside the program is not implemented in the libtorch backend's vmap lowering");
      }
    }
    for (size_t i = 0; i < s.results.size(); ++i) {
      at::Tensor t = res.at(i);
      auto want = toScalarType(s.results[i].type.dtype);
      if (t.scalar_type() != want) t = t.to(want);
      env_[s.results[i].id] = t;
    }
  }

  Tensors cond(const Stmt &s, const Tensors &a, const at::Tensor &mask) {
    if (s.attrs.find("pred")) return block(s.regions[s.attrs.getBool("pred") ? 0 : 1], a, mask);
    Tensors operands(a.begin() + 1, a.end());
    if (!isBatched(a[0])) return block(s.regions[a[0].item<bool>() ? 0 : 1], operands, mask);
    at::Tensor p = a[0].reshape({});
    Tensors t = block(s.regions[0], operands, both(mask, p));
    Tensors f = block(s.regions[1], operands, both(mask, at::logical_not(p)));
    Tensors out;
    for (size_t i = 0; i < t.size(); ++i) out.push_back(select(p, t[i], f[i]));
    return out;
  }

  Tensors switchStmt(const Stmt &s, const Tensors &a, const at::Tensor &mask) {
    int64_t n = static_cast<int64_t>(s.regions.size());
    Tensors operands(a.begin() + 1, a.end());
    if (!isBatched(a[0])) return block(s.regions[std::clamp<int64_t>(a[0].item<int64_t>(), 0, n - 1)], operands, mask);
    at::Tensor idx = at::clamp(a[0].reshape({}), 0, n - 1);
    std::vector<at::Tensor> taken;
    std::vector<Tensors> outs;
    for (int64_t k = 0; k < n; ++k) {
      taken.push_back(at::eq(idx, k));
      outs.push_back(block(s.regions[k], operands, both(mask, taken.back())));
    }
    Tensors res = outs.back();
    for (int64_t k = n - 2; k >= 0; --k)
      for (size_t i = 0; i < res.size(); ++i) res[i] = select(taken[k], outs[k][i], res[i]);
    return res;
  }

  Tensors whileLoop(const Stmt &s, const Tensors &a, const at::Tensor &mask) {
    Tensors carries = a;
    bool lanewise = mask.defined();
    for (int iter = 0;; ++iter) {
      at::Tensor c = block(s.regions[0], carries, mask)[0];
      if (!lanewise && !isBatched(c)) {
        if (!c.item<bool>()) break;
        if (iter >= kMaxIterations) throw std::runtime_error("while_loop ran more than " + std::to_string(kMaxIterations) + " iterations");
        carries = block(s.regions[1], carries, mask);
        continue;
      }
      // Batched: run while any example is active; finished examples keep their carries.
      lanewise = true;
      at::Tensor active = both(mask, c.reshape({}));
      if (!anyLane(active)) break;
      if (iter >= kMaxIterations) throw std::runtime_error("while_loop ran more than " + std::to_string(kMaxIterations) + " iterations for some example");
      Tensors next = block(s.regions[1], carries, active);
      for (size_t i = 0; i < carries.size(); ++i)
        carries[i] = fault_ == LoweringFault::NoWhileMask ? next[i] : at::where(active, next[i], carries[i]);
    }
    return carries;
  }

  Tensors scan(const Stmt &s, const Tensors &a, const at::Tensor &mask) {
    size_t k = static_cast<size_t>(s.attrs.getInt("ncarry"));
    bool reverse = s.attrs.getBool("reverse");
    int64_t len = a[k].size(0);
    auto stepInputs = [&](const Tensors &carry, int64_t step) {
      int64_t t = reverse ? len - 1 - step : step;
      Tensors in = carry;
      for (size_t x = k; x < a.size(); ++x) in.push_back(a[x].select(0, t));
      return in;
    };
    // Batched-ness fixpoint of the carries: monotone over a finite lattice (carries x levels).
    std::vector<uint64_t> levels(k);
    for (size_t i = 0; i < k; ++i) levels[i] = batchedLevels(a[i]);
    auto force = [&](const Tensors &carry) {
      Tensors out;
      for (size_t i = 0; i < k; ++i) out.push_back(forceBatchedAt(carry[i], levels[i]));
      return out;
    };
    if (len > 0) {
      bool changed = true;
      for (size_t round = 0; changed; ++round) {
        TORCH_INTERNAL_ASSERT(round <= k * 64, "scan carries did not reach a batched-ness fixpoint");
        Tensors out = block(s.regions[0], stepInputs(force({a.begin(), a.begin() + k}), 0), mask);
        changed = false;
        for (size_t i = 0; i < k; ++i) {
          uint64_t grown = levels[i] | batchedLevels(out[i]);
          changed |= grown != levels[i];
          levels[i] = grown;
        }
      }
    }
    Tensors carry = force({a.begin(), a.begin() + k});
    std::vector<Tensors> ys(s.results.size() - k);
    for (int64_t step = 0; step < len; ++step) {
      Tensors out = block(s.regions[0], stepInputs(carry, step), mask);
      // A later step may batch a carry at a level the first did not (a nested unbatched cond
      // that took the other branch): its level set grows from there on.
      for (size_t i = 0; i < k; ++i) levels[i] |= batchedLevels(out[i]);
      carry = force({out.begin(), out.begin() + k});
      for (size_t y = k; y < out.size(); ++y) ys[y - k].push_back(out[y]);
    }
    Tensors res = carry;
    for (auto &y : stackScanOutputs(s, std::move(ys))) res.push_back(std::move(y));
    return res;
  }
};

} // namespace

std::vector<at::Tensor> evalBatched(const Program &p, const std::vector<at::Tensor> &inputs, LoweringFault fault) {
  BatchedInterp in(fault);
  return in.block(p.body, inputs, at::Tensor());
}

} // namespace vf
