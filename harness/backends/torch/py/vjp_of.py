"""The reverse-mode gradient modes' `vjp_of` (python_grad.cpp). The emitted module defines the
names below the imports first; they are here for linters only."""
import torch

_N_INPUTS, _GRAD_INPUTS, _GRAD_OUTPUTS = 0, (), ()
_forward_pass = _backward_pass = None
# vmapfuzz: emitted from here
def vjp_of(fn):
    """fn's vector-Jacobian product by torch.autograd.grad (zeros where no output depends on an input)."""
    def vjp(*args):
        xs, cts = list(args[:_N_INPUTS]), args[_N_INPUTS:]
        for i in _GRAD_INPUTS:
            xs[i] = xs[i].detach().requires_grad_()
        outs = _forward_pass(fn, *xs)
        if isinstance(outs, torch.Tensor):
            outs = (outs,)
        pairs = [(outs[o], ct) for o, ct in zip(_GRAD_OUTPUTS, cts) if outs[o].requires_grad]
        wrt = [xs[i] for i in _GRAD_INPUTS]
        grads = [None] * len(wrt)
        if pairs and wrt:
            grads = _backward_pass(torch.autograd.grad, [o for o, _ in pairs], wrt, [ct for _, ct in pairs], allow_unused=True)
        return tuple(torch.zeros_like(x) if gr is None else gr for gr, x in zip(grads, wrt))
    return vjp
