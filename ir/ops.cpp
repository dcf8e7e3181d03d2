// The op table. Adding an op is one entry here: families build the common cases.
#include <cmath>

#include "ir/op_registry.h"

namespace vf {

/// Margins are recorded in float32 terms: a half-precision value is as close to its boundary
/// as a float32 one that is `scale` times closer. float16 rounds at ~1e-3 and bfloat16 at ~8e-3
/// relative (float32 at ~1e-7), and a batched kernel may round differently by a few units, so
/// the ambiguity margin (1e-4 for float32) becomes 2e-2 for float16 and 1e-1 for bfloat16.
double marginScale(at::ScalarType t) {
  switch (t) {
  case at::kHalf: return 1.0 / 200;
  case at::kBFloat16: return 1.0 / 1000;
  default: return 1.0;
  }
}

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

/// `identity`: the reduction has one (sum, prod, any...), so an empty dim is fine; amax and
/// amin have none and raise on one.
TypeRule reduceRule(bool allDims, bool floatOnly, bool identity = true) {
  return [=](const Types &a, const Attrs &at_, Type &out) {
    if (floatOnly && !isFloating(a[0].dtype)) return needFloat(a[0], "reduction");
    out.dtype = a[0].dtype;
    out.shape.clear();
    if (allDims) return std::string();
    int64_t d = *wrapDim(at_.getInt("dim"), a[0].rank());
    bool keep = at_.getBool("keepdim");
    out.shape = a[0].shape;
    if (a[0].rank() == 0) return std::string();
    if (!identity && a[0].shape[d] == 0) return "a reduction without an identity over an empty dim of " + typeToString(a[0]);
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

double pairMarginScale(const at::Tensor &a, const at::Tensor &b) {
  return std::min(a.is_floating_point() ? marginScale(a.scalar_type()) : 1.0,
                  b.is_floating_point() ? marginScale(b.scalar_type()) : 1.0);
}

/// Records how close a float comparison came to flipping.
void noteMargin(const at::Tensor &a, const at::Tensor &b, EvalCtx &ctx) {
  if (!ctx.measureMargins) return;
  if (!a.is_floating_point() && !b.is_floating_point()) return;
  auto da = a.to(at::kDouble), db = b.to(at::kDouble);
  auto diff = (da - db).abs() / (da.abs() + db.abs() + 1.0);
  if (diff.numel() == 0) return;
  double m = diff.min().item<double>() * std::min(pairMarginScale(a, b), ctx.precisionScale);
  if (!std::isnan(m)) ctx.minMargin = std::min(ctx.minMargin, m);
}

/// Records how close `x` came to `at`, a point where the op has no derivative (gradient modes).
void noteKink(const at::Tensor &x, double at, EvalCtx &ctx) {
  if (!ctx.measureKinks || !x.is_floating_point() || x.numel() == 0) return;
  auto d = (x.detach().to(at::kDouble) - at).abs() / (std::abs(at) + 1.0);
  double m = at::nan_to_num(d, 1.0).min().item<double>() * std::min(marginScale(x.scalar_type()), ctx.precisionScale);
  ctx.minKink = std::min(ctx.minKink, m);
}

/// `op`, whose derivative is undefined where `kinks(args)` (a tensor of scaled distances) is 0:
/// its evaluation also records the smallest distance when the context asks for kinks.
OpDef withKinks(OpDef op, std::function<void(const Args &, EvalCtx &)> kinks) {
  auto eval = op.eval;
  op.eval = [eval, kinks](const Args &a, const Attrs &at_, EvalCtx &ctx) {
    if (ctx.measureKinks) kinks(a, ctx);
    return eval(a, at_, ctx);
  };
  return op;
}

/// The kink of a pointwise op at 0 (abs, relu).
void kinkAtZero(const Args &a, EvalCtx &ctx) { noteKink(a[0], 0.0, ctx); }

/// maximum / minimum: no derivative where the arguments tie.
void kinkAtTie(const Args &a, EvalCtx &ctx) {
  if (!ctx.measureKinks || !a[0].is_floating_point() || !a[1].is_floating_point()) return;
  auto da = a[0].detach().to(at::kDouble), db = a[1].detach().to(at::kDouble);
  auto diff = (da - db).abs() / (da.abs() + db.abs() + 1.0);
  if (diff.numel() == 0) return;
  double m = at::nan_to_num(diff, 1.0).min().item<double>() * std::min(pairMarginScale(a[0], a[1]), ctx.precisionScale);
  ctx.minKink = std::min(ctx.minKink, m);
}

/// `op`, defined only where `distance(args)` (the arguments in float64, detached) is >= 0: the
/// signed distance of each element from the edge of the op's domain, negative outside. Its
/// evaluation records the smallest (EvalCtx::minDomain), a non-finite result from finite
/// arguments as outside (log(0), x / 0, an overflow), and marks the op for the generator.
OpDef withDomain(OpDef op, std::function<at::Tensor(const Args &)> distance) {
  op.restrictedDomain = true;
  auto eval = op.eval;
  op.eval = [eval, distance, name = op.name](const Args &a, const Attrs &at_, EvalCtx &ctx) {
    at::Tensor r = eval(a, at_, ctx);
    if (!ctx.measureMargins || r.numel() == 0) return r;
    Args d;
    double scale = ctx.precisionScale;
    at::Tensor fromFinite = at::logical_not(at::isfinite(r.detach()));
    for (const auto &x : a) {
      d.push_back(x.detach().to(at::kDouble));
      scale = std::min(scale, marginScale(x.scalar_type()));
      fromFinite = at::logical_and(fromFinite, at::isfinite(x.detach()));
    }
    at::Tensor dist = distance(d);
    // A NaN argument came from elsewhere: not this op's domain.
    double m = dist.numel() ? at::nan_to_num(dist, 1.0).min().item<double>() * scale : 1e300;
    if (fromFinite.any().item<bool>()) m = std::min(m, -1.0);
    if (m < ctx.minDomain) {
      ctx.minDomain = m;
      ctx.domainOp = name;
    }
    return r;
  };
  return op;
}

/// Domains as signed distances (see withDomain), scaled like the margins: 0 at the edge.
at::Tensor nonNegative(const Args &a) { return a[0] / (a[0].abs() + 1.0); }       // sqrt, log
at::Tensor nonZeroDivisor(const Args &a) { return a[1].abs() / (a[1].abs() + 1.0); } // div
at::Tensor withinOne(const Args &a) { return (1.0 - a[0].abs()) / 2.0; }            // acos

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

OpDef makeOp(std::string name, int arity, std::vector<AttrSpec> attrs, TypeRule type, EvalFn eval, std::string py,
             double weight = 1.0, bool floatArgsOnly = true, bool view = false) {
  OpDef op;
  op.name = std::move(name);
  op.arity = arity;
  op.attrs = std::move(attrs);
  op.type = std::move(type);
  op.eval = std::move(eval);
  op.python = std::move(py);
  op.weight = weight;
  op.floatArgsOnly = floatArgsOnly;
  op.view = view;
  return op;
}

/// An in-place update of a scan buffer (OpDef::inplace): `{0}.NAME_({1})`. Argument 0 is a
/// floating buffer whose type the update keeps: argument 1 broadcasts to its shape, and torch
/// casts the result of the promoted computation back into it. `arithmetic`: add_ and mul_ take
/// numbers only (copy_ takes any dtype). The evaluation is out of place, the value the buffer
/// holds afterwards.
OpDef inplaceOp(std::string name, bool arithmetic, std::function<at::Tensor(const at::Tensor &, const at::Tensor &)> f) {
  OpDef op;
  op.name = name;
  op.arity = 2;
  op.type = [name, arithmetic](const Types &a, const Attrs &, Type &out) {
    if (!isFloating(a[0].dtype)) return name + " updates a floating buffer, got " + typeToString(a[0]);
    if (arithmetic && a[1].dtype == DType::b8) return name + " needs a number, got " + typeToString(a[1]);
    auto s = broadcastShapes(a[0].shape, a[1].shape);
    if (!s || *s != a[0].shape)
      return name + ": " + typeToString(a[1]) + " does not broadcast to the buffer's shape " + typeToString(a[0]);
    out = a[0];
    return std::string();
  };
  op.eval = [f](const Args &a, const Attrs &, EvalCtx &) { return f(a[0], a[1]).to(a[0].scalar_type()); };
  op.python = "{0}." + name + "({1})";
  op.weight = 0;
  op.floatArgsOnly = false;
  op.view = true; // the result is the buffer itself
  op.inplace = true;
  return op;
}

int64_t dimOf(const Type &t, const Attrs &a, const char *name = "dim") { return *wrapDim(a.getInt(name), t.rank()); }

/// Rounding sits on a decision boundary at every half (round) or integer (floor).
void noteRounding(const at::Tensor &x, double offset, EvalCtx &ctx) {
  if (!ctx.measureMargins || x.numel() == 0) return;
  auto d = x.to(at::kDouble) + offset;
  auto frac = (d - d.round()).abs() / (d.abs() + 1.0);
  double m = at::nan_to_num(frac, 1.0).min().item<double>() * std::min(marginScale(x.scalar_type()), ctx.precisionScale);
  ctx.minMargin = std::min(ctx.minMargin, m);
}

std::vector<OpDef> buildOps() {
  std::vector<OpDef> ops;
  // Pointwise unary (floating), total: defined for every argument.
  ops.push_back(unary("neg", "torch.neg({0})", [](auto &x) { return at::neg(x); }));
  ops.push_back(withKinks(unary("abs", "torch.abs({0})", [](auto &x) { return at::abs(x); }), kinkAtZero));
  ops.push_back(unary("sin", "torch.sin({0})", [](auto &x) { return at::sin(x); }));
  ops.push_back(unary("cos", "torch.cos({0})", [](auto &x) { return at::cos(x); }));
  ops.push_back(unary("tanh", "torch.tanh({0})", [](auto &x) { return at::tanh(x); }));
  ops.push_back(unary("sigmoid", "torch.sigmoid({0})", [](auto &x) { return at::sigmoid(x); }));
  ops.push_back(withKinks(unary("relu", "torch.relu({0})", [](auto &x) { return at::relu(x); }), kinkAtZero));
  ops.push_back(unary("square", "torch.square({0})", [](auto &x) { return at::square(x); }, 0.5));
  ops.push_back(withKinks(unary("log_abs1", "torch.log1p(torch.abs({0}))", [](auto &x) { return at::log1p(at::abs(x)); }, 0.5), kinkAtZero));
  ops.push_back(unary("exp_neg_sq", "torch.exp(torch.neg(torch.square({0})))",
                      [](auto &x) { return at::exp(at::neg(at::square(x))); }, 0.3));

  // Restricted domains, with torch's own semantics (NaN or an infinity outside): the generator
  // puts them inside construct regions only, where a batched cond runs the untaken branch too
  // (withDomain). Each derivative is infinite at the edge: a kink for the gradient modes.
  ops.push_back(withDomain(withKinks(unary("sqrt", "torch.sqrt({0})", [](auto &x) { return at::sqrt(x); }, 0.5), kinkAtZero),
                           nonNegative));
  ops.push_back(withDomain(withKinks(unary("log", "torch.log({0})", [](auto &x) { return at::log(x); }, 0.5), kinkAtZero),
                           nonNegative));
  ops.push_back(withDomain(withKinks(unary("acos", "torch.acos({0})", [](auto &x) { return at::acos(x); }, 0.3),
                                     [](const Args &a, EvalCtx &ctx) {
                                       noteKink(a[0], -1.0, ctx);
                                       noteKink(a[0], 1.0, ctx);
                                     }),
                           withinOne));
  {
    // True division, floating operands only (an integer one would promote to the default dtype).
    OpDef div = binary("div", "torch.div({0}, {1})", [](auto &a, auto &b) { return at::div(a, b); }, 0.7);
    div.floatArgsOnly = true;
    div.type = [base = div.type](const Types &a, const Attrs &at_, Type &out) {
      for (const auto &t : a)
        if (!isFloating(t.dtype)) return needFloat(t, "div");
      return base(a, at_, out);
    };
    ops.push_back(withDomain(withKinks(div, [](const Args &a, EvalCtx &ctx) { noteKink(a[1], 0.0, ctx); }), nonZeroDivisor));
  }

  // Pointwise binary with broadcasting and type promotion.
  ops.push_back(binary("add", "torch.add({0}, {1})", [](auto &a, auto &b) { return at::add(a, b); }, 1.5));
  ops.push_back(binary("sub", "torch.sub({0}, {1})", [](auto &a, auto &b) { return at::sub(a, b); }, 1.5));
  ops.push_back(binary("mul", "torch.mul({0}, {1})", [](auto &a, auto &b) { return at::mul(a, b); }, 1.5));
  ops.push_back(withKinks(binary("maximum", "torch.maximum({0}, {1})", [](auto &a, auto &b) { return at::maximum(a, b); }), kinkAtTie));
  ops.push_back(withKinks(binary("minimum", "torch.minimum({0}, {1})", [](auto &a, auto &b) { return at::minimum(a, b); }), kinkAtTie));

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
      // Same arithmetic, in the same dtype, as the Python emission. NaN becomes 0 and the
      // infinities the largest finite values, so the result is always in [lo, hi]: a loop
      // bounded by it terminates even on the garbage a batched cond's untaken branch sees.
      at::Tensor y = at::nan_to_num((absFirst ? at::abs(a[0]) : a[0]) * scale);
      if (ctx.measureMargins && y.numel() > 0) {
        // The result only changes at the integers lo+1 .. hi: the distance to the nearest.
        auto d = y.to(at::kDouble);
        auto k = at::clamp(at::round(d), lo + 1, hi);
        auto frac = (d - k).abs() / (d.abs() + 1.0);
        ctx.minMargin = std::min(ctx.minMargin, frac.min().item<double>() * std::min(marginScale(a[0].scalar_type()), ctx.precisionScale));
      }
      return at::clamp(at::floor(y), lo, hi).to(at::kLong);
    };
    op.python = std::move(py);
    op.weight = 0;
    op.floatArgsOnly = true;
    return op;
  };
  // A loop's trip limit: floor(|x| * 2) clamped to [0, 4].
  ops.push_back(floorToInt("trip_limit", "torch.clamp(torch.floor(torch.nan_to_num(torch.abs({0}) * 2.0)), 0.0, 4.0).to(torch.int64)", 2.0, 0, 4, true));
  // A switch index that is often out of range: floor(x * 2) clamped to [-3, 5].
  ops.push_back(floorToInt("branch_index", "torch.clamp(torch.floor(torch.nan_to_num({0} * 2.0)), -3.0, 5.0).to(torch.int64)", 2.0, -3, 5, false));
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
  ops.back().type = reduceRule(false, true, /*identity=*/false);
  ops.push_back(reduction("amin", "torch.amin({0}, dim={dim}, keepdim={keepdim})", [](auto &x, int64_t d, bool k) { return at::amin(x, {d}, k); }));
  ops.back().type = reduceRule(false, true, /*identity=*/false);
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
  // ---- more comparisons and logic ----
  ops.push_back(compare("ge", "torch.ge({0}, {1})", [](auto &a, auto &b) { return at::ge(a, b); }));
  ops.push_back(compare("le", "torch.le({0}, {1})", [](auto &a, auto &b) { return at::le(a, b); }));
  auto boolRule = [](int n) {
    return [n](const Types &a, const Attrs &, Type &out) {
      Shape s = a[0].shape;
      for (int i = 0; i < n; ++i) {
        if (a[i].dtype != DType::b8) return "logical ops need bool operands, got " + typeToString(a[i]);
        auto b = broadcastShapes(s, a[i].shape);
        if (!b) return std::string("operands do not broadcast");
        s = *b;
      }
      out = {DType::b8, s};
      return std::string();
    };
  };
  ops.push_back(makeOp("logical_and", 2, {}, boolRule(2), [](const Args &a, const Attrs &, EvalCtx &) { return at::logical_and(a[0], a[1]); },
                       "torch.logical_and({0}, {1})", 0.4, false));
  ops.push_back(makeOp("logical_or", 2, {}, boolRule(2), [](const Args &a, const Attrs &, EvalCtx &) { return at::logical_or(a[0], a[1]); },
                       "torch.logical_or({0}, {1})", 0.4, false));
  ops.push_back(makeOp("logical_not", 1, {}, boolRule(1), [](const Args &a, const Attrs &, EvalCtx &) { return at::logical_not(a[0]); },
                       "torch.logical_not({0})", 0.4, false));

  // ---- more reductions and scans along a dim ----
  ops.push_back(reduction("prod", "torch.prod({0}, dim={dim}, keepdim={keepdim})", [](auto &x, int64_t d, bool k) { return at::prod(x, d, k); }));
  for (const char *name : {"any", "all"}) {
    bool isAny = std::string(name) == "any";
    OpDef op = makeOp(name, 1, {{"dim", AttrDomain::Dim}, {"keepdim", AttrDomain::Bool}}, reduceRule(false, false),
                      [isAny](const Args &a, const Attrs &at_, EvalCtx &) {
                        return isAny ? at::any(a[0], at_.getInt("dim"), at_.getBool("keepdim"))
                                     : at::all(a[0], at_.getInt("dim"), at_.getBool("keepdim"));
                      },
                      std::string("torch.") + name + "({0}, dim={dim}, keepdim={keepdim})", 0.4, false);
    auto base = op.type;
    op.type = [base](const Types &a, const Attrs &at_, Type &out) {
      if (a[0].dtype != DType::b8) return "any/all take bool here, got " + typeToString(a[0]);
      return base(a, at_, out);
    };
    ops.push_back(op);
  }
  auto alongDim = [&](std::string name, std::string py, std::function<at::Tensor(const at::Tensor &, int64_t)> f, double w) {
    return makeOp(std::move(name), 1, {{"dim", AttrDomain::Dim}}, sameType(true),
                  [f](const Args &a, const Attrs &at_, EvalCtx &) { return f(a[0], at_.getInt("dim")); }, std::move(py), w);
  };
  ops.push_back(alongDim("cumsum", "torch.cumsum({0}, dim={dim})", [](auto &x, int64_t d) { return at::cumsum(x, d); }, 0.7));
  ops.push_back(alongDim("cumprod", "torch.cumprod({0}, dim={dim})", [](auto &x, int64_t d) { return at::cumprod(x, d); }, 0.4));
  ops.push_back(alongDim("softmax", "torch.softmax({0}, dim={dim})", [](auto &x, int64_t d) { return at::softmax(x, d); }, 0.7));
  ops.push_back(alongDim("log_softmax", "torch.log_softmax({0}, dim={dim})", [](auto &x, int64_t d) { return at::log_softmax(x, d); }, 0.5));

  // ---- products with fixed ranks ----
  auto fixedRanks = [](int64_t ra, int64_t rb) {
    return [ra, rb](const Types &a, const Attrs &at_, Type &out) {
      if (a[0].rank() != ra || a[1].rank() != rb)
        return "needs operands of rank " + std::to_string(ra) + " and " + std::to_string(rb) + ", got " + typeToString(a[0]) +
               " and " + typeToString(a[1]);
      if (ra == 1 && rb == 1) { // outer
        if (a[0].dtype != a[1].dtype) return std::string("operands need equal dtypes");
        out = {a[0].dtype, {a[0].shape[0], a[1].shape[0]}};
        return std::string();
      }
      if (ra == 3 && a[0].shape[0] != a[1].shape[0]) return std::string("bmm batch sizes differ");
      return matmulType(a, at_, out);
    };
  };
  ops.push_back(makeOp("mm", 2, {}, fixedRanks(2, 2), [](const Args &a, const Attrs &, EvalCtx &) { return at::mm(a[0], a[1]); },
                       "torch.mm({0}, {1})", 0.7));
  ops.push_back(makeOp("bmm", 2, {}, fixedRanks(3, 3), [](const Args &a, const Attrs &, EvalCtx &) { return at::bmm(a[0], a[1]); },
                       "torch.bmm({0}, {1})", 0.5));
  ops.push_back(makeOp("outer", 2, {}, fixedRanks(1, 1), [](const Args &a, const Attrs &, EvalCtx &) { return at::outer(a[0], a[1]); },
                       "torch.outer({0}, {1})", 0.7));

  // ---- more views ----
  ops.push_back(makeOp("flatten", 1, {}, [](const Types &a, const Attrs &, Type &out) {
                         out = {a[0].dtype, {a[0].numel()}};
                         return std::string();
                       }, [](const Args &a, const Attrs &, EvalCtx &) { return at::flatten(a[0]); }, "torch.flatten({0})", 0.6, false, true));
  ops.push_back(makeOp("squeeze", 1, {{"dim", AttrDomain::Dim}}, [](const Types &a, const Attrs &at_, Type &out) {
                         out = a[0];
                         if (a[0].rank() > 0 && a[0].shape[dimOf(a[0], at_)] == 1) out.shape.erase(out.shape.begin() + dimOf(a[0], at_));
                         return std::string();
                       }, [](const Args &a, const Attrs &at_, EvalCtx &) { return at::squeeze(a[0], at_.getInt("dim")); },
                       "torch.squeeze({0}, {dim})", 0.6, false, true));
  ops.push_back(makeOp("movedim", 1, {{"dim", AttrDomain::Dim}, {"to", AttrDomain::Dim}}, [](const Types &a, const Attrs &at_, Type &out) {
                         out = a[0];
                         if (a[0].rank() == 0) return std::string();
                         int64_t from = dimOf(a[0], at_), to = dimOf(a[0], at_, "to");
                         int64_t size = out.shape[from];
                         out.shape.erase(out.shape.begin() + from);
                         out.shape.insert(out.shape.begin() + to, size);
                         return std::string();
                       }, [](const Args &a, const Attrs &at_, EvalCtx &) { return at::movedim(a[0], at_.getInt("dim"), at_.getInt("to")); },
                       "torch.movedim({0}, {dim}, {to})", 0.6, false, true));
  ops.push_back(makeOp("diagonal", 1, {{"dim", AttrDomain::Dim}, {"dim2", AttrDomain::Dim}}, [](const Types &a, const Attrs &at_, Type &out) {
                         if (a[0].rank() < 2) return "diagonal needs rank >= 2, got " + typeToString(a[0]);
                         int64_t d1 = dimOf(a[0], at_), d2 = dimOf(a[0], at_, "dim2");
                         if (d1 == d2) return std::string("diagonal needs two different dims");
                         out = a[0];
                         int64_t n = std::min(a[0].shape[d1], a[0].shape[d2]);
                         out.shape.erase(out.shape.begin() + std::max(d1, d2));
                         out.shape.erase(out.shape.begin() + std::min(d1, d2));
                         out.shape.push_back(n);
                         return std::string();
                       }, [](const Args &a, const Attrs &at_, EvalCtx &) { return at::diagonal(a[0], 0, at_.getInt("dim"), at_.getInt("dim2")); },
                       "torch.diagonal({0}, 0, {dim}, {dim2})", 0.5, false, true));
  auto atIndex = [](bool keepDim) {
    return [keepDim](const Types &a, const Attrs &at_, Type &out) {
      if (a[0].rank() == 0) return std::string("needs a tensor with dims");
      out = a[0];
      int64_t d = dimOf(a[0], at_);
      if (keepDim) out.shape[d] = 1;
      else out.shape.erase(out.shape.begin() + d);
      return std::string();
    };
  };
  ops.push_back(makeOp("select", 1, {{"dim", AttrDomain::Dim}, {"index", AttrDomain::SignedIndex}}, atIndex(false),
                       [](const Args &a, const Attrs &at_, EvalCtx &) { return a[0].select(at_.getInt("dim"), at_.getInt("index")); },
                       "torch.select({0}, {dim}, {index})", 0.6, false, true));
  ops.push_back(makeOp("narrow", 1, {{"dim", AttrDomain::Dim}, {"start", AttrDomain::Index}}, atIndex(true),
                       [](const Args &a, const Attrs &at_, EvalCtx &) { return a[0].narrow(at_.getInt("dim"), at_.getInt("start"), 1); },
                       "torch.narrow({0}, {dim}, {start}, 1)", 0.5, false, true));
  ops.push_back(makeOp("expand_as", 2, {}, [](const Types &a, const Attrs &, Type &out) {
                         auto b = broadcastShapes(a[0].shape, a[1].shape);
                         if (!b || *b != a[1].shape) return typeToString(a[0]) + " does not expand to " + typeToString(a[1]);
                         out = {a[0].dtype, a[1].shape};
                         return std::string();
                       }, [](const Args &a, const Attrs &, EvalCtx &) { return a[0].expand_as(a[1]); },
                       "{0}.expand_as({1})", 0.6, false, true));
  ops.back().shapeArgs = 1; // the target's shape only: vmap leaves the result unbatched where only it is batched

  // ---- indexing, joining ----
  ops.push_back(makeOp("index_select", 1, {{"dim", AttrDomain::Dim}, {"indices", AttrDomain::Indices}},
                       [](const Types &a, const Attrs &at_, Type &out) {
                         if (a[0].rank() == 0) return std::string("index_select needs a tensor with dims");
                         out = a[0];
                         out.shape[dimOf(a[0], at_)] = static_cast<int64_t>(at_.getInts("indices").size());
                         return std::string();
                       },
                       [](const Args &a, const Attrs &at_, EvalCtx &) {
                         return at::index_select(a[0], at_.getInt("dim"), at::tensor(at_.getInts("indices"), at::kLong));
                       },
                       "torch.index_select({0}, {dim}, torch.tensor({indices}))", 0.6, false));
  ops.push_back(makeOp("cat", 2, {{"dim", AttrDomain::Dim}}, [](const Types &a, const Attrs &at_, Type &out) {
                         if (a[0].rank() == 0 || a[0].rank() != a[1].rank() || a[0].dtype != a[1].dtype)
                           return "cat needs equal ranks (>= 1) and dtypes, got " + typeToString(a[0]) + " and " + typeToString(a[1]);
                         int64_t d = dimOf(a[0], at_);
                         for (int64_t i = 0; i < a[0].rank(); ++i)
                           if (i != d && a[0].shape[i] != a[1].shape[i]) return std::string("cat: other dims differ");
                         out = a[0];
                         out.shape[d] += a[1].shape[d];
                         return std::string();
                       }, [](const Args &a, const Attrs &at_, EvalCtx &) { return at::cat({a[0], a[1]}, at_.getInt("dim")); },
                       "torch.cat(({0}, {1}), dim={dim})", 0.7, false));
  ops.push_back(makeOp("stack", 2, {{"dim", AttrDomain::NewDim}}, [](const Types &a, const Attrs &at_, Type &out) {
                         if (a[0] != a[1]) return "stack needs equal types, got " + typeToString(a[0]) + " and " + typeToString(a[1]);
                         out = a[0];
                         out.shape.insert(out.shape.begin() + *wrapDim(at_.getInt("dim"), a[0].rank() + 1), 2);
                         return std::string();
                       }, [](const Args &a, const Attrs &at_, EvalCtx &) { return at::stack({a[0], a[1]}, at_.getInt("dim")); },
                       "torch.stack(({0}, {1}), dim={dim})", 0.7, false));

  ops.push_back(makeOp("reshape", 1, {{"shape", AttrDomain::Shape}}, [](const Types &a, const Attrs &at_, Type &out) {
                         auto l = at_.getInts("shape");
                         out = {a[0].dtype, Shape(l.begin(), l.end())};
                         return std::string();
                       }, [](const Args &a, const Attrs &at_, EvalCtx &) { return at::reshape(a[0], at_.getInts("shape")); },
                       "torch.reshape({0}, {shape})", 0.6, false, true));
  // expand: a new leading dim of size `count`, and every size-1 dim kept (expand(count, -1, ...)).
  ops.push_back(makeOp("expand", 1, {{"count", AttrDomain::Count}}, [](const Types &a, const Attrs &at_, Type &out) {
                         out = a[0];
                         out.shape.insert(out.shape.begin(), at_.getInt("count"));
                         return std::string();
                       }, [](const Args &a, const Attrs &at_, EvalCtx &) {
                         std::vector<int64_t> sizes(a[0].dim() + 1, -1);
                         sizes[0] = at_.getInt("count");
                         return a[0].expand(sizes);
                       }, "{0}.expand({count}, *{0}.shape)", 0.5, false, true));
  // slice with a step: every `step`-th element from `start` along `dim`.
  ops.push_back(makeOp("slice", 1, {{"dim", AttrDomain::Dim}, {"start", AttrDomain::Index}, {"step", AttrDomain::Count}},
                       [](const Types &a, const Attrs &at_, Type &out) {
                         if (a[0].rank() == 0) return std::string("slice needs a tensor with dims");
                         out = a[0];
                         int64_t d = dimOf(a[0], at_), n = a[0].shape[d] - at_.getInt("start"), step = at_.getInt("step");
                         out.shape[d] = n <= 0 ? 0 : (n + step - 1) / step;
                         return std::string();
                       },
                       [](const Args &a, const Attrs &at_, EvalCtx &) {
                         return a[0].slice(at_.getInt("dim"), at_.getInt("start"), INT64_MAX, at_.getInt("step"));
                       },
                       "torch.ops.aten.slice.Tensor({0}, {dim}, {start}, None, {step})", 0.5, false, true));
  // chunk / split: one of the pieces, by `index` (an op yields one value).
  auto pieceType = [](bool isChunk) {
    return [isChunk](const Types &a, const Attrs &at_, Type &out) {
      if (a[0].rank() == 0) return std::string("needs a tensor with dims");
      int64_t d = dimOf(a[0], at_), size = a[0].shape[d], k = at_.getInt(isChunk ? "chunks" : "size");
      int64_t piece = isChunk ? (size + k - 1) / k : k;
      int64_t pieces = piece == 0 ? 0 : (size + piece - 1) / piece;
      int64_t index = at_.getInt("index");
      if (index >= pieces) return "only " + std::to_string(pieces) + " pieces";
      out = a[0];
      out.shape[d] = std::min(piece, size - index * piece);
      return std::string();
    };
  };
  ops.push_back(makeOp("chunk", 1, {{"dim", AttrDomain::Dim}, {"chunks", AttrDomain::Count}, {"index", AttrDomain::Index}}, pieceType(true),
                       [](const Args &a, const Attrs &at_, EvalCtx &) {
                         return at::chunk(a[0], at_.getInt("chunks"), at_.getInt("dim")).at(at_.getInt("index"));
                       },
                       "torch.chunk({0}, {chunks}, dim={dim})[{index}]", 0.5, false, true));
  ops.push_back(makeOp("split", 1, {{"dim", AttrDomain::Dim}, {"size", AttrDomain::Count}, {"index", AttrDomain::Index}}, pieceType(false),
                       [](const Args &a, const Attrs &at_, EvalCtx &) {
                         return at::split(a[0], at_.getInt("size"), at_.getInt("dim")).at(at_.getInt("index"));
                       },
                       "torch.split({0}, {size}, dim={dim})[{index}]", 0.5, false, true));
  // gather along `dim` with the index reversing that dim: out[..., i, ...] = x[..., n-1-i, ...].
  ops.push_back(makeOp("gather_reversed", 1, {{"dim", AttrDomain::Dim}}, [](const Types &a, const Attrs &, Type &out) {
                         if (a[0].rank() == 0) return std::string("gather needs a tensor with dims");
                         out = a[0];
                         return std::string();
                       }, [](const Args &a, const Attrs &at_, EvalCtx &) {
                         int64_t d = at_.getInt("dim");
                         auto idx = at::flip(at::arange(a[0].size(d), at::kLong), {0});
                         std::vector<int64_t> view(a[0].dim(), 1);
                         view[*wrapDim(d, a[0].dim())] = a[0].size(d);
                         return at::gather(a[0], d, idx.view(view).expand(a[0].sizes()).contiguous());
                       },
                       "torch.gather({0}, {dim}, torch.flip(torch.arange({0}.shape[{dim}]), [0]).view([-1 if i == {dim} % {0}.dim() else 1 for i in range({0}.dim())]).expand({0}.shape))",
                       0.4, false));

  // ---- clamping, rounding, casts, constructors ----
  ops.push_back(withKinks(makeOp("clamp", 1, {}, sameType(true), [](const Args &a, const Attrs &, EvalCtx &) { return at::clamp(a[0], -0.5, 0.5); },
                                 "torch.clamp({0}, -0.5, 0.5)", 0.6),
                          [](const Args &a, EvalCtx &ctx) {
                            noteKink(a[0], -0.5, ctx);
                            noteKink(a[0], 0.5, ctx);
                          }));
  ops.push_back(makeOp("floor", 1, {}, sameType(true), [](const Args &a, const Attrs &, EvalCtx &ctx) {
                         noteRounding(a[0], 0.0, ctx);
                         return at::floor(a[0]);
                       }, "torch.floor({0})", 0.4));
  ops.push_back(makeOp("round", 1, {}, sameType(true), [](const Args &a, const Attrs &, EvalCtx &ctx) {
                         noteRounding(a[0], 0.5, ctx);
                         return at::round(a[0]);
                       }, "torch.round({0})", 0.4));
  auto castTo = [](DType to) {
    return [to](const Types &a, const Attrs &, Type &out) {
      out = {to, a[0].shape};
      return std::string();
    };
  };
  ops.push_back(makeOp("to_f64", 1, {}, castTo(DType::f64), [](const Args &a, const Attrs &, EvalCtx &) { return a[0].to(at::kDouble); },
                       "{0}.to(torch.float64)", 0.4, false, /*view: same dtype returns self*/ true));
  ops.push_back(makeOp("to_f32", 1, {}, castTo(DType::f32), [](const Args &a, const Attrs &, EvalCtx &) { return a[0].to(at::kFloat); },
                       "{0}.to(torch.float32)", 0.6, false, /*view: same dtype returns self*/ true));
  ops.push_back(makeOp("zeros_like", 1, {}, sameType(false), [](const Args &a, const Attrs &, EvalCtx &) { return at::zeros_like(a[0]); },
                       "torch.zeros_like({0})", 0.3, false));
  ops.push_back(makeOp("ones_like", 1, {}, sameType(false), [](const Args &a, const Attrs &, EvalCtx &) { return at::ones_like(a[0]); },
                       "torch.ones_like({0})", 0.3, false));

  // ---- in-place updates of a scan's buffers (OpDef::inplace; made by the scan generator) ----
  ops.push_back(inplaceOp("add_", true, [](const at::Tensor &b, const at::Tensor &v) { return at::add(b, v); }));
  ops.push_back(inplaceOp("mul_", true, [](const at::Tensor &b, const at::Tensor &v) { return at::mul(b, v); }));
  ops.push_back(inplaceOp("copy_", false, [](const at::Tensor &b, const at::Tensor &v) { return v.to(b.scalar_type()).expand(b.sizes()).clone(); }));
  return ops;
}

} // namespace

const std::vector<OpDef> &allOps() {
  static const std::vector<OpDef> ops = buildOps();
  return ops;
}

} // namespace vf
