"""The "+vmap-grad" mode's functions (python_grad.cpp): torch.func.vjp of one example under one
torch.vmap per level (`batched_vjp`), and the same with Python loops (`per_example_func_vjp`).
The emitted module defines the names below the imports first; they are here for linters only."""
import torch

_N_INPUTS, _GRAD_INPUTS, _GRAD_OUTPUTS, _LEVELS = 0, (), (), []
program = _forward_pass = _backward_pass = None
# vmapfuzz: emitted from here
def func_vjp(*args):
    """One example's gradients by torch.func.vjp (a function transform, composable with vmap)."""
    xs, cts = args[:_N_INPUTS], args[_N_INPUTS:]
    if not _GRAD_OUTPUTS:
        return tuple(torch.zeros_like(xs[i]) for i in _GRAD_INPUTS)

    def f(*diff):
        full = list(xs)
        for i, d in zip(_GRAD_INPUTS, diff):
            full[i] = d
        outs = program(*full)
        if isinstance(outs, torch.Tensor):
            outs = (outs,)
        return tuple(outs[o] for o in _GRAD_OUTPUTS)

    _, pullback = _forward_pass(torch.func.vjp, f, *[xs[i] for i in _GRAD_INPUTS])
    return tuple(_backward_pass(pullback, tuple(cts)))


def _vmap_level(fn, in_dims, chunk, randomness):
    return torch.vmap(fn, in_dims=in_dims, out_dims=0, chunk_size=chunk, randomness=randomness)


def _loop_level(fn, in_dims, chunk, randomness):
    """What _vmap_level computes, as a Python loop over the examples (no batching)."""
    def run(*args):
        size = next(a.size(d) for a, d in zip(args, in_dims) if d is not None)
        outs = [fn(*[a if d is None else a.select(d, b) for a, d in zip(args, in_dims)]) for b in range(size)]
        return tuple(torch.stack(o) for o in zip(*outs))
    return run


def _per_level(inner, mapper, in_dims, grad_dims, chunk, randomness):
    """inner mapped over one level; a gradient of an input this level does not batch is summed over
    its examples, one it batches gets its batch dim back at the input's in_dim."""
    def run(*args):
        gs = mapper(inner, in_dims, chunk, randomness)(*args)
        return tuple(gr.sum(0) if d is None else gr.movedim(0, d) for gr, d in zip(gs, grad_dims))
    return run


def _mapped_vjp(mapper):
    fn = func_vjp
    if not _GRAD_INPUTS:
        return lambda *args: ()
    for in_dims, grad_dims, chunk, randomness in reversed(_LEVELS):
        fn = _per_level(fn, mapper, in_dims, grad_dims, chunk, randomness)
    return fn


batched_vjp = _mapped_vjp(_vmap_level)
per_example_func_vjp = _mapped_vjp(_loop_level)
