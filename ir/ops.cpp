// The op table. Adding an op is one entry here: families build the common cases.
#include <cmath>

#include "ir/op_registry.h"

namespace vf {
namespace {

using Args = std::vector<at::Tensor>;
using Types = std::vector<Type>;

// ---- type rules ------------------------------------------------------------------------------

std::string needFloat(const Type &t, const char *what) {
  return isFloating(t.dtype) ? "" : std::string(what) + " needs a floating dtype, got " + typeToString(t);
}

TypeRule sameType(bool floatOnly) {
  return [floatOnly](const Types &a, const Attrs &, Type &out) {
    if (floatOnly && !isFloating(a[0].dtype)) return needFloat(a[0], "operand");
    out = a[0];
    return std::string();
  };
}

TypeRule broadcastRule(bool toBool) {
  return [toBool](const Types &a, const Attrs &, Type &out) {
    if (a[0].dtype == DType::b8 || a[1].dtype == DType::b8)
      return "arithmetic needs numbers, got " + typeToString(a[0]) + " and " + typeToString(a[1]);
    auto s = broadcastShapes(a[0].shape, a[1].shape);
    if (!s) return "shapes " + typeToString(a[0]) + " and " + typeToString(a[1]) + " do not broadcast";
    out = {toBool ? DType::b8 : resultType(a[0], a[1]), *s};
    return std::string();
  };
}

TypeRule reduceRule(bool allDims, bool floatOnly) {
  return [=](const Types &a, const Attrs &at_, Type &out) {
    if (floatOnly && !isFloating(a[0].dtype)) return needFloat(a[0], "reduction");
    out.dtype = a[0].dtype;
    out.shape.clear();
    if (allDims) return std::string();
    int64_t d = *wrapDim(at_.getInt("dim"), a[0].rank());
    bool keep = at_.getBool("keepdim");
    out.shape = a[0].shape;
    if (a[0].rank() == 0) return std::string();
    if (keep) out.shape[d] = 1;
    else out.shape.erase(out.shape.begin() + d);
    return std::string();
  };
}

std::string matmulType(const Types &a, const Attrs &, Type &out) {
  const Shape &x = a[0].shape, &y = a[1].shape;
  if (a[0].dtype != a[1].dtype) return "matmul needs equal dtypes, got " + typeToString(a[0]) + " and " + typeToString(a[1]);
  if (x.empty() || y.empty()) return "matmul needs operands of rank >= 1";
  int64_t kx = x.back(), ky = y.size() == 1 ? y[0] : y[y.size() - 2];
  if (kx != ky) return "matmul contraction sizes differ: " + typeToString(a[0]) + " @ " + typeToString(a[1]);
  Shape bx(x.begin(), x.end() - std::min<size_t>(x.size(), 2));
  Shape by(y.begin(), y.end() - std::min<size_t>(y.size(), 2));
  auto b = broadcastShapes(bx, by);
  if (!b) return "matmul batch dims do not broadcast: " + typeToString(a[0]) + " @ " + typeToString(a[1]);
  out.dtype = a[0].dtype;
  out.shape = *b;
  if (x.size() >= 2) out.shape.push_back(x[x.size() - 2]);
  if (y.size() >= 2) out.shape.push_back(y.back());
  return std::string();
}

// ---- evaluation helpers ----------------------------------------------------------------------

/// Records how close a float comparison came to flipping.
void noteMargin(const at::Tensor &a, const at::Tensor &b, EvalCtx &ctx) {
  if (!a.is_floating_point() && !b.is_floating_point()) return;
  auto da = a.to(at::kDouble), db = b.to(at::kDouble);
  auto diff = (da - db).abs() / (da.abs() + db.abs() + 1.0);
  if (diff.numel() == 0) return;
  double m = diff.min().item<double>();
  if (!std::isnan(m)) ctx.minMargin = std::min(ctx.minMargin, m);
}

// ---- families --------------------------------------------------------------------------------

OpDef unary(std::string name, std::string py, std::function<at::Tensor(const at::Tensor &)> f, double w = 1.0) {
  OpDef op;
  op.name = std::move(name);
  op.arity = 1;
  op.type = sameType(true);
  op.eval = [f](const Args &a, const Attrs &, EvalCtx &) { return f(a[0]); };
  op.python = std::move(py);
  op.weight = w;
  return op;
}

OpDef binary(std::string name, std::string py, std::function<at::Tensor(const at::Tensor &, const at::Tensor &)> f, double w = 1.0) {
  OpDef op;
  op.name = std::move(name);
  op.arity = 2;
  op.type = broadcastRule(false);
  op.eval = [f](const Args &a, const Attrs &, EvalCtx &) { return f(a[0], a[1]); };
  op.python = std::move(py);
  op.weight = w;
  op.floatArgsOnly = false;
  return op;
}

OpDef compare(std::string name, std::string py, std::function<at::Tensor(const at::Tensor &, const at::Tensor &)> f) {
  OpDef op = binary(std::move(name), std::move(py), f, 0.5);
  op.type = broadcastRule(true);
  op.eval = [f](const Args &a, const Attrs &, EvalCtx &ctx) {
    noteMargin(a[0], a[1], ctx);
    return f(a[0], a[1]);
  };
  return op;
}

OpDef scalarOp(std::string name, std::string py, std::function<at::Tensor(const at::Tensor &, double)> f, bool toBool) {
  OpDef op;
  op.name = std::move(name);
  op.arity = 1;
  op.attrs = {{"value", AttrDomain::Scalar}};
  op.type = toBool ? TypeRule([](const Types &a, const Attrs &, Type &out) {
    if (!isFloating(a[0].dtype)) return needFloat(a[0], "comparison");
    out = {DType::b8, a[0].shape};
    return std::string();
  }) : sameType(true);
  op.eval = [f, toBool](const Args &a, const Attrs &at_, EvalCtx &ctx) {
    double v = at_.getFloat("value");
    if (toBool) noteMargin(a[0], at::full({}, v, a[0].options()), ctx);
    return f(a[0], v);
  };
  op.python = std::move(py);
  op.weight = toBool ? 0.3 : 0.7;
  return op;
}

OpDef reduction(std::string name, std::string py, std::function<at::Tensor(const at::Tensor &, int64_t, bool)> f) {
  OpDef op;
  op.name = std::move(name);
  op.arity = 1;
  op.attrs = {{"dim", AttrDomain::Dim}, {"keepdim", AttrDomain::Bool}};
  op.type = reduceRule(false, true);
  op.eval = [f](const Args &a, const Attrs &at_, EvalCtx &) { return f(a[0], at_.getInt("dim"), at_.getBool("keepdim")); };
  op.python = std::move(py);
  return op;
}

OpDef fullReduction(std::string name, std::string py, std::function<at::Tensor(const at::Tensor &)> f) {
  OpDef op;
  op.name = std::move(name);
  op.arity = 1;
  op.type = reduceRule(true, true);
  op.eval = [f](const Args &a, const Attrs &, EvalCtx &) { return f(a[0]); };
  op.python = std::move(py);
  op.weight = 0.5;
  return op;
}

std::vector<OpDef> buildOps() {
  std::vector<OpDef> ops;
  // Pointwise unary (floating). Domain-restricted functions are made total.
  ops.push_back(unary("neg", "torch.neg({0})", [](auto &x) { return at::neg(x); }));
  ops.push_back(unary("abs", "torch.abs({0})", [](auto &x) { return at::abs(x); }));
  ops.push_back(unary("sin", "torch.sin({0})", [](auto &x) { return at::sin(x); }));
  ops.push_back(unary("cos", "torch.cos({0})", [](auto &x) { return at::cos(x); }));
  ops.push_back(unary("tanh", "torch.tanh({0})", [](auto &x) { return at::tanh(x); }));
  ops.push_back(unary("sigmoid", "torch.sigmoid({0})", [](auto &x) { return at::sigmoid(x); }));
  ops.push_back(unary("relu", "torch.relu({0})", [](auto &x) { return at::relu(x); }));
  ops.push_back(unary("square", "torch.square({0})", [](auto &x) { return at::square(x); }, 0.5));
  ops.push_back(unary("log_abs1", "torch.log1p(torch.abs({0}))", [](auto &x) { return at::log1p(at::abs(x)); }, 0.5));
  ops.push_back(unary("exp_neg_sq", "torch.exp(torch.neg(torch.square({0})))",
                      [](auto &x) { return at::exp(at::neg(at::square(x))); }, 0.3));

  // Pointwise binary with broadcasting and type promotion.
  ops.push_back(binary("add", "torch.add({0}, {1})", [](auto &a, auto &b) { return at::add(a, b); }, 1.5));
  ops.push_back(binary("sub", "torch.sub({0}, {1})", [](auto &a, auto &b) { return at::sub(a, b); }, 1.5));
  ops.push_back(binary("mul", "torch.mul({0}, {1})", [](auto &a, auto &b) { return at::mul(a, b); }, 1.5));
  ops.push_back(binary("maximum", "torch.maximum({0}, {1})", [](auto &a, auto &b) { return at::maximum(a, b); }));
  ops.push_back(binary("minimum", "torch.minimum({0}, {1})", [](auto &a, auto &b) { return at::minimum(a, b); }));

  // Comparisons.
  ops.push_back(compare("gt", "torch.gt({0}, {1})", [](auto &a, auto &b) { return at::gt(a, b); }));
  ops.push_back(compare("lt", "torch.lt({0}, {1})", [](auto &a, auto &b) { return at::lt(a, b); }));

  // With a scalar.
  ops.push_back(scalarOp("add_scalar", "torch.add({0}, {value})", [](auto &x, double v) { return at::add(x, v); }, false));
  ops.push_back(scalarOp("mul_scalar", "torch.mul({0}, {value})", [](auto &x, double v) { return at::mul(x, v); }, false));
  ops.push_back(scalarOp("gt_scalar", "torch.gt({0}, {value})", [](auto &x, double v) { return at::gt(x, v); }, true));

  // Float to integer, for loop trip limits and switch indices. Rounding down sits on a
  // decision boundary at every integer, so the distance to the nearest one is recorded.
  auto floorToInt = [](std::string name, std::string py, double scale, double lo, double hi, bool absFirst) {
    OpDef op;
    op.name = std::move(name);
    op.arity = 1;
    op.type = [](const Types &a, const Attrs &, Type &out) {
      if (!isFloating(a[0].dtype)) return needFloat(a[0], "operand");
      out = {DType::i64, a[0].shape};
      return std::string();
    };
    op.eval = [=](const Args &a, const Attrs &, EvalCtx &ctx) {
      // Same arithmetic, in the same dtype, as the Python emission.
      at::Tensor y = (absFirst ? at::abs(a[0]) : a[0]) * scale;
      if (y.numel() > 0) {
        auto d = y.to(at::kDouble);
        auto frac = (d - d.round()).abs() / (d.abs() + 1.0);
        ctx.minMargin = std::min(ctx.minMargin, frac.min().item<double>());
      }
      return at::clamp(at::floor(y), lo, hi).to(at::kLong);
    };
    op.python = std::move(py);
    op.weight = 0;
    op.floatArgsOnly = true;
    return op;
  };
  // A loop's trip limit: floor(|x| * 2) clamped to [0, 4].
  ops.push_back(floorToInt("trip_limit", "torch.clamp(torch.floor(torch.abs({0}) * 2.0), 0.0, 4.0).to(torch.int64)", 2.0, 0, 4, true));
  // A switch index that is often out of range: floor(x * 2) clamped to [-3, 5].
  ops.push_back(floorToInt("branch_index", "torch.clamp(torch.floor({0} * 2.0), -3.0, 5.0).to(torch.int64)", 2.0, -3, 5, false));
  {
    OpDef op;
    op.name = "increment";
    op.arity = 1;
    op.type = [](const Types &a, const Attrs &, Type &out) {
      if (!isIntegral(a[0].dtype)) return "increment needs an integer dtype, got " + typeToString(a[0]);
      out = a[0];
      return std::string();
    };
    op.eval = [](const Args &a, const Attrs &, EvalCtx &) { return at::add(a[0], 1); };
    op.python = "torch.add({0}, 1)";
    op.weight = 0;
    op.floatArgsOnly = false;
    ops.push_back(op);
  }

  // where(cond, a, b): cond must be bool; output is the broadcast of all three.
  {
    OpDef op;
    op.name = "where";
    op.arity = 3;
    op.type = [](const Types &a, const Attrs &, Type &out) {
      if (a[0].dtype != DType::b8) return "where needs a bool condition, got " + typeToString(a[0]);
      auto s = broadcastShapes(a[0].shape, a[1].shape);
      if (s) s = broadcastShapes(*s, a[2].shape);
      if (!s) return std::string("where operands do not broadcast");
      out = {resultType(a[1], a[2]), *s};
      return std::string();
    };
    op.eval = [](const Args &a, const Attrs &, EvalCtx &) { return at::where(a[0], a[1], a[2]); };
    op.python = "torch.where({0}, {1}, {2})";
    op.weight = 0.7;
    op.floatArgsOnly = false;
    ops.push_back(op);
  }

  // Reductions along a dim, and over everything.
  ops.push_back(reduction("sum", "torch.sum({0}, dim={dim}, keepdim={keepdim})", [](auto &x, int64_t d, bool k) { return at::sum(x, {d}, k); }));
  ops.push_back(reduction("mean", "torch.mean({0}, dim={dim}, keepdim={keepdim})", [](auto &x, int64_t d, bool k) { return at::mean(x, {d}, k); }));
  ops.push_back(reduction("amax", "torch.amax({0}, dim={dim}, keepdim={keepdim})", [](auto &x, int64_t d, bool k) { return at::amax(x, {d}, k); }));
  ops.push_back(reduction("amin", "torch.amin({0}, dim={dim}, keepdim={keepdim})", [](auto &x, int64_t d, bool k) { return at::amin(x, {d}, k); }));
  ops.push_back(fullReduction("sum_all", "torch.sum({0})", [](auto &x) { return at::sum(x); }));
  ops.push_back(fullReduction("mean_all", "torch.mean({0})", [](auto &x) { return at::mean(x); }));

  // matmul with torch's full shape semantics.
  {
    OpDef op;
    op.name = "matmul";
    op.arity = 2;
    op.type = matmulType;
    op.eval = [](const Args &a, const Attrs &, EvalCtx &) { return at::matmul(a[0], a[1]); };
    op.python = "torch.matmul({0}, {1})";
    op.weight = 1.0;
    ops.push_back(op);
  }

  // Views.
  {
    OpDef op;
    op.name = "transpose";
    op.arity = 1;
    op.attrs = {{"dim0", AttrDomain::Dim}, {"dim1", AttrDomain::Dim}};
    op.type = [](const Types &a, const Attrs &at_, Type &out) {
      out = a[0];
      if (a[0].rank() == 0) return std::string();
      auto d0 = *wrapDim(at_.getInt("dim0"), a[0].rank()), d1 = *wrapDim(at_.getInt("dim1"), a[0].rank());
      std::swap(out.shape[d0], out.shape[d1]);
      return std::string();
    };
    op.eval = [](const Args &a, const Attrs &at_, EvalCtx &) { return at::transpose(a[0], at_.getInt("dim0"), at_.getInt("dim1")); };
    op.view = true;
    op.python = "torch.transpose({0}, {dim0}, {dim1})";
    op.floatArgsOnly = false;
    ops.push_back(op);
  }
  {
    OpDef op;
    op.name = "unsqueeze";
    op.arity = 1;
    op.attrs = {{"dim", AttrDomain::NewDim}};
    op.type = [](const Types &a, const Attrs &at_, Type &out) {
      out = a[0];
      auto d = *wrapDim(at_.getInt("dim"), a[0].rank() + 1);
      out.shape.insert(out.shape.begin() + d, 1);
      return std::string();
    };
    op.eval = [](const Args &a, const Attrs &at_, EvalCtx &) { return at::unsqueeze(a[0], at_.getInt("dim")); };
    op.view = true;
    op.python = "torch.unsqueeze({0}, {dim})";
    op.weight = 0.7;
    op.floatArgsOnly = false;
    ops.push_back(op);
  }
  {
    OpDef op;
    op.name = "permute";
    op.arity = 1;
    op.attrs = {{"dims", AttrDomain::Perm}};
    op.type = [](const Types &a, const Attrs &at_, Type &out) {
      out = a[0];
      auto p = at_.getInts("dims");
      for (size_t i = 0; i < p.size(); ++i) out.shape[i] = a[0].shape[*wrapDim(p[i], a[0].rank())];
      return std::string();
    };
    op.eval = [](const Args &a, const Attrs &at_, EvalCtx &) { return a[0].permute(at_.getInts("dims")); };
    op.view = true;
    op.python = "torch.permute({0}, {dims})";
    op.weight = 0.7;
    op.floatArgsOnly = false;
    ops.push_back(op);
  }
  return ops;
}

} // namespace

const std::vector<OpDef> &allOps() {
  static const std::vector<OpDef> ops = buildOps();
  return ops;
}

} // namespace vf
