import torch


def program(x0):
    v3 = torch.gt(x0, 0.0)
    v16 = torch.unsqueeze(x0, 0)
    v26 = torch.squeeze(x0, -1)
    return (x0,)


batched = torch.vmap(program, in_dims=(0,), out_dims=(0,))


def per_example(x0):
    """Each example alone, stacked the way vmap stacks: what `batched` must return."""
    outs = [program(x0.select(0, b)) for b in range(x0.size(0))]
    return tuple(torch.stack(o, dim=d) for o, d in zip(zip(*outs), (0,)))


# Gradients (vmapfuzz's gradient modes). Each function takes the inputs, then one cotangent per
# floating output, and returns the gradient of each floating input.
_N_INPUTS = 1
_GRAD_INPUTS = (0,)  # the floating inputs
_GRAD_OUTPUTS = (0,)  # the floating outputs


def _forward_pass(fn, *args):
    return fn(*args)


def _backward_pass(fn, *args, **kwargs):
    return fn(*args, **kwargs)


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


