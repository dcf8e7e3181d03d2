#!/usr/bin/env python3
# vmapfuzz finding: batched-error
# the forward pass raises: RuntimeError: Dimension is out of range (expected to be in range of [-1, 0], but got [-1]
# reproduce: vmapfuzz gen --case-seed 5093864130114332198 --size 73 --gen switch_weight=0 --gen while_weight=0 > case.vf && vmapfuzz replay --mode eager+grad case.vf
# Exits 1 while the gradients of torch.vmap's result (a vector-Jacobian product with the cotangents
# below) disagree with those of running each example alone under plain autograd, 0 once they agree.
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



x0 = torch.tensor([1.2645103931427002], dtype=torch.float32).reshape((1,))
x_cotangent0 = torch.tensor([-0.44638872146606445], dtype=torch.float32).reshape((1,))


# (rtol, atol) per gradient: its dtype's, or the looser one of the least precise dtype it was computed through
TOLERANCES = [(1e-04, 1e-05)]


def check(args, what):
    names = ("x0",)  # the inputs that take a gradient
    expected = vjp_of(per_example)(*args)
    try:
        actual = vjp_of(batched)(*args)
    except Exception as e:
        print(f"FAIL: {what} raised {type(e).__name__}: {e}")
        return False
    ok = len(actual) == len(expected)
    if not ok:
        print(f"FAIL: {what} gave {len(actual)} outputs, expected {len(expected)}")
    for i, (a, e) in enumerate(zip(actual, expected)):
        rtol, atol = TOLERANCES[i]
        try:
            torch.testing.assert_close(a, e, rtol=rtol, atol=atol, equal_nan=True)
        except AssertionError as err:
            ok = False
            print(f"FAIL: the gradient of {names[i]} in {what} differs from the per-example autograd loop's:\n{err}")
    return ok


ok = True
ok = check((x0, x_cotangent0), "the batched run") and ok
print("OK: batched and per-example results agree" if ok else "FAIL")
raise SystemExit(0 if ok else 1)
