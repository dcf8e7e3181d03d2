#include "harness/backends/torch/python_grad.h"

#include <sstream>

#include "ir/differentiable.h"

namespace vf {
namespace {

std::string tuple(const std::vector<std::string> &xs) {
  if (xs.size() == 1) return "(" + xs[0] + ",)";
  std::string s = "(";
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + xs[i];
  return s + ")";
}

std::string indexTuple(const std::vector<size_t> &xs) {
  std::vector<std::string> s;
  for (size_t x : xs) s.push_back(std::to_string(x));
  return tuple(s);
}

std::string dim(const std::optional<int64_t> &d) { return d ? std::to_string(*d) : "None"; }

/// One entry of _LEVELS per vmap level, outermost first: (in_dims of the inputs and the
/// cotangents, the in_dim of each gradient's input, chunk_size, randomness).
std::string levelsTable(const Case &c) {
  auto gin = gradInputs(c.program);
  auto gout = gradOutputs(c.program);
  std::ostringstream os;
  os << "_LEVELS = [\n";
  for (const auto &l : c.spec.levels) {
    std::vector<std::string> in, grads;
    for (const auto &d : l.in_dims) in.push_back(dim(d));
    for (size_t j : gout) in.push_back(std::to_string(l.out_dims.at(j)));
    for (size_t i : gin) grads.push_back(dim(l.in_dims.at(i)));
    os << "    (" << tuple(in) << ", " << tuple(grads) << ", " << (l.chunk_size ? std::to_string(*l.chunk_size) : "None")
       << ", '" << l.randomness << "'),\n";
  }
  os << "]\n";
  return os.str();
}

/// What every gradient mode's functions start with: `what` (comment lines), the input and
/// output indices, and the forward and backward pass, each in a function of its own name so that
/// a traceback says which one raised (gradientPassOf in harness/run/runner.h).
std::string gradHeader(const Case &c, const char *what) {
  std::ostringstream os;
  os << what;
  os << "_N_INPUTS = " << c.program.body.params.size() << "\n";
  os << "_GRAD_INPUTS = " << indexTuple(gradInputs(c.program)) << "  # the floating inputs\n";
  os << "_GRAD_OUTPUTS = " << indexTuple(gradOutputs(c.program)) << "  # the floating outputs\n\n\n";
  os << "def _forward_pass(fn, *args):\n"
        "    return fn(*args)\n\n\n"
        "def _backward_pass(fn, *args, **kwargs):\n"
        "    return fn(*args, **kwargs)\n\n\n";
  return os.str();
}

/// The forward-mode ("+jvp") functions: each takes the inputs, then one tangent per floating
/// input, and returns the tangent of each floating output.
std::string jvpFunctions(const Case &c) {
  std::ostringstream os;
  os << gradHeader(c,
                   "# Forward-mode derivatives (vmapfuzz's +jvp modes). Each function takes the inputs, then one tangent\n"
                   "# per floating input, and returns the tangent of each floating output (a Jacobian-vector product).\n");
  os << "def _tangent_pass(fn, *args, **kwargs):\n"
        "    return fn(*args, **kwargs)\n\n\n"
        "def _as_tuple(outs):\n"
        "    return (outs,) if isinstance(outs, torch.Tensor) else tuple(outs)\n\n\n";
  os << "def func_jvp_of(fn):\n"
        "    \"\"\"torch.func.jvp of fn with respect to its floating inputs: the floating outputs' tangents.\"\"\"\n"
        "    def jvp(*args):\n"
        "        xs, ts = list(args[:_N_INPUTS]), args[_N_INPUTS:]\n"
        "        _forward_pass(fn, *xs)  # the program alone first: a forward bug raises here, not in the jvp\n"
        "        if not _GRAD_INPUTS or not _GRAD_OUTPUTS:\n"
        "            outs = _as_tuple(fn(*xs))\n"
        "            return tuple(torch.zeros_like(outs[o]) for o in _GRAD_OUTPUTS)\n"
        "\n"
        "        def f(*diff):\n"
        "            full = list(xs)\n"
        "            for i, d in zip(_GRAD_INPUTS, diff):\n"
        "                full[i] = d\n"
        "            outs = _as_tuple(fn(*full))\n"
        "            return tuple(outs[o] for o in _GRAD_OUTPUTS)\n"
        "\n"
        "        _, tangents = _tangent_pass(torch.func.jvp, f, tuple(xs[i] for i in _GRAD_INPUTS), tuple(ts))\n"
        "        return tuple(tangents)\n"
        "    return jvp\n\n\n";
  os << "def jvp_by_rows(fn):\n"
        "    \"\"\"fn's Jacobian-vector product with plain reverse-mode autograd only: one torch.autograd.grad per\n"
        "    output element (a row of the Jacobian), dotted with the tangents. No forward-mode AD, no function\n"
        "    transform, no double backward (torch.cond's backward is not differentiable in torch 2.14).\"\"\"\n"
        "    def jvp(*args):\n"
        "        xs, ts = list(args[:_N_INPUTS]), args[_N_INPUTS:]\n"
        "        for i in _GRAD_INPUTS:\n"
        "            xs[i] = xs[i].detach().requires_grad_()\n"
        "        outs = _as_tuple(_forward_pass(fn, *xs))\n"
        "        wrt = [xs[i] for i in _GRAD_INPUTS]\n"
        "        result = []\n"
        "        for o in _GRAD_OUTPUTS:\n"
        "            flat = outs[o].reshape(-1)\n"
        "            rows = torch.zeros(flat.numel(), dtype=flat.dtype, device=flat.device)\n"
        "            for k in range(flat.numel() if flat.requires_grad and wrt else 0):\n"
        "                gs = _backward_pass(torch.autograd.grad, flat[k], wrt, retain_graph=True, allow_unused=True)\n"
        "                rows[k] = sum(((g * t).sum() for g, t in zip(gs, ts) if g is not None), flat.new_zeros(()))\n"
        "            result.append(rows.reshape(outs[o].shape).detach())\n"
        "        return tuple(result)\n"
        "    return jvp\n\n\n";
  // One entry per vmap level, outermost first: the in_dims of the inputs and of their tangents,
  // the out_dims of the floating outputs, the level's size (when it batches no input).
  os << "_JVP_LEVELS = [\n";
  for (const auto &l : c.spec.levels) {
    std::vector<std::string> in, out;
    for (const auto &d : l.in_dims) in.push_back(dim(d));
    for (size_t i : gradInputs(c.program)) in.push_back(dim(l.in_dims.at(i)));
    for (size_t j : gradOutputs(c.program)) out.push_back(std::to_string(l.out_dims.at(j)));
    os << "    (" << tuple(in) << ", " << (out.empty() ? "()" : tuple(out)) << ", " << l.size << "),\n";
  }
  os << "]\n\n\n";
  os << "def _jvp_loop(fn, in_dims, out_dims, size):\n"
        "    \"\"\"fn on each example of one level alone (a Python loop, no vmap), stacked as vmap stacks.\"\"\"\n"
        "    def run(*args):\n"
        "        n = next((a.size(d) for a, d in zip(args, in_dims) if d is not None), size)\n"
        "        outs = [fn(*[a if d is None else a.select(d, b) for a, d in zip(args, in_dims)]) for b in range(n)]\n"
        "        return tuple(torch.stack(o, dim=d) for o, d in zip(zip(*outs), out_dims))\n"
        "    return run\n\n\n"
        "def _per_example_jvp_by_rows():\n"
        "    fn = jvp_by_rows(program)  # each example's own (small) Jacobian, one example's graph at a time\n"
        "    for in_dims, out_dims, size in reversed(_JVP_LEVELS):\n"
        "        fn = _jvp_loop(fn, in_dims, out_dims, size)\n"
        "    return fn\n\n\n";
  os << "batched_jvp = func_jvp_of(batched)  # +jvp: torch.func.jvp of the vmapped program\n"
        "per_example_func_jvp = func_jvp_of(per_example)  # torch.func.jvp of each example alone (no vmap)\n"
        "per_example_jvp_by_rows = _per_example_jvp_by_rows()  # plain autograd of each example alone\n\n\n";
  return os.str();
}

} // namespace

std::string gradFunctions(const Case &c, Grad g) {
  if (g == Grad::None) return "";
  if (g == Grad::Jvp) return jvpFunctions(c);
  std::ostringstream os;
  os << gradHeader(c, "# Gradients (vmapfuzz's gradient modes). Each function takes the inputs, then one cotangent per\n"
                      "# floating output, and returns the gradient of each floating input.\n");
  os << "def vjp_of(fn):\n"
        "    \"\"\"fn's vector-Jacobian product by torch.autograd.grad (zeros where no output depends on an input).\"\"\"\n"
        "    def vjp(*args):\n"
        "        xs, cts = list(args[:_N_INPUTS]), args[_N_INPUTS:]\n"
        "        for i in _GRAD_INPUTS:\n"
        "            xs[i] = xs[i].detach().requires_grad_()\n"
        "        outs = _forward_pass(fn, *xs)\n"
        "        if isinstance(outs, torch.Tensor):\n"
        "            outs = (outs,)\n"
        "        pairs = [(outs[o], ct) for o, ct in zip(_GRAD_OUTPUTS, cts) if outs[o].requires_grad]\n"
        "        wrt = [xs[i] for i in _GRAD_INPUTS]\n"
        "        grads = [None] * len(wrt)\n"
        "        if pairs and wrt:\n"
        "            grads = _backward_pass(torch.autograd.grad, [o for o, _ in pairs], wrt, [ct for _, ct in pairs], allow_unused=True)\n"
        "        return tuple(torch.zeros_like(x) if gr is None else gr for gr, x in zip(grads, wrt))\n"
        "    return vjp\n\n\n";
  if (g != Grad::VmapOf) return os.str();
  os << levelsTable(c) << "\n\n";
  os << "def func_vjp(*args):\n"
        "    \"\"\"One example's gradients by torch.func.vjp (a function transform, composable with vmap).\"\"\"\n"
        "    xs, cts = args[:_N_INPUTS], args[_N_INPUTS:]\n"
        "    if not _GRAD_OUTPUTS:\n"
        "        return tuple(torch.zeros_like(xs[i]) for i in _GRAD_INPUTS)\n"
        "\n"
        "    def f(*diff):\n"
        "        full = list(xs)\n"
        "        for i, d in zip(_GRAD_INPUTS, diff):\n"
        "            full[i] = d\n"
        "        outs = program(*full)\n"
        "        if isinstance(outs, torch.Tensor):\n"
        "            outs = (outs,)\n"
        "        return tuple(outs[o] for o in _GRAD_OUTPUTS)\n"
        "\n"
        "    _, pullback = _forward_pass(torch.func.vjp, f, *[xs[i] for i in _GRAD_INPUTS])\n"
        "    return tuple(_backward_pass(pullback, tuple(cts)))\n\n\n"
        "def _vmap(fn, in_dims, chunk, randomness):\n"
        "    return torch.vmap(fn, in_dims=in_dims, out_dims=0, chunk_size=chunk, randomness=randomness)\n\n\n"
        "def _loop(fn, in_dims, chunk, randomness):\n"
        "    \"\"\"What _vmap computes, as a Python loop over the examples (no batching).\"\"\"\n"
        "    def run(*args):\n"
        "        size = next(a.size(d) for a, d in zip(args, in_dims) if d is not None)\n"
        "        outs = [fn(*[a if d is None else a.select(d, b) for a, d in zip(args, in_dims)]) for b in range(size)]\n"
        "        return tuple(torch.stack(o) for o in zip(*outs))\n"
        "    return run\n\n\n"
        "def _per_level(inner, mapper, in_dims, grad_dims, chunk, randomness):\n"
        "    \"\"\"inner mapped over one level; a gradient of an input this level does not batch is summed over\n"
        "    its examples, one it batches gets its batch dim back at the input's in_dim.\"\"\"\n"
        "    def run(*args):\n"
        "        gs = mapper(inner, in_dims, chunk, randomness)(*args)\n"
        "        return tuple(gr.sum(0) if d is None else gr.movedim(0, d) for gr, d in zip(gs, grad_dims))\n"
        "    return run\n\n\n"
        "def _mapped_vjp(mapper):\n"
        "    fn = func_vjp\n"
        "    if not _GRAD_INPUTS:\n"
        "        return lambda *args: ()\n"
        "    for in_dims, grad_dims, chunk, randomness in reversed(_LEVELS):\n"
        "        fn = _per_level(fn, mapper, in_dims, grad_dims, chunk, randomness)\n"
        "    return fn\n\n\n"
        "batched_vjp = _mapped_vjp(_vmap)\n"
        "per_example_func_vjp = _mapped_vjp(_loop)\n\n\n";
  return os.str();
}

} // namespace vf
