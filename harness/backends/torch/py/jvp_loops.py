"""The forward-mode ("+jvp") entry points (python_grad.cpp), after the case's _JVP_LEVELS table:
`batched_jvp`, `per_example_func_jvp` and `per_example_jvp_by_rows`. The emitted module defines
the names below the imports first; they are here for linters only."""
import torch

_JVP_LEVELS = []
program = batched = per_example = func_jvp_of = jvp_by_rows = None
# vmapfuzz: emitted from here
def _jvp_loop(fn, in_dims, out_dims, size):
    """fn on each example of one level alone (a Python loop, no vmap), stacked as vmap stacks."""
    def run(*args):
        n = next((a.size(d) for a, d in zip(args, in_dims) if d is not None), size)
        outs = [fn(*[a if d is None else a.select(d, b) for a, d in zip(args, in_dims)]) for b in range(n)]
        return tuple(torch.stack(o, dim=d) for o, d in zip(zip(*outs), out_dims))
    return run


def _per_example_jvp_by_rows():
    fn = jvp_by_rows(program)  # each example's own (small) Jacobian, one example's graph at a time
    for in_dims, out_dims, size in reversed(_JVP_LEVELS):
        fn = _jvp_loop(fn, in_dims, out_dims, size)
    return fn


batched_jvp = func_jvp_of(batched)  # +jvp: torch.func.jvp of the vmapped program
per_example_func_jvp = func_jvp_of(per_example)  # torch.func.jvp of each example alone (no vmap)
per_example_jvp_by_rows = _per_example_jvp_by_rows()  # plain autograd of each example alone
