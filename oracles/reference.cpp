#include "oracles/reference.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "ir/scalar_type.h"
#include "ir/unbatch.h"
#include "ir/constructs.h"
#include "ir/op_registry.h"
#include "ir/precision.h"
#include "ir/scan_outputs.h"

#include <torch/csrc/autograd/autograd.h>

namespace vf {
namespace {


class Interp {
public:
  Interp(const std::unordered_map<ValueId, DType> &precision, bool f64, double &margin, double *kink, DomainNote *domain)
      : f64_(f64), margin_(margin), kink_(kink), domain_(domain), precision_(precision) {}

  /// The inputs take part in an enclosing gradient (requires_grad): a grad construct's
  /// gradients must then be differentiable themselves.
  void tracked(const std::vector<at::Tensor> &inputs) {
    tracked_ = std::any_of(inputs.begin(), inputs.end(), [](const at::Tensor &t) { return t.requires_grad(); });
  }

  std::vector<at::Tensor> block(const Block &b, const std::vector<at::Tensor> &params) {
    for (size_t i = 0; i < b.params.size(); ++i) env_[b.params[i].id] = params.at(i);
    for (const auto &s : b.stmts) stmt(s);
    std::vector<at::Tensor> out;
    for (auto y : b.yields) out.push_back(env_.at(y));
    return out;
  }

private:
  bool f64_;
  double &margin_;
  double *kink_; ///< where to record kinks (the VJP's differentiability), or null
  int inGrad_ = 0; ///< grad and jvp regions the interpreter is inside: a kink there is a margin of the result
  bool tracked_ = false; ///< an enclosing gradient (the gradient modes' VJP) tracks the inputs
  DomainNote *domain_; ///< where to record restricted domains, or null
  std::unordered_map<ValueId, at::Tensor> env_;
  const std::unordered_map<ValueId, DType> &precision_; ///< ir/precision.h: margins are judged in it

  /// The margin scale of the least precise dtype `s`'s arguments were computed in.
  double precisionScale(const Stmt &s) const {
    std::optional<DType> p;
    for (auto v : s.args)
      if (auto it = precision_.find(v); it != precision_.end()) p = lessPrecise(p, it->second);
    return p ? marginScale(toScalarType(*p)) : 1.0;
  }

  std::vector<at::Tensor> args(const Stmt &s) {
    std::vector<at::Tensor> a;
    for (auto v : s.args) a.push_back(env_.at(v));
    return a;
  }

  /// torch.func.grad: the region runs under autograd with the argnums operands as fresh leaves
  /// (or, when an enclosing gradient already tracks them, as views of themselves, so that the
  /// enclosing one differentiates through this gradient: create_graph); the results are the
  /// gradients of its one 0-d yield, zero where it does not depend on an operand. Captured
  /// values are constants to it, as they are to torch.func.grad.
  std::vector<at::Tensor> grad(const Stmt &s, std::vector<at::Tensor> a) {
    c10::AutoGradMode on(true);
    const bool outer = inGrad_ > 0 || tracked_;
    const std::vector<at::Tensor> xs = differentiable(a, gradArgnums(s));
    ++inGrad_;
    const at::Tensor y = block(s.regions[0], a).at(0);
    --inGrad_;
    std::vector<at::Tensor> g(xs.size());
    if (y.requires_grad()) g = torch::autograd::grad({y}, xs, {}, /*retain_graph=*/true, /*create_graph=*/outer, /*allow_unused=*/true);
    for (size_t k = 0; k < g.size(); ++k) g[k] = kept(g[k].defined() ? g[k] : at::zeros_like(xs[k]), outer);
    return g;
  }

