"""The forward-mode ("+jvp") functions that do not depend on the case (python_grad.cpp): the
tangent pass (a frame of its own name, for the worker's raising_pass), `func_jvp_of` (torch.func.jvp)
and `jvp_by_rows` (plain reverse-mode autograd). The emitted module defines the names below the
imports first; they are here for linters only."""
import torch

_N_INPUTS, _GRAD_INPUTS, _GRAD_OUTPUTS = 0, (), ()
_forward_pass = _backward_pass = None
# vmapfuzz: emitted from here
def _tangent_pass(fn, *args, **kwargs):
    return fn(*args, **kwargs)


def _as_tuple(outs):
    return (outs,) if isinstance(outs, torch.Tensor) else tuple(outs)


def func_jvp_of(fn):
    """torch.func.jvp of fn with respect to its floating inputs: the floating outputs' tangents."""
    def jvp(*args):
        xs, ts = list(args[:_N_INPUTS]), args[_N_INPUTS:]
        _forward_pass(fn, *xs)  # the program alone first: a forward bug raises here, not in the jvp
        if not _GRAD_INPUTS or not _GRAD_OUTPUTS:
            outs = _as_tuple(fn(*xs))
            return tuple(torch.zeros_like(outs[o]) for o in _GRAD_OUTPUTS)

        def f(*diff):
            full = list(xs)
            for i, d in zip(_GRAD_INPUTS, diff):
                full[i] = d
            outs = _as_tuple(fn(*full))
            return tuple(outs[o] for o in _GRAD_OUTPUTS)

        _, tangents = _tangent_pass(torch.func.jvp, f, tuple(xs[i] for i in _GRAD_INPUTS), tuple(ts))
        return tuple(tangents)
    return jvp


def jvp_by_rows(fn):
    """fn's Jacobian-vector product with plain reverse-mode autograd only: one torch.autograd.grad per
    output element (a row of the Jacobian), dotted with the tangents. No forward-mode AD, no function
    transform, no double backward (torch.cond's backward is not differentiable in torch 2.14)."""
    def jvp(*args):
        xs, ts = list(args[:_N_INPUTS]), args[_N_INPUTS:]
        for i in _GRAD_INPUTS:
            xs[i] = xs[i].detach().requires_grad_()
        outs = _as_tuple(_forward_pass(fn, *xs))
        wrt = [xs[i] for i in _GRAD_INPUTS]
        result = []
        for o in _GRAD_OUTPUTS:
            flat = outs[o].reshape(-1)
            rows = torch.zeros(flat.numel(), dtype=flat.dtype, device=flat.device)
            for k in range(flat.numel() if flat.requires_grad and wrt else 0):
                gs = _backward_pass(torch.autograd.grad, flat[k], wrt, retain_graph=True, allow_unused=True)
                rows[k] = sum(((g * t).sum() for g, t in zip(gs, ts) if g is not None), flat.new_zeros(()))
            result.append(rows.reshape(outs[o].shape).detach())
        return tuple(result)
    return jvp
