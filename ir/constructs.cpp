#include "ir/constructs.h"

#include <algorithm>
#include <stdexcept>

namespace vf {

namespace {

std::string typesText(const std::vector<Type> &ts) {
  std::string s = "(";
  for (size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + typeToString(ts[i]);
  return s + ")";
}

bool oneElement(const Type &t) { return t.numel() == 1; }

/// Every region must yield what region 0 yields.
std::string sameYields(const std::vector<std::vector<Type>> &yields, const char *what) {
  for (size_t r = 1; r < yields.size(); ++r)
    if (yields[r] != yields[0])
      return std::string(what) + " " + std::to_string(r) + " yields " + typesText(yields[r]) + " but " + what + " 0 yields " +
             typesText(yields[0]);
  return "";
}

int64_t ncarry(const Stmt &s) {
  const Attr *a = s.attrs.find("ncarry");
  return a && std::holds_alternative<int64_t>(*a) ? std::get<int64_t>(*a) : -1;
}

std::string noAttrs(const Stmt &s) { return s.attrs.items.empty() ? "" : s.op + " takes no attributes"; }

// ---- cond ---------------------------------------------------------------------------------

std::string condRegion(size_t i) { return i == 0 ? "then-branch" : "else-branch"; }

std::string condParams(const Stmt &s, const std::vector<Type> &args, std::vector<std::vector<Type>> &params) {
  if (s.attrs.find("pred")) {
    // A Python bool predicate: no predicate tensor, every argument is an operand.
    if (!std::holds_alternative<bool>(*s.attrs.find("pred")) || s.attrs.items.size() != 1)
      return "cond takes only {pred=true|false} as attributes";
    if (s.regions.size() != 2) return "cond needs exactly 2 regions (then, else)";
    params.assign(2, args);
    return "";
  }
  if (auto e = noAttrs(s); !e.empty()) return e;
  if (args.empty()) return "cond needs a predicate";
  if (args[0].dtype != DType::b8 || !oneElement(args[0]))
    return "cond predicate must be a one-element bool tensor, got " + typeToString(args[0]);
  if (s.regions.size() != 2) return "cond needs exactly 2 regions (then, else)";
  params.assign(2, std::vector<Type>(args.begin() + 1, args.end()));
  return "";
}

/// cond and switch: every branch yields the same, at least one value.
std::string branchResults(const Stmt &s, const std::vector<Type> &, const std::vector<std::vector<Type>> &yields,
                          std::vector<Type> &results) {
  if (auto e = sameYields(yields, "branch"); !e.empty()) return e;
  results = yields[0];
  if (results.empty()) return s.op + " branches must yield at least one value";
  return "";
}

// ---- switch -------------------------------------------------------------------------------

std::string switchRegion(size_t i) { return "branch " + std::to_string(i); }

std::string switchParams(const Stmt &s, const std::vector<Type> &args, std::vector<std::vector<Type>> &params) {
  if (auto e = noAttrs(s); !e.empty()) return e;
  if (args.empty()) return "switch needs an index";
  if (!isIntegral(args[0].dtype) || !oneElement(args[0]))
    return "switch index must be a one-element integer tensor, got " + typeToString(args[0]);
  if (s.regions.empty()) return "switch needs at least one branch";
  params.assign(s.regions.size(), std::vector<Type>(args.begin() + 1, args.end()));
  return "";
}

// ---- while_loop ---------------------------------------------------------------------------

std::string whileRegion(size_t i) { return i == 0 ? "cond_fn" : "body_fn"; }

std::string whileParams(const Stmt &s, const std::vector<Type> &args, std::vector<std::vector<Type>> &params) {
  if (auto e = noAttrs(s); !e.empty()) return e;
  if (args.empty()) return "while_loop needs at least one carried value";
  if (s.regions.size() != 2) return "while_loop needs exactly 2 regions (cond_fn, body_fn)";
  params.assign(2, args);
  return "";
}

std::string whileResults(const Stmt &, const std::vector<Type> &args, const std::vector<std::vector<Type>> &yields,
                         std::vector<Type> &results) {
  if (yields[0].size() != 1 || yields[0][0].dtype != DType::b8 || !oneElement(yields[0][0]))
    return "while_loop cond_fn must yield one one-element bool, got " + typesText(yields[0]);
  if (yields[1] != args) return "while_loop body_fn yields " + typesText(yields[1]) + " but the carries are " + typesText(args);
  results = args;
  return "";
}

// ---- scan ---------------------------------------------------------------------------------

std::string scanRegion(size_t) { return "combine_fn"; }

/// `nbuf`, or 0 when absent; -1 when malformed.
int64_t nbuf(const Stmt &s) {
  const Attr *a = s.attrs.find("nbuf");
  if (!a) return 0;
  return std::holds_alternative<int64_t>(*a) ? std::get<int64_t>(*a) : -1;
}

std::string scanParams(const Stmt &s, const std::vector<Type> &args, std::vector<std::vector<Type>> &params) {
  int64_t k = ncarry(s), m = nbuf(s);
  const Attr *rev = s.attrs.find("reverse");
  if (k < 1 || !rev || !std::holds_alternative<bool>(*rev) || m < 0 || s.attrs.items.size() != (s.attrs.find("nbuf") ? 3u : 2u) ||
      (s.attrs.find("nbuf") && m == 0))
    return "scan needs attributes {ncarry=K (>= 1), reverse=true|false} and optionally nbuf=M (>= 1)";
  if (static_cast<int64_t>(args.size()) <= k + m)
    return "scan needs " + std::to_string(k) + " carries and at least one xs" +
           (m > 0 ? " and " + std::to_string(m) + " buffers" : "");
  if (s.regions.size() != 1) return "scan needs exactly 1 region (combine_fn)";
  std::vector<Type> p(args.begin(), args.begin() + k);
  int64_t len = -1;
  const size_t firstBuf = args.size() - static_cast<size_t>(m);
  for (size_t i = k; i < firstBuf; ++i) {
    if (args[i].rank() == 0) return "scan xs must have a dim to scan over, got " + typeToString(args[i]);
    if (len >= 0 && args[i].shape[0] != len)
      return "scan xs have different lengths: " + std::to_string(len) + " and " + std::to_string(args[i].shape[0]);
    len = args[i].shape[0];
    Type slice = args[i];
    slice.shape.erase(slice.shape.begin());
    p.push_back(slice);
  }
  p.insert(p.end(), args.begin() + firstBuf, args.end());
  params.push_back(p);
  return "";
}

std::string scanResults(const Stmt &s, const std::vector<Type> &args, const std::vector<std::vector<Type>> &yields,
                        std::vector<Type> &results) {
  size_t k = static_cast<size_t>(ncarry(s)), m = static_cast<size_t>(nbuf(s));
  std::vector<Type> carries(args.begin(), args.begin() + k), bufs(args.end() - m, args.end());
  if (yields[0].size() < k + m || std::vector<Type>(yields[0].begin(), yields[0].begin() + k) != carries)
    return "scan combine_fn must yield the carries " + typesText(carries) + " first, got " + typesText(yields[0]);
  if (std::vector<Type>(yields[0].end() - m, yields[0].end()) != bufs)
    return "scan combine_fn must yield the buffers " + typesText(bufs) + " last, got " + typesText(yields[0]);
  results = carries;
  for (size_t i = k; i + m < yields[0].size(); ++i) {
    Type y = yields[0][i];
    y.shape.insert(y.shape.begin(), args[k].shape[0]);
    results.push_back(y);
  }
  results.insert(results.end(), bufs.begin(), bufs.end());
  return "";
}

// ---- vmap ---------------------------------------------------------------------------------

std::string vmapRegion(size_t) { return "the vmapped function"; }

/// The dim an in_dim names in an operand of rank `rank`: a 0-d operand has none to map
/// (unlike wrapDim, which lets 0-d tensors use dim 0 as torch's ops do).
std::optional<int64_t> mappedDim(int64_t d, int64_t rank) { return rank == 0 ? std::nullopt : wrapDim(d, rank); }

const IntList *intListAttr(const Stmt &s, const char *name) {
  const Attr *a = s.attrs.find(name);
  return a && std::holds_alternative<IntList>(*a) ? &std::get<IntList>(*a) : nullptr;
}

std::string vmapParams(const Stmt &s, const std::vector<Type> &args, std::vector<std::vector<Type>> &params) {
  const IntList *in = intListAttr(s, "in_dims"), *out = intListAttr(s, "out_dims");
  if (!in || !out || s.attrs.items.size() != 2) return "vmap needs attributes {in_dims=[D|None, ...], out_dims=[O, ...]}";
  if (args.empty()) return "vmap needs at least one operand";
  if (in->size() != args.size())
    return "vmap has " + std::to_string(args.size()) + " operands but " + std::to_string(in->size()) + " in_dims";
  if (s.regions.size() != 1) return "vmap needs exactly 1 region (the vmapped function)";
  std::vector<Type> p;
  int64_t n = -1;
  for (size_t i = 0; i < args.size(); ++i) {
    Type t = args[i];
    if ((*in)[i] != kNoneDim) {
      const auto dim = mappedDim((*in)[i], t.rank());
      if (!dim) return "vmap in_dim " + std::to_string((*in)[i]) + " is out of range for operand " + std::to_string(i) + " " + typeToString(t);
      if (n >= 0 && t.shape[*dim] != n)
        return "vmap's mapped operands have different sizes: " + std::to_string(n) + " and " + std::to_string(t.shape[*dim]);
      n = t.shape[*dim];
      t.shape.erase(t.shape.begin() + *dim);
    }
    p.push_back(t);
  }
  if (n < 0) return "vmap needs at least one mapped operand (an in_dim that is not None)";
  if (n == 0) return "vmap's mapped size must be at least 1";
  params.push_back(p);
  return "";
}

std::string vmapResults(const Stmt &s, const std::vector<Type> &args, const std::vector<std::vector<Type>> &yields,
                        std::vector<Type> &results) {
  const IntList &out = *intListAttr(s, "out_dims");
  if (yields[0].empty()) return "vmap's function must yield at least one value";
  if (out.size() != yields[0].size())
    return "vmap's function yields " + std::to_string(yields[0].size()) + " values but it has " + std::to_string(out.size()) + " out_dims";
  const int64_t n = vmapSize(s, args);
  for (size_t o = 0; o < out.size(); ++o) {
    Type t = yields[0][o];
    const auto dim = out[o] == kNoneDim ? std::nullopt : wrapDim(out[o], t.rank() + 1);
    if (!dim) return "vmap out_dim " + std::to_string(out[o]) + " is out of range for a result " + typeToString(t);
    t.shape.insert(t.shape.begin() + *dim, n);
    results.push_back(t);
  }
  return "";
}

// ---- grad ---------------------------------------------------------------------------------

std::string gradRegion(size_t) { return "the differentiated function"; }

std::string gradParams(const Stmt &s, const std::vector<Type> &args, std::vector<std::vector<Type>> &params) {
  const IntList *argnums = intListAttr(s, "argnums");
  if (!argnums || s.attrs.items.size() != 1 || argnums->empty()) return "grad needs the attribute {argnums=[I, ...]} (at least one)";
  if (args.empty()) return "grad needs at least one operand";
  if (s.regions.size() != 1) return "grad needs exactly 1 region (the differentiated function)";
  for (size_t k = 0; k < argnums->size(); ++k) {
    const int64_t i = (*argnums)[k];
    if (i < 0 || i >= static_cast<int64_t>(args.size()))
      return "grad argnum " + std::to_string(i) + " is out of range for " + std::to_string(args.size()) + " operands";
    if (k > 0 && i <= (*argnums)[k - 1]) return "grad's argnums must be increasing";
    if (!isFloating(args[static_cast<size_t>(i)].dtype))
      return "grad argnum " + std::to_string(i) + " is not floating: " + typeToString(args[static_cast<size_t>(i)]);
  }
  params.push_back(args);
  return "";
}

std::string gradResults(const Stmt &s, const std::vector<Type> &args, const std::vector<std::vector<Type>> &yields,
                        std::vector<Type> &results) {
  if (yields[0].size() != 1 || yields[0][0].rank() != 0 || !isFloating(yields[0][0].dtype))
    return "grad's function must yield exactly one 0-d floating value";
  for (int64_t i : *intListAttr(s, "argnums")) results.push_back(args[static_cast<size_t>(i)]);
  return "";
}

// ---- jvp ----------------------------------------------------------------------------------

std::string jvpRegion(size_t) { return "the function pushed forward"; }

std::string jvpParams(const Stmt &s, const std::vector<Type> &args, std::vector<std::vector<Type>> &params) {
  if (!s.attrs.items.empty()) return "jvp takes no attributes";
  if (args.empty() || args.size() % 2 != 0) return "jvp needs primals and as many tangents (an even number of operands, at least 2)";
  if (s.regions.size() != 1) return "jvp needs exactly 1 region (the function pushed forward)";
  const size_t k = args.size() / 2;
  for (size_t i = 0; i < k; ++i) {
    if (!isFloating(args[i].dtype)) return "jvp primal " + std::to_string(i) + " is not floating: " + typeToString(args[i]);
    if (args[k + i] != args[i])
      return "jvp tangent " + std::to_string(i) + " " + typeToString(args[k + i]) + " does not match its primal " + typeToString(args[i]);
  }
  params.push_back({args.begin(), args.begin() + static_cast<std::ptrdiff_t>(k)});
  return "";
}

std::string jvpResults(const Stmt &, const std::vector<Type> &, const std::vector<std::vector<Type>> &yields, std::vector<Type> &results) {
  if (yields[0].empty()) return "jvp's function must yield at least one value";
  for (const auto &t : yields[0])
    if (!isFloating(t.dtype)) return "jvp's function may only yield floating values, not " + typeToString(t);
  results = yields[0];
  results.insert(results.end(), yields[0].begin(), yields[0].end());
  return "";
}

// torch.vmap inside the program, in every mode. `per_example` sets _VMAP_AS_LOOPS while it
// runs: each example alone then runs the program's own vmaps as loops, so that torch's per-example
// run stays free of vmap (it is what a disagreement with the reference is checked against).
const char *kVmapHelper =
    "_VMAP_AS_LOOPS = False\n"
    "\n"
    "\n"
    "def _vmap(fn, in_dims, out_dims):\n"
    "    \"\"\"torch.vmap inside the program; a Python loop over the slices while _VMAP_AS_LOOPS is set.\"\"\"\n"
    "    if not _VMAP_AS_LOOPS:\n"
    "        return torch.vmap(fn, in_dims=in_dims, out_dims=out_dims)\n"
    "\n"
    "    def loop(*args):\n"
    "        n = next(a.size(d) for a, d in zip(args, in_dims) if d is not None)\n"
    "        outs = [fn(*[a if d is None else a.select(d, b) for a, d in zip(args, in_dims)]) for b in range(n)]\n"
    "        return tuple(torch.stack(o, dim=d) for o, d in zip(zip(*outs), out_dims))\n"
    "\n"
    "    return loop\n";

// ---- direct mode's helpers (Python) --------------------------------------------------------
// Each does what the public wrapper does before it calls the op (the eager short-cut for a
// Python-bool predicate, the index clamp, reverse as flips), then calls the op itself.

const char *kCondHelper =
    "def _cond(pred, true_fn, false_fn, operands):\n"
    "    \"\"\"torch.cond without dynamo: a Python bool runs its branch eagerly (as torch.cond does).\"\"\"\n"
    "    if isinstance(pred, bool):\n"
    "        return (true_fn if pred else false_fn)(*operands)\n"
    "    return cond_op(pred, true_fn, false_fn, tuple(operands))\n";

const char *kSwitchHelper =
    "def _switch(index, branches, operands):\n"
    "    \"\"\"switch without dynamo: the index is clamped into range, as switch() does.\"\"\"\n"
    "    if len(branches) == 1:\n"
    "        return branches[0](*operands)\n"
    "    return switch_op(index.clamp(0, len(branches) - 1), tuple(branches), tuple(operands))\n";

const char *kWhileHelper =
    "def _while_loop(cond_fn, body_fn, carries, additional_inputs):\n"
    "    \"\"\"torch.while_loop without dynamo: cond_fn and body_fn take (*carries, *additional_inputs).\"\"\"\n"
    "    return while_loop_op(cond_fn, body_fn, tuple(carries), tuple(additional_inputs))\n";

const char *kScanHelper =
    "def _scan(combine_fn, init, xs, additional_inputs, reverse, mutated_arg_indices=\"\"):\n"
    "    \"\"\"scan without dynamo: scan_op always runs forward over dim 0, so reverse flips the xs\n"
    "    before and the ys after, as scan() does. Returns (*final_carries, *stacked_ys).\n"
    "    mutated_arg_indices: the additional inputs combine_fn updates in place, as indices into\n"
    "    (*init, *xs, *additional_inputs) joined by commas, the way dynamo passes them.\"\"\"\n"
    "    if not init:\n"
    "        raise RuntimeError(\"scan() operator requires init leaves.\")\n"
    "    if reverse:\n"
    "        xs = [x.flip([0]) for x in xs]\n"
    "    if \"dim\" in inspect.signature(type(scan_op).__call__).parameters:\n"
    "        # torch 2.6: scan_op(combine_fn, init, xs, dim, reverse, additional_inputs), no\n"
    "        # in-place buffers; the reverse is done here as above\n"
    "        out = scan_op(combine_fn, list(init), list(xs), 0, False, list(additional_inputs))\n"
    "    else:\n"
    "        kwargs = {\"mutated_arg_indices\": mutated_arg_indices} if mutated_arg_indices else {}\n"
    "        out = scan_op(combine_fn, list(init), list(xs), tuple(additional_inputs), **kwargs)\n"
    "    carries, ys = tuple(out[:len(init)]), tuple(out[len(init):])\n"
    "    if reverse:\n"
    "        ys = tuple(y.flip([0]) for y in ys)\n"
    "    return carries + ys\n";

} // namespace

int64_t vmapSize(const Stmt &s, const std::vector<Type> &args) {
  const IntList *in = intListAttr(s, "in_dims");
  if (!in || in->size() != args.size()) return -1;
  for (size_t i = 0; i < args.size(); ++i)
    if ((*in)[i] != kNoneDim)
      if (const auto dim = mappedDim((*in)[i], args[i].rank())) return args[i].shape[*dim];
  return -1;
}

std::vector<std::optional<int64_t>> vmapInDims(const Stmt &s) {
  std::vector<std::optional<int64_t>> out;
  if (const IntList *in = intListAttr(s, "in_dims"))
    for (int64_t d : *in) out.push_back(d == kNoneDim ? std::nullopt : std::optional<int64_t>(d));
  return out;
}

std::vector<size_t> gradArgnums(const Stmt &s) {
  std::vector<size_t> out;
  if (const IntList *a = intListAttr(s, "argnums"))
    for (int64_t i : *a) out.push_back(static_cast<size_t>(std::max<int64_t>(i, 0)));
  return out;
}

ScanParts scanParts(const Stmt &s) {
  ScanParts p;
  p.carries = static_cast<size_t>(std::max<int64_t>(ncarry(s), 0));
  p.bufs = static_cast<size_t>(std::max<int64_t>(nbuf(s), 0));
  p.xs = s.args.size() >= p.carries + p.bufs ? s.args.size() - p.carries - p.bufs : 0;
  return p;
}

const std::vector<ConstructDef> &constructRegistry() {
  static const std::vector<ConstructDef> r = {
      {.kind = ConstructKind::Cond, .name = "cond", .knob = "cond", .weight = 4, .selector = "predicate", .selectorFeature = "pred",
       .coverageRows = {"cond-no-operands", "pred-input", "pred-input-at-dim>0"}, .regionName = condRegion, .params = condParams, .results = branchResults, .publicImport = "",
       .directImport = "from torch._higher_order_ops.cond import cond_op", .directHelper = kCondHelper},
      {.kind = ConstructKind::Switch, .name = "switch", .knob = "switch", .weight = 2, .selector = "index",
       .selectorFeature = "switch-index", .coverageRows = {"switch-index-input", "switch-index-input-at-dim>0"}, .regionName = switchRegion, .params = switchParams, .results = branchResults,
       .publicImport = "from torch._higher_order_ops.switch import switch",
       .directImport = "from torch._higher_order_ops.switch import switch_op", .directHelper = kSwitchHelper},
      {.kind = ConstructKind::WhileLoop, .name = "while_loop", .knob = "while", .weight = 2, .selector = "", .selectorFeature = "",
       .coverageRows = {}, .regionName = whileRegion, .params = whileParams, .results = whileResults, .publicImport = "",
       .directImport = "from torch._higher_order_ops.while_loop import while_loop_op", .directHelper = kWhileHelper},
      {.kind = ConstructKind::Scan, .name = "scan", .knob = "scan", .weight = 2, .selector = "", .selectorFeature = "",
       .coverageRows = {"scan-inplace-buffer"}, .regionName = scanRegion, .params = scanParams, .results = scanResults,
       .publicImport = "from torch._higher_order_ops.scan import scan",
       .directImport = "import inspect\nfrom torch._higher_order_ops.scan import scan_op", .directHelper = kScanHelper},
      // torch.vmap inside the program: levels interleaved with control flow (issue 28). The same
      // call in every mode (it is the front end, not a higher-order op called directly).
      {.kind = ConstructKind::Vmap, .name = "vmap", .knob = "vmap", .weight = 2, .selector = "", .selectorFeature = "",
       .coverageRows = {"vmap-in-branch-or-body", "vmap-unmapped-operand", "vmap-output-unmapped"}, .regionName = vmapRegion, .params = vmapParams,
       .results = vmapResults, .publicImport = "", .directImport = "", .directHelper = "", .helper = kVmapHelper, .transform = true},
      // torch.func.grad inside the program: per-example gradients inside batched control flow,
      // and control flow under a gradient transform (issue 28). The same call in every mode.
      {.kind = ConstructKind::Grad, .name = "grad", .knob = "grad", .weight = 1, .selector = "", .selectorFeature = "",
       .coverageRows = {"grad-in-branch-or-body", "grad-of-control-flow", "grad-in-vmap"}, .regionName = gradRegion, .params = gradParams,
       .results = gradResults, .publicImport = "", .directImport = "", .directHelper = "", .transform = true},
      // torch.func.jvp inside the program: forward-mode derivatives, tangents computed by the
      // program itself (issue 28). The same call in every mode.
      {.kind = ConstructKind::Jvp, .name = "jvp", .knob = "jvp", .weight = 1, .selector = "", .selectorFeature = "",
       .coverageRows = {"jvp-in-branch-or-body", "jvp-of-control-flow", "jvp-in-vmap"}, .regionName = jvpRegion, .params = jvpParams,
       .results = jvpResults, .publicImport = "", .directImport = "", .directHelper = "", .transform = true},
  };
  return r;
}

const ConstructDef *findConstruct(const std::string &op) {
  for (const auto &d : constructRegistry())
    if (d.name == op) return &d;
  return nullptr;
}

const ConstructDef &constructOf(const Stmt &s) {
  if (const ConstructDef *d = findConstruct(s.op)) return *d;
  throw std::logic_error("'" + s.op + "' is not a construct");
}

const ConstructDef &constructDef(ConstructKind k) {
  for (const auto &d : constructRegistry())
    if (d.kind == k) return d;
  throw std::logic_error("construct kind missing from the registry");
}

const std::vector<std::string> &constructNames() {
  static const std::vector<std::string> n = [] {
    std::vector<std::string> v;
    for (const auto &d : constructRegistry()) v.push_back(d.name);
    return v;
  }();
  return n;
}

bool isConstruct(const std::string &op) { return findConstruct(op) != nullptr; }

std::string constructParams(const Stmt &s, const std::vector<Type> &args, std::vector<std::vector<Type>> &params) {
  params.clear();
  const ConstructDef *d = findConstruct(s.op);
  return d ? d->params(s, args, params) : "unknown construct '" + s.op + "'";
}

std::string constructResults(const Stmt &s, const std::vector<Type> &args, const std::vector<std::vector<Type>> &yields,
                             std::vector<Type> &results) {
  results.clear();
  const ConstructDef *d = findConstruct(s.op);
  return d ? d->results(s, args, yields, results) : "unknown construct '" + s.op + "'";
}

} // namespace vf