  /// torch.func.jvp: the region's yields and their tangents, by the double-backward trick of
  /// oracles/reference_grad.h (with u a cotangent that requires grad, g(u) = J^T u is linear in u,
  /// and J t is the gradient of <g(u), t> with respect to u): reverse mode only, so that an
  /// enclosing gradient differentiates through it as through grad. A yield that does not depend
  /// on the primals gets a zero tangent.
  std::vector<at::Tensor> jvp(const Stmt &s, const std::vector<at::Tensor> &a) {
    c10::AutoGradMode on(true);
    const bool outer = inGrad_ > 0 || tracked_;
    const size_t k = a.size() / 2;
    std::vector<at::Tensor> primals(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(k));
    std::vector<size_t> all(k);
    for (size_t i = 0; i < k; ++i) all[i] = i;
    const std::vector<at::Tensor> xs = differentiable(primals, all);
    ++inGrad_;
    const std::vector<at::Tensor> ys = block(s.regions[0], primals);
    --inGrad_;
    std::vector<at::Tensor> live, us, tangents(ys.size());
    std::vector<size_t> liveAt;
    for (size_t i = 0; i < ys.size(); ++i)
      if (ys[i].requires_grad()) live.push_back(ys[i]), us.push_back(at::zeros_like(ys[i]).requires_grad_(true)), liveAt.push_back(i);
    if (!live.empty()) {
      const auto g = torch::autograd::grad(live, xs, us, /*retain_graph=*/true, /*create_graph=*/true, /*allow_unused=*/true);
      std::vector<at::Tensor> gs, ts;
      for (size_t j = 0; j < g.size(); ++j)
        if (g[j].defined() && g[j].requires_grad()) gs.push_back(g[j]), ts.push_back(a[k + j]);
      if (!gs.empty()) {
        const auto jt = torch::autograd::grad(gs, us, ts, /*retain_graph=*/true, /*create_graph=*/outer, /*allow_unused=*/true);
        for (size_t m = 0; m < liveAt.size(); ++m)
          if (jt[m].defined()) tangents[liveAt[m]] = jt[m];
      }
    }
    std::vector<at::Tensor> res;
    for (const auto &y : ys) res.push_back(kept(y, outer));
    for (size_t i = 0; i < ys.size(); ++i) res.push_back(kept(tangents[i].defined() ? tangents[i] : at::zeros_like(ys[i]), outer));
    return res;
  }

  /// The operands `which` of `a` as values a transform's function differentiates: fresh leaves,
  /// or, where an enclosing gradient already tracks them, views of themselves (so that the
  /// enclosing one differentiates through this one). Replaced in `a`, and returned.
  static std::vector<at::Tensor> differentiable(std::vector<at::Tensor> &a, const std::vector<size_t> &which) {
    std::vector<at::Tensor> xs;
    for (size_t i : which) {
      a[i] = a[i].requires_grad() ? a[i].view_as(a[i]) : a[i].detach().requires_grad_(true);
      xs.push_back(a[i]);
    }
    return xs;
  }

  /// A transform's result: still tracked where an enclosing gradient differentiates through it.
  static at::Tensor kept(const at::Tensor &t, bool outer) { return outer ? t : t.detach(); }

  std::vector<at::Tensor> scan(const Stmt &s, const std::vector<at::Tensor> &a) {
    size_t k = static_cast<size_t>(s.attrs.getInt("ncarry"));
    bool reverse = s.attrs.getBool("reverse");
    std::vector<at::Tensor> carry(a.begin(), a.begin() + k);
    int64_t len = a[k].size(0);
    std::vector<std::vector<at::Tensor>> ys(s.results.size() - k);
    for (int64_t step = 0; step < len; ++step) {
      int64_t t = reverse ? len - 1 - step : step;
      std::vector<at::Tensor> in = carry;
      for (size_t x = k; x < a.size(); ++x) in.push_back(a[x].select(0, t));
      auto out = block(s.regions[0], in);
      carry.assign(out.begin(), out.begin() + k);
      for (size_t y = k; y < out.size(); ++y) ys[y - k].push_back(out[y]);
    }
    std::vector<at::Tensor> res = carry;
    for (auto &y : stackScanOutputs(s, std::move(ys))) res.push_back(std::move(y));
    return res;
  }

