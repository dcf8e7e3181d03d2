"""Faults planted into torch's batching rules, in the worker process only.

Each fault wraps or replaces one batching rule the way a plausible bug would. They exist so
that tests and `vmapfuzz selftest` can show that the harness notices broken batching.
"""
import torch
from torch._C._functorch import TransformType


def _hop_rule(op):
    return op.functorch_table[TransformType.Vmap]


def _set_hop_rule(op, fn):
    op.functorch_table[TransformType.Vmap] = fn


def cond_batched_pred_swapped():
    """cond with a batched predicate runs true_fn where pred is False and vice versa."""
    from torch._higher_order_ops.cond import cond_op
    from torch._C._functorch import is_batchedtensor

    orig = _hop_rule(cond_op)

    def rule(interpreter, pred, true_fn, false_fn, inputs):
        if isinstance(pred, torch.Tensor) and is_batchedtensor(pred):
            return orig(interpreter, pred, false_fn, true_fn, inputs)
        return orig(interpreter, pred, true_fn, false_fn, inputs)

    _set_hop_rule(cond_op, rule)


FAULTS = {
    "cond-batched-pred-swapped": cond_batched_pred_swapped,
}


def plant(names):
    for name in names:
        if name not in FAULTS:
            raise SystemExit(f"vmapfuzz worker: unknown fault '{name}' (known: {', '.join(sorted(FAULTS))})")
        FAULTS[name]()


def compile_guards_never_fail():
    """torch.compile keeps returning its first result, whatever the shapes of later calls: a
    guard that never fails, so a compiled vmap called again at another batch size is stale."""
    real = torch.compile

    def compile(model=None, **kwargs):
        compiled = real(model, **kwargs)
        first = []

        def run(*args):
            if not first:
                first.append(compiled(*args))
            return first[0]

        return run

    torch.compile = compile


FAULTS["compile-guards-never-fail"] = compile_guards_never_fail
