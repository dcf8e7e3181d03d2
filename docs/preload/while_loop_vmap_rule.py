"""A vmap rule for torch.while_loop, written for vmapfuzz's `--preload` (docs/preload.md).

torch 2.14.1 has no batching rule for `while_loop_op`: `torch.vmap` of a program with a
`torch.while_loop` fails with `KeyError(<TransformType.Vmap: 1>)`. Running this file first
registers a deliberately simple rule, the one JAX uses:

    batch every carry (an unbatched one is expanded to the batch size);
    while the predicate of any example (lane) is true:
        run the body on every lane, and keep the old carry of the lanes whose predicate is false.

The batched loop is itself a `while_loop_op` over the batched carries, with `any()` as its
predicate, so the rule works in eager mode (the dense loop) and under torch.compile (the op's
own tracing). It is meant to be fuzzed, not shipped: every lane runs the body as many times as
the slowest one, and a body that fails on a finished lane's data fails the whole batch.

    vmapfuzz fuzz --preload docs/preload/while_loop_vmap_rule.py --gen cond_weight=0 ...
"""
import torch
from torch._functorch.vmap import unwrap_batched, wrap_batched
from torch._higher_order_ops.while_loop import while_loop_op


def _batch_at_front(t, bdim, size):
    """`t` with its batch dim first; an unbatched `t` is expanded to `size` examples."""
    if bdim is None:
        return t.unsqueeze(0).expand(size, *t.shape).clone(memory_format=torch.contiguous_format)
    return t.movedim(bdim, 0).clone(memory_format=torch.contiguous_format)


def _per_lane(mask, like):
    """The [B] bool `mask` shaped to broadcast against `like` ([B, ...])."""
    return mask.reshape(mask.shape + (1,) * (like.dim() - 1))


@while_loop_op.py_impl(torch._C._functorch.TransformType.Vmap)
def while_loop_batch_rule(interpreter, cond_fn, body_fn, carried_inputs, additional_inputs,
                          mutated_arg_indices=""):
    if mutated_arg_indices:
        raise NotImplementedError("while_loop_batch_rule (vmapfuzz example): mutated inputs")
    level, size = interpreter.level(), interpreter.batch_size()
    carries, carry_dims = unwrap_batched(tuple(carried_inputs), level)
    extras, extra_dims = unwrap_batched(tuple(additional_inputs), level)
    if not all(isinstance(c, torch.Tensor) for c in carries):
        raise NotImplementedError("while_loop_batch_rule (vmapfuzz example): only tensor carries")
    if all(d is None for d in carry_dims + tuple(extra_dims)):
        with interpreter.lower():  # nothing batched at this level: the plain loop
            out = while_loop_op(cond_fn, body_fn, carries, extras)
        return wrap_batched(tuple(out), (None,) * len(carries), level)

    n = len(carries)
    carries = tuple(_batch_at_front(c, d, size) for c, d in zip(carries, carry_dims))
    in_dims = (0,) * n + tuple(extra_dims)
    randomness = interpreter.randomness()
    lane_cond = torch.vmap(cond_fn, in_dims=in_dims, randomness=randomness)
    lane_body = torch.vmap(body_fn, in_dims=in_dims, randomness=randomness)

    def any_lane_active(*args):
        return lane_cond(*args).any()

    def step_active_lanes(*args):
        active = lane_cond(*args)
        new = lane_body(*args)
        old = args[:n]
        return tuple(torch.where(_per_lane(active, o), b, o) for b, o in zip(new, old))

    with interpreter.lower():
        out = while_loop_op(any_lane_active, step_active_lanes, carries, extras)
    return wrap_batched(tuple(out), (0,) * n, level)