  void stmt(const Stmt &s) {
    auto a = args(s);
    std::vector<at::Tensor> res;
    if (s.regions.empty()) {
      const OpDef *op = findOp(s.op);
      EvalCtx ctx;
      ctx.measureKinks = kink_ != nullptr || inGrad_ > 0;
      ctx.precisionScale = precisionScale(s);
      at::Tensor r = op->eval(a, s.attrs, ctx);
      margin_ = std::min(margin_, ctx.minMargin);
      if (inGrad_ > 0) margin_ = std::min(margin_, ctx.minKink); // a gradient jumps at a kink
      if (kink_) *kink_ = std::min(*kink_, ctx.minKink);
      if (domain_) domain_->note(ctx.minDomain, ctx.domainOp);
      res.push_back(r);
    } else {
      switch (constructOf(s).kind) {
      case ConstructKind::Cond: {
        bool pythonBool = s.attrs.find("pred") != nullptr;
        bool p = pythonBool ? s.attrs.getBool("pred") : a[0].item<bool>();
        std::vector<at::Tensor> operands(a.begin() + (pythonBool ? 0 : 1), a.end());
        res = block(s.regions[p ? 0 : 1], operands);
        break;
      }
      case ConstructKind::Switch: {
        int64_t n = static_cast<int64_t>(s.regions.size());
        int64_t i = std::clamp<int64_t>(a[0].item<int64_t>(), 0, n - 1);
        res = block(s.regions[i], std::vector<at::Tensor>(a.begin() + 1, a.end()));
        break;
      }
      case ConstructKind::WhileLoop: {
        res = a;
        // The generator bounds every loop; this guard turns a runaway loop into an error.
        for (int iter = 0; block(s.regions[0], res)[0].item<bool>(); ++iter) {
          if (iter >= kMaxIterations) throw std::runtime_error("while_loop ran more than " + std::to_string(kMaxIterations) + " iterations");
          res = block(s.regions[1], res);
        }
        break;
      }
      case ConstructKind::Scan:
        // An in-place buffer is a carry in value terms (ir/scan_outputs.h).
        if (scanParts(s).bufs > 0) {
          const Stmt c = buffersAsCarries(s);
          res = buffersBackToEnd(s, scan(c, args(c)));
        } else {
          res = scan(s, a);
        }
        break;
      case ConstructKind::Vmap: { // its function on each slice alone, stacked (ir/unbatch.h)
        VmapLevel l;
        l.in_dims = vmapInDims(s);
        l.out_dims = s.attrs.getInts("out_dims");
        for (size_t i = 0; i < a.size(); ++i)
          if (l.in_dims[i]) l.size = a[i].size(*l.in_dims[i]);
        res = unbatch({l}, a, [&](const std::vector<at::Tensor> &slice) { return block(s.regions[0], slice); });
        break;
      }
      case ConstructKind::Grad: res = grad(s, a); break;
      case ConstructKind::Jvp: res = jvp(s, a); break;
      }
    }
    for (size_t i = 0; i < s.results.size(); ++i) {
      at::Tensor t = res.at(i);
      // Keep the declared dtype, except that float64 mode computes all floats in float64.
      auto want = toScalarType(s.results[i].type.dtype);
      if (f64_ && isFloating(s.results[i].type.dtype)) want = at::kDouble;
      if (t.scalar_type() != want) t = t.to(want);
      env_[s.results[i].id] = t;
    }
  }
};

} // namespace

std::vector<at::Tensor> evalProgram(const Program &p, const std::vector<at::Tensor> &inputs, double &minMargin, bool float64,
                                    double *minKink, DomainNote *domain, const std::unordered_map<ValueId, DType> *precision) {
  std::vector<at::Tensor> ins = inputs;
  if (float64)
    for (auto &t : ins)
      if (t.is_floating_point()) t = t.to(at::kDouble);
  std::unordered_map<ValueId, DType> own;
  if (!precision) own = valuePrecisions(p);
  Interp in(precision ? *precision : own, float64, minMargin, minKink, domain);
  in.tracked(ins);
  return in.block(p.body, ins);
}

std::string DomainNote::reason(double margin) const {
  if (left()) return "an example's taken path left the domain of " + op + " (an argument outside it, or a non-finite result from finite ones)";
  if (min < margin) return "an example's taken path came within " + std::to_string(min) + " of the edge of " + op + "'s domain";
  return "";
}

RefResult runReference(const Case &c, const std::vector<at::Tensor> &physicalInputs, const RefOptions &opt) {
  RefResult r;
  try {
    const auto precision = valuePrecisions(c.program);
    r.outputs = unbatch(c.spec.levels, physicalInputs, [&](const std::vector<at::Tensor> &ex) {
      return evalProgram(c.program, ex, r.minMargin, opt.float64, nullptr, &r.domain, &precision);
    });
    if (opt.float64) {
      // Cast back to the declared output dtypes.
      auto outs = outputTypes(c.program);
      for (size_t i = 0; i < r.outputs.size(); ++i) r.outputs[i] = r.outputs[i].to(toScalarType(outs[i].dtype));
    }
  } catch (const std::exception &e) {
    r.error = e.what();
  }
  return r;
}

} // namespace vf
