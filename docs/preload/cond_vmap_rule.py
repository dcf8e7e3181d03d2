"""A modified vmap rule for torch.cond, for vmapfuzz's `--preload` (docs/preload.md).

torch registers `cond_batch_rule` (torch/_higher_order_ops/cond.py) for `cond_op` under
TransformType.Vmap; this file replaces it without rebuilding torch. It changes three things of
torch 2.14.1's rule; with it, three filed findings replay as `pass` in eager mode:

- a predicate is batched only when it is batched at *this* vmap level (`unwrap_batched` at
  `interpreter.level()`), not at an outer one (reports/mismatch-345244fa);
- with a batched predicate every output is selected with `torch.where`, not only the first;
- with nothing batched at this level the op runs below it as it is, instead of vmapping
  branches over no batched input (reports/batched-error-9a5e54c9), and operands that are not
  tensors are accepted (reports/batched-error-04404d75).

    vmapfuzz replay --preload docs/preload/cond_vmap_rule.py reports/mismatch-345244fa/case.vf
    vmapfuzz fuzz --preload docs/preload/cond_vmap_rule.py --gen while_weight=0 --gen scan_weight=0 ...
"""
import torch
from torch._functorch.vmap import unwrap_batched, wrap_batched
from torch._higher_order_ops.cond import cond_op

_VMAP = torch._C._functorch.TransformType.Vmap
# py_impl refuses a second registration: drop torch's rule first.
cond_op.functorch_table.pop(_VMAP, None)


@cond_op.py_impl(_VMAP)
def cond_batch_rule(interpreter, pred, true_fn, false_fn, inputs):
    level = interpreter.level()
    (pred_, *tensors), (pred_dim, *in_dims) = unwrap_batched((pred, *inputs), level)
    randomness = interpreter.randomness()
    if pred_dim is not None:
        # Run both branches on every example and pick each output per example.
        def select(p, *args):
            return tuple(torch.where(p, t, f) for t, f in zip(true_fn(*args), false_fn(*args)))

        with interpreter.lower():
            result = torch.vmap(select, in_dims=(pred_dim, *in_dims), randomness=randomness)(pred_, *tensors)
        return wrap_batched(tuple(result), (0,) * len(result), level)
    if all(d is None for d in in_dims):  # nothing batched at this level
        with interpreter.lower():
            result = cond_op(pred_, true_fn, false_fn, tuple(tensors))
        return wrap_batched(tuple(result), (None,) * len(result), level)
    true_b = torch.vmap(true_fn, in_dims=tuple(in_dims), randomness=randomness)
    false_b = torch.vmap(false_fn, in_dims=tuple(in_dims), randomness=randomness)
    with interpreter.lower():
        result = cond_op(pred_, true_b, false_b, tuple(tensors))
    return wrap_batched(tuple(result), (0,) * len(result), level)
