// The plan of each control-flow construct (python_program.h): its regions as functions and the
// call of the op, for the public API (torch.cond, switch, torch.while_loop, scan, torch.vmap, torch.func.grad, torch.func.jvp) and for
// direct mode (the registry's `_cond`, `_switch`, `_while_loop`, `_scan` helpers, captured
// values lifted into trailing operands).
#include "harness/backends/torch/python_program.h"

#include "ir/constructs.h"

namespace vf {
namespace {

std::vector<std::string> concat(std::vector<std::string> xs, const std::vector<std::string> &ys) {
  xs.insert(xs.end(), ys.begin(), ys.end());
  return xs;
}

std::vector<std::string> resultNames(const Stmt &s) {
  std::vector<std::string> out;
  for (const auto &r : s.results) out.push_back("v" + std::to_string(r.id));
  return out;
}

} // namespace

ConstructPlan ProgramEmitter::plan(const Stmt &s, const std::vector<std::string> &args,
                                   const std::vector<std::string> &lifted) const {
  const std::string tag = std::to_string(s.results.front().id);
  const std::string target = pyUnpack(resultNames(s));
  ConstructPlan p;
  switch (constructOf(s).kind) {
  case ConstructKind::Cond: {
    p.regions = {region("true_fn_" + tag, s.regions[0], {}, lifted), region("false_fn_" + tag, s.regions[1], {}, lifted)};
    const bool pythonBool = s.attrs.find("pred") != nullptr;
    const std::string pred = pythonBool ? pyBool(s.attrs.getBool("pred")) : args[0];
    const std::vector<std::string> operands(args.begin() + (pythonBool ? 0 : 1), args.end());
    p.call = target + " = " +
             pyCall(direct_ ? "_cond" : "torch.cond", {pred, p.regions[0].name, p.regions[1].name, pyTuple(concat(operands, lifted))});
    break;
  }
  case ConstructKind::Switch: {
    std::vector<std::string> branches;
    for (size_t k = 0; k < s.regions.size(); ++k) {
      p.regions.push_back(region("branch_" + tag + "_" + std::to_string(k), s.regions[k], {}, lifted));
      branches.push_back(p.regions.back().name);
    }
    const std::vector<std::string> operands(args.begin() + 1, args.end());
    p.call = target + " = " + pyCall(direct_ ? "_switch" : "switch", {args[0], pyTuple(branches), pyTuple(concat(operands, lifted))});
    break;
  }
  case ConstructKind::WhileLoop: {
    p.regions = {region("cond_fn_" + tag, s.regions[0], {.ret = Ret::Single}, lifted),
                 region("body_fn_" + tag, s.regions[1], {.carries = s.regions[1].yields.size()}, lifted)};
    std::vector<std::string> callArgs = {p.regions[0].name, p.regions[1].name, pyTuple(contiguous(args))};
    if (direct_) callArgs.push_back(pyTuple(lifted));
    p.call = target + " = " + pyCall(direct_ ? "_while_loop" : "torch.while_loop", callArgs);
    break;
  }
  case ConstructKind::Scan: return scanPlan(s, args, lifted);
  case ConstructKind::Vmap: {
    // torch.vmap itself in every mode, through the registry's `_vmap` (a loop in per_example);
    // captured values stay closures (vmap takes them as they are: unmapped here, batched at
    // whatever level made them).
    p.regions = {region("vmap_fn_" + tag, s.regions[0], {}, {})};
    std::vector<std::string> in, out;
    for (int64_t d : s.attrs.getInts("in_dims")) in.push_back(d == kNoneDim ? "None" : std::to_string(d));
    for (int64_t d : s.attrs.getInts("out_dims")) out.push_back(std::to_string(d));
    p.call = target + " = " + pyCall(pyCall("_vmap", {p.regions[0].name, pyTuple(in), pyTuple(out)}), args);
    break;
  }
  case ConstructKind::Grad: {
    // torch.func.grad in every mode (a transform, not a higher-order op); its function returns
    // the one 0-d value, and a tuple of argnums gives a tuple of gradients.
    p.regions = {region("grad_fn_" + tag, s.regions[0], {.ret = Ret::Single}, {})};
    std::vector<std::string> argnums;
    for (size_t i : gradArgnums(s)) argnums.push_back(std::to_string(i));
    p.call = target + " = " + pyCall(pyCall("torch.func.grad", {p.regions[0].name, "argnums=" + pyTuple(argnums)}), args);
    break;
  }
  case ConstructKind::Jvp: {
    // torch.func.jvp in every mode: (outputs, tangents) of a function that returns a tuple. The
    // primals are passed contiguous: make_dual writes the tangent into the primal's layout, which
    // torch rejects for a primal whose elements share memory ("more than one element of the
    // written-to tensor refers to a single memory location", with no vmap at all), and a vmap of
    // the program returns an output it does not map as exactly such an expanded tensor, where the
    // per-example run's loop stacks a fresh one: a batched-error that is no batching bug.
    p.regions = {region("jvp_fn_" + tag, s.regions[0], {}, {})};
    const auto half = static_cast<std::ptrdiff_t>(args.size() / 2), outs = static_cast<std::ptrdiff_t>(s.results.size() / 2);
    const std::vector<std::string> names = resultNames(s);
    std::vector<std::string> primals;
    for (auto it = args.begin(); it != args.begin() + half; ++it) primals.push_back(*it + ".contiguous()");
    p.call = "(" + pyUnpack({names.begin(), names.begin() + outs}) + "), (" + pyUnpack({names.begin() + outs, names.end()}) + ") = " +
             pyCall("torch.func.jvp", {p.regions[0].name, pyTuple(primals), pyTuple({args.begin() + half, args.end()})});
    break;
  }
  }
  return p;
}

/// Scan. Its in-place buffers are fresh tensors made from their initial values just before the
/// scan (so that no other value is mutated), named `buf<result>`; after it, its buffer results
/// are the buffers themselves.
///  - public: combine_fn(carry, x) -> (carries, ys), the buffers captured as a user's KV cache
///    would be: dynamo lifts them and passes the ones it sees mutated as mutated_arg_indices;
///  - direct: combine_fn(*carries, *x_slices, *buffers, *lifted) -> (*next_carries, *ys), the flat
///    form scan_op takes; the buffers lead the additional inputs, and mutated_arg_indices names
///    them as dynamo does (indices into init + xs + additional_inputs).
ConstructPlan ProgramEmitter::scanPlan(const Stmt &s, const std::vector<std::string> &args,
                                       const std::vector<std::string> &lifted) const {
  const std::string tag = std::to_string(s.results.front().id);
  const ScanParts sp = scanParts(s);
  const size_t k = sp.carries;
  const Block &r = s.regions[0];
  const std::vector<std::string> results = resultNames(s);
  ConstructPlan p;
  std::vector<std::string> bufs;
  for (size_t j = 0; j < sp.bufs; ++j) {
    bufs.push_back("buf" + std::to_string(s.results[s.results.size() - sp.bufs + j].id));
    p.before.push_back(bufs.back() + " = " + args[k + sp.xs + j] + ".clone()");
    p.after.push_back(results[results.size() - sp.bufs + j] + " = " + bufs.back());
  }
  const std::string init = pyTuple(contiguous({args.begin(), args.begin() + k}));
  const std::string xs = pyTuple({args.begin() + k, args.begin() + k + sp.xs});
  const std::string reverse = "reverse=" + pyBool(s.attrs.getBool("reverse"));
  const std::vector<std::string> flat(results.begin(), results.end() - static_cast<std::ptrdiff_t>(sp.bufs));
  if (direct_) {
    std::string mutated;
    for (size_t j = 0; j < sp.bufs; ++j) mutated += (j ? "," : "") + std::to_string(k + sp.xs + j);
    p.regions = {region("combine_fn_" + tag, r, {.carries = k, .buffers = sp.bufs}, lifted)};
    std::vector<std::string> callArgs = {p.regions[0].name, init, xs, pyTuple(concat(bufs, lifted)), reverse};
    if (!mutated.empty()) callArgs.push_back("mutated_arg_indices=" + pyString(mutated));
    p.call = pyUnpack(flat) + " = " + pyCall("_scan", callArgs);
    return p;
  }
  RegionFn fn = region("combine_fn_" + tag, r, {.ret = Ret::CarryAndYs, .split = k, .carries = k, .buffers = sp.bufs}, {});
  std::vector<std::string> carries(fn.params.begin(), fn.params.begin() + k), slices(fn.params.begin() + k, fn.params.begin() + k + sp.xs);
  fn.prologue = {pyUnpack(carries) + " = carry", pyUnpack(slices) + " = x"};
  for (size_t j = 0; j < sp.bufs; ++j) fn.prologue.push_back(fn.params[k + sp.xs + j] + " = " + bufs[j]);
  fn.params = {"carry", "x"};
  p.regions = {fn};
  const std::vector<std::string> finals(flat.begin(), flat.begin() + k), ys(flat.begin() + k, flat.end());
  p.call = "(" + pyUnpack(finals) + "), (" + (ys.empty() ? "" : pyUnpack(ys)) + ") = " + pyCall("scan", {fn.name, init, xs, reverse});
  return p;
}

} // namespace vf
