"""Culprit localisation's swaps (vmapfuzz_culprits.py): each component of torch's batching swapped
for a per-example implementation must leave a correct batched run correct, must make a run that
one planted fault (vmapfuzz_faults.py) breaks right when the component swapped is the one the fault
is planted in, and must not when it is another. Faults change torch for good, so each is planted in
a process of its own: this file run as a script (`python3 test_culprits.py FAULT` prints what one
fault's cases show; `--each` forks one process per fault). The reference is always a Python loop
over the examples, never torch.vmap."""
import importlib
import json
import os
import struct
import subprocess
import sys
import traceback

import pytest

from conftest import WORKER_DIR

torch = pytest.importorskip("torch")
import vmapfuzz_culprits as vc  # noqa: E402  (after the skip: it needs torch to do anything)


# ---- batched and per-example runs of a program -----------------------------------------------


def looped(fn, in_dims=0, out_dims=0):
    """What torch.vmap(fn, in_dims, out_dims) must return, by a Python loop over the examples:
    each input sliced with .select(in_dim, b) (negative in_dims count from the input's end), the
    outputs stacked at out_dim (torch.stack wraps a negative dim against rank + 1, as vmap must)."""
    def run(*args):
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        size = next(a.size(d) for a, d in zip(args, dims) if d is not None)
        outs = [fn(*[a if d is None else a.select(d, b) for a, d in zip(args, dims)]) for b in range(size)]
        single = isinstance(outs[0], torch.Tensor)
        columns = list(zip(*[(o,) if single else o for o in outs]))
        odims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(columns)
        stacked = tuple(torch.stack(c, dim=d) for c, d in zip(columns, odims))
        return stacked[0] if single else stacked

    return run


def nest(fn, levels, loop=False):
    """fn under the vmap levels `levels` (outermost first: dicts of in_dims, out_dims and
    optionally chunk_size), through torch.vmap, or through `looped` when `loop`."""
    for lv in reversed(levels):
        if loop:
            fn = looped(fn, lv.get("in_dims", 0), lv.get("out_dims", 0))
        else:
            fn = torch.vmap(fn, in_dims=lv.get("in_dims", 0), out_dims=lv.get("out_dims", 0),
                            chunk_size=lv.get("chunk_size"))
    return fn


def outputs(out):
    return (out,) if isinstance(out, torch.Tensor) else tuple(out)


def same(a, b):
    """Same shapes and values (within float32 rounding) output by output; an exception is never
    the same."""
    if isinstance(a, Exception) or isinstance(b, Exception):
        return False
    a, b = outputs(a), outputs(b)
    return len(a) == len(b) and all(x.shape == y.shape and torch.allclose(x, y, atol=1e-5, rtol=1e-4)
                                    for x, y in zip(a, b))


def run(case, components=(), record=False):
    """(outputs or the exception raised, recorded op names) of the case's batched run with
    `components` swapped."""
    fn = nest(case["program"], case["levels"])
    swap = None
    try:
        with vc.swapped(torch, list(components), record=record) as swap:
            return fn(*case["inputs"]()), swap.ops
    except Exception as e:  # a wrong batched run may raise: that is wrong too
        return e, swap.ops if swap else []


def right(case, out):
    return not isinstance(out, Exception) and same(out, nest(case["program"], case["levels"], loop=True)(*case["inputs"]()))


def lacking(hops):
    """Those of `hops` this torch has no vmap rule for (torch 2.6 has none for scan)."""
    return sorted(set(hops) - set(vc.swappable(torch)["hops"]))


def skip_unless_batchable(case):
    """A case of a HOP this torch cannot vmap (its "hops") is skipped, saying so."""
    if lacking(case.get("hops", ())):
        pytest.skip(f"torch {torch.__version__} has no vmap rule for {', '.join(lacking(case['hops']))}")


# ---- programs --------------------------------------------------------------------------------
# Direct mode's calls of the higher-order ops (the mode culprit localisation runs in), and the
# public API where noted. Inputs are seeded: a batched predicate takes both branches.


def _cond_op():
    from torch._higher_order_ops.cond import cond_op

    return cond_op


def _scan_op():
    from torch._higher_order_ops.scan import scan_op

    return scan_op


def _seeded(*shapes):
    """The inputs of a case: normal samples of these shapes, the same at each call."""
    def make():
        g = torch.Generator().manual_seed(7)
        return [torch.randn(*s, generator=g) for s in shapes]

    return make


def cond_batched_pred(x, z):
    """cond on a predicate batched at the level, two operands. One output: see
    test_a_torch_bug_is_localised_to_conds_rule for several."""
    return _cond_op()(x.sum() > 0,
                      lambda a, c: ((a.sin() * c.sum() + torch.where(a > 0, a, c[0])).exp(),),
                      lambda a, c: ((a.cos() + c[1] - c[0]).abs(),),
                      (x, z))


def cond_batched_pred_outputs(x, z):
    """cond on a batched predicate with three outputs: cond_batch_rule (torch 2.14) selects only
    the first output of the branches (torch.where(p, t[0], f[0]))."""
    return _cond_op()(x.sum() > 0,
                      lambda a, c: (a.sin() * c.sum(), torch.where(a > 0, a, c[0]).sum(-1), a.exp()),
                      lambda a, c: (a.cos() + c[1], (a - c[0]).sum(-1), a.abs()),
                      (x, z))


def cond_unbatched_pred(x, z, y):
    """cond on a predicate no level batches (from y, in_dims None), two batched operands."""
    return _cond_op()(y.sum() > 0,
                      lambda a, c: (a.sin() + c, a.cumsum(0)),
                      lambda a, c: (a.cos() * c, a.flip(0)),
                      (x, z))


def scan_program(init, xs, w, v):
    """scan with two carries, one xs, a batched captured value (w) and an unbatched one (v)
    lifted into additional inputs, ys stacked."""
    def combine(carry, x, w_, v_):
        c0, c1 = carry
        n0 = c0 * x.tanh() + w_
        n1 = c1 + (n0 * v_).sum()
        return [n0, n1, n0.sin(), n1 * 2]

    return _scan_op()(lambda c0, c1, x, w_, v_: combine((c0, c1), x, w_, v_),
                      [init, init.sum(-1)], [xs], (w, v))


def in_place_program(x, z):
    """In-place methods: each example is written into its slice of the batched tensor."""
    y = x.clone()
    y.add_(z)
    y.mul_(z.sigmoid())
    y += z
    y[0] = 5.0
    return y, y.sum(-1)


class _Cube(torch.autograd.Function):
    """An autograd.Function with torch's generated vmap rule: the HOP custom_function_call."""
    generate_vmap_rule = True

    @staticmethod
    def forward(x, y):
        return x ** 3 + y

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * g, g


def autograd_function_program(x, y):
    return (_Cube.apply(x.sin(), y) * 2,)


def nested_program(x, y):
    """A cond and a scan under two vmap levels."""
    (a,) = _cond_op()(x.sum() > 0, lambda p, q: (p * q.mean(),), lambda p, q: (p - q.mean(),), (x, y))
    c, ys = _scan_op()(lambda c, t: [c + t, c * t], [a[0]], [a], ())
    return c, ys.sum(0), y.flip(-1)


def public_program(x, y):
    """The public API: torch.cond (dynamo traces the branches) and scan."""
    from torch._higher_order_ops.scan import scan

    (a,) = torch.cond(x.sum() > 0, lambda p, q: (p.sin() + q,), lambda p, q: (p.cos() * q,), (x, y))
    c, ys = scan(lambda c, t: (c + t * y.sum(), c.sum()), a[0], a)
    return a, c, ys


CLEAN_CASES = {
    "cond-batched-pred": dict(program=cond_batched_pred, levels=[dict(in_dims=0)], inputs=_seeded((4, 3, 5), (4, 2, 5))),
    "cond-unbatched-pred": dict(program=cond_unbatched_pred, levels=[dict(in_dims=(0, 0, None))],
                                inputs=_seeded((4, 5), (4, 5), (3,))),
    "scan": dict(program=scan_program, levels=[dict(in_dims=(0, 1, 0, None))],
                 inputs=_seeded((3, 4), (5, 3, 4), (3, 4), (4,)), hops=("scan",)),
    "nested": dict(program=nested_program,
                   levels=[dict(in_dims=(-1, 0), out_dims=(0, -1, 1), chunk_size=2), dict(in_dims=(0, -2), out_dims=-1)],
                   inputs=_seeded((2, 3, 4, 5), (5, 2, 4)), hops=("scan",)),
    "nested-equal-sizes": dict(program=nested_program, levels=[dict(in_dims=0, out_dims=-1), dict(in_dims=(1, 0), chunk_size=1)],
                               inputs=_seeded((3, 4, 3), (3, 3, 4)), hops=("scan",)),
    "in-place": dict(program=in_place_program, levels=[dict(in_dims=(0, 1)), dict(in_dims=(1, None))],
                     inputs=_seeded((3, 4, 2), (4, 3)), ops=("__setitem__", "__iadd__")),
    "autograd-function": dict(program=autograd_function_program, levels=[dict(in_dims=(0, None)), dict(in_dims=(1, 0))],
                              inputs=_seeded((3, 4, 2), (2,))),
    "public": dict(program=public_program, levels=[dict(in_dims=(0, 0))], inputs=_seeded((4, 3, 5), (4, 5)),
                   hops=("scan",)),
}


def test_a_torch_bug_is_localised_to_conds_rule():
    """Not planted: torch's own cond_batch_rule drops every output but the first under a batched
    predicate. Of all single swaps, only cond's rule makes the case right."""
    case = dict(CLEAN_CASES["cond-batched-pred"], program=cond_batched_pred_outputs)
    out, ops = run(case, record=True)
    if right(case, out):
        pytest.skip(f"torch {torch.__version__} batches a cond of several outputs right")
    comps = [f"hop:{h}" for h in vc.swappable(torch)["hops"]] + [vc.FRONT_END] + [f"op:{o}" for o in ops]
    assert [c for c in comps if right(case, run(case, [c])[0])] == ["hop:cond"]


def components_of(case):
    """Every component a swap can name for this case: each HOP with a vmap rule, the front end,
    and each op the batched run calls with a BatchedTensor (recorded; and the case's "ops", which
    return no tensor or may be named otherwise)."""
    out, ops = run(case, record=True)
    assert not isinstance(out, Exception), out
    ops = sorted(set(ops) | set(case.get("ops", ())))
    return [f"hop:{h}" for h in vc.swappable(torch)["hops"]] + [vc.FRONT_END] + [f"op:{o}" for o in ops]


@pytest.mark.parametrize("name", sorted(CLEAN_CASES))
def test_every_swap_alone_leaves_a_clean_run_right(name):
    case = CLEAN_CASES[name]
    skip_unless_batchable(case)
    plain, _ = run(case)
    assert right(case, plain), "the unswapped batched run differs from the loop: the case itself is wrong"
    comps = components_of(case)
    assert sum(c.startswith("op:") for c in comps) >= 2, comps
    wrong = {}
    for c in comps:
        out, _ = run(case, [c])
        if not (right(case, out) and same(out, plain)):
            wrong[c] = out if isinstance(out, Exception) else "values differ"
    assert not wrong, wrong


@pytest.mark.parametrize("hop,name", [("cond", "cond-batched-pred"), ("cond", "cond-unbatched-pred"), ("scan", "scan"),
                                      ("custom_function_call", "autograd-function"), ("cond", "public")])
def test_a_hop_swap_runs_the_per_example_rule(monkeypatch, hop, name):
    """The swapped rule is the one that runs (a swap that changed nothing would pass the tests
    above too), once per vmap level the op meets."""
    ran = []
    real = vc.per_example_hop_rule

    def counting(torch_, op, original):
        rule = real(torch_, op, original)

        def counted(interpreter, *args, **kwargs):
            ran.append((op.__name__, interpreter.level()))
            return rule(interpreter, *args, **kwargs)

        return counted

    monkeypatch.setattr(vc, "per_example_hop_rule", counting)
    case = CLEAN_CASES[name]
    skip_unless_batchable(case)
    out, _ = run(case, [f"hop:{hop}"])
    assert right(case, out)
    assert {n for n, _ in ran} == {hop}
    assert len({level for _, level in ran}) == len(case["levels"]), ran


def test_a_batch_of_no_examples_is_left_to_torch():
    """Batch size 0: the swaps fall back to torch's own rules (no example to stack)."""
    case = dict(CLEAN_CASES["cond-unbatched-pred"], inputs=_seeded((0, 5), (0, 5), (3,)))
    plain, _ = run(case)
    assert [o.shape for o in plain] == [(0, 5), (0, 5)]
    for c in components_of(case):
        out, _ = run(case, [c])
        assert same(out, plain), (c, out)


def test_all_swaps_together_leave_a_clean_run_right():
    case = CLEAN_CASES["nested"]
    skip_unless_batchable(case)
    out, _ = run(case, components_of(case))
    assert right(case, out), out


def test_recording_sees_the_ops_in_branches_and_a_hop_swap_unbatches_them():
    case = CLEAN_CASES["cond-batched-pred"]
    _, ops = run(case, record=True)
    # exp and abs are called only inside the branches: the mode re-enters the cond's callables.
    assert {"exp", "abs", "sin", "cos", "where", "sum", "__getitem__"} <= set(ops), ops
    # With cond's rule swapped, the branches run on each example's plain slices: nothing in them
    # sees a BatchedTensor, so nothing of them is recorded.
    _, ops = run(case, ["hop:cond"], record=True)
    assert not {"exp", "abs", "sin", "cos"} & set(ops), ops


@pytest.mark.parametrize("name", ["cond-batched-pred", "cond-unbatched-pred", "nested"])
def test_an_op_swap_reaches_inside_a_cond_branch(monkeypatch, name):
    """The op is computed per example down to plain tensors, inside the branch, at each level."""
    calls = []
    real = vc.per_example_call

    def spy(torch_, func, args, kwargs):
        if torch_._C._functorch.peek_interpreter_stack() is None:
            calls.append(func.__name__)
        return real(torch_, func, args, kwargs)

    monkeypatch.setattr(vc, "per_example_call", spy)
    case = CLEAN_CASES[name]
    skip_unless_batchable(case)
    op = "mean" if name == "nested" else "sin"
    out, _ = run(case, [f"op:{op}"])
    assert right(case, out)
    assert calls.count(op) >= 4, calls  # one call per example (4 examples, or 3 x 5 nested)
    assert set(calls) == {op}


def test_the_front_end_swap_serves_the_vmaps_inside_hop_rules(monkeypatch):
    made = []
    real = vc.front_end

    def counting(torch_):
        fns = real(torch_)
        impl = fns["vmap_impl"]

        def vmap_impl(*a, **k):
            made.append(a[1])  # in_dims
            return impl(*a, **k)

        return dict(fns, vmap_impl=vmap_impl)

    monkeypatch.setattr(vc, "front_end", counting)
    case = CLEAN_CASES["cond-unbatched-pred"]
    out, _ = run(case, [vc.FRONT_END])
    assert right(case, out)
    # the program's own vmap, then cond_batch_rule's torch.vmap of the branch it takes
    assert made == [(0, 0, None), (0, 0)], made


def test_torch_is_restored_after_a_swap_even_when_the_run_raises():
    import torch._functorch.apis as apis
    import torch._functorch.vmap as vm
    from torch._C._functorch import TransformType
    from torch.overrides import _get_current_function_mode_stack

    hops = vc.hop_rules(torch)
    before = {n: op.functorch_table[TransformType.Vmap] for n, op in hops.items()}
    front = (apis.vmap_impl, vm.vmap_impl, vm.restore_vmap, vm.vmap_increment_nesting)
    everything = [f"hop:{n}" for n in hops] + [vc.FRONT_END, "op:sin", "op:add"]
    with pytest.raises(ZeroDivisionError):
        with vc.swapped(torch, everything, record=True):
            assert apis.vmap_impl is not front[0] and _get_current_function_mode_stack()
            assert all(op.functorch_table[TransformType.Vmap] is not before[n] for n, op in hops.items())
            1 / 0
    assert {n: op.functorch_table[TransformType.Vmap] for n, op in hops.items()} == before
    assert (apis.vmap_impl, vm.vmap_impl, vm.restore_vmap, vm.vmap_increment_nesting) == front
    assert not _get_current_function_mode_stack()
    assert torch._C._functorch.peek_interpreter_stack() is None


def test_an_unknown_component_is_named_before_anything_is_swapped():
    import torch._functorch.apis as apis

    impl = apis.vmap_impl
    for bad in ("hop:no_such_op", "vmap:back-end", "op:", "cond", "hop:"):
        with pytest.raises(vc.UnknownComponent, match=repr(bad).replace("[", r"\[")):
            with vc.swapped(torch, [vc.FRONT_END, bad]):
                pass
        assert apis.vmap_impl is impl


def test_the_hops_are_read_from_torch():
    from torch._C._functorch import TransformType

    hops = vc.swappable(torch)["hops"]
    assert "cond" in hops  # scan too from the torch that has its vmap rule; the table decides below
    ops = getattr(torch._ops, "_higher_order_ops")
    assert set(hops) == {n for n, op in ops.items() if TransformType.Vmap in op.functorch_table}


# ---- planted faults --------------------------------------------------------------------------
# Per forward fault of vmapfuzz_faults.py: programs it makes wrong, and the components whose swap
# alone must make them right (`fixed_by`); every other component of the case (each HOP, the front
# end, each op the run records) must leave them wrong.


def sum_last(x):
    return (x.sum(-1) * 2 + 1,)


def sum_in_cond_branch(x, y):
    return _cond_op()(y.sum() > 0, lambda a: (a.sum(-1) * 2,), lambda a: (a.sum(-1) - 1,), (x,))


def sum_in_public_cond_branch(x, y):
    return torch.cond(y.sum() > 0, lambda a: (a.sum(-1) * 2,), lambda a: (a.sum(-1) - 1,), (x,))


def sum_in_scan(init, xs):
    return _scan_op()(lambda c, t: [c + t.sum(-1), c * 2], [init], [xs], ())


def where_lower_rank(c, x, y):
    return (torch.where(c > 0, x, y),)


def select_negative(x):
    return (x.select(1, -1) * 2,)


def sin_cos(x):
    return x.sin(), x.cos() * 2


def with_unbatched(x, y):
    return (x.sin() + y,)


def nested_inner_unbatched(x, y):
    return x.sin(), y.cos()


def scan_batched(init, xs):
    return _scan_op()(lambda c, t: [c * t + 1, c.sin()], [init], [xs], ())


def scan_unbatched_ys(init, xs):
    return _scan_op()(lambda c, t: [c + t, t * 2], [init], [xs], ())


def scan_captured(init, xs, w):
    return _scan_op()(lambda c, t, w_: [c + t * w_, c * w_], [init], [xs], (w,))


def cond_only(x):
    return _cond_op()(x.sum() > 0, lambda a: (a.sin(),), lambda a: (a.cos(),), (x,))


def cond_two_operands(x, z, y):
    return _cond_op()(y.sum() > 0, lambda a, c: (a + c,), lambda a, c: (a - c,), (x, z))


def cond_operand_dim1(x, y):
    return _cond_op()(y.sum() > 0, lambda a: (a.cumsum(0),), lambda a: (a.flip(0),), (x,))


def vmap_in_cond_branch(x, w):
    """A vmap inside a cond branch whose predicate every example shares: cond_batch_rule re-vmaps
    the branches and runs them under interpreter.lower(); the inner vmap's second output is not
    batched at its own level (vmap expands it to the inner batch size)."""
    def branch(a, c):
        return torch.vmap(lambda r, c_: (r * 2, c_ + 1), in_dims=(0, None))(a, c)

    return _cond_op()(torch.tensor(True), branch, branch, (x, w))


def public_cond(x):
    return torch.cond(x.sum() > 0, lambda a: (a.sin(),), lambda a: (a.cos(),), (x,))


def _case(program, levels, *shapes, ops=()):
    """`ops`: ops the program calls besides those a run records (a run that raises records only
    the calls it finished), also tried as unrelated swaps."""
    return dict(program=program, levels=levels, inputs=_seeded(*shapes), ops=ops)


ONE = [dict(in_dims=0)]
FAULT_CASES = {
    "cond-batched-pred-swapped": [(_case(cond_only, ONE, (4, 3)), {"hop:cond"}),
                                  (_case(public_cond, ONE, (4, 3)), {"hop:cond"})],
    "cond-batched-pred-any": [(_case(cond_only, ONE, (4, 3)), {"hop:cond"})],
    "cond-operand-bdim-zero": [(_case(cond_operand_dim1, [dict(in_dims=(1, None))], (3, 4), (2,)), {"hop:cond"})],
    "cond-unbatched-pred-inputs-unbatched": [(_case(cond_two_operands, [dict(in_dims=(0, 0, None))], (4, 3), (4, 3), (2,)),
                                              {"hop:cond"})],
    "scan-bdim-moved-to-front": [(_case(scan_batched, [dict(in_dims=(0, 0))], (2, 4), (2, 3, 4), ops=("mul", "add", "sin")),
                                  {"hop:scan"})],
    "scan-unbatched-output-marked-batched": [(_case(scan_unbatched_ys, [dict(in_dims=(0, None))], (2, 4), (3, 4)),
                                              {"hop:scan"})],
    "scan-captured-unbatched": [(_case(scan_captured, [dict(in_dims=(0, 0, 0))], (3, 4), (3, 5, 4), (3, 4)), {"hop:scan"})],
    "vmap-negative-in-dim": [(_case(sin_cos, [dict(in_dims=-2)], (2, 3, 5)), {vc.FRONT_END})],
    "vmap-negative-out-dim": [(_case(sin_cos, [dict(in_dims=0, out_dims=-1)], (4, 3)), {vc.FRONT_END})],
    "vmap-chunk-unbatched-input-short": [(_case(with_unbatched, [dict(in_dims=(0, None), chunk_size=2)], (5, 3), (3,)),
                                          {vc.FRONT_END})],
    "vmap-chunk-split-dim0": [(_case(sin_cos, [dict(in_dims=1, chunk_size=2)], (3, 5)), {vc.FRONT_END})],
    "vmap-chunk-concat-dim0": [(_case(sin_cos, [dict(in_dims=0, out_dims=1, chunk_size=2)], (5, 3)), {vc.FRONT_END})],
    "vmap-nested-physical-batch-size": [(_case(nested_inner_unbatched, [dict(in_dims=(0, 0)), dict(in_dims=(0, None))],
                                               (2, 3, 4), (2, 4)), {vc.FRONT_END})],
    "vmap-equal-size-levels-merged": [(_case(nested_inner_unbatched, [dict(in_dims=(0, 0)), dict(in_dims=(1, None))],
                                             (3, 4, 3), (3, 4), ops=("sin", "cos")), {vc.FRONT_END})],
    "vmap-in-region-lowered-batch-size": [(_case(vmap_in_cond_branch, [dict(in_dims=(0, 0))], (5, 4, 3), (5, 2)),
                                           {vc.FRONT_END})],
    "aten-sum-negative-dim": [(_case(sum_last, ONE, (2, 3, 4)), {"op:sum"}),
                              # inside a HOP's body: the HOP's per-example rule unbatches the body too
                              (_case(sum_in_cond_branch, [dict(in_dims=(0, None))], (2, 3, 4), (3,)), {"op:sum", "hop:cond"}),
                              # the public torch.cond: dynamo compiles the branches, the graph runs under the mode
                              (_case(sum_in_public_cond_branch, [dict(in_dims=(0, None))], (2, 3, 4), (3,)),
                               {"op:sum", "hop:cond"}),
                              (_case(sum_in_scan, [dict(in_dims=(0, 0))], (2, 3), (2, 5, 3, 4), ops=("add", "mul")),
                               {"op:sum", "hop:scan"})],
    "aten-where-no-logical-pad": [(_case(where_lower_rank, [dict(in_dims=(0, 0, 0))], (3, 4), (3, 3, 4), (3, 3, 4)),
                                   {"op:where"})],
    "aten-select-negative-index": [(_case(select_negative, ONE, (2, 3, 5)), {"op:select"})],
}


def forward_faults():
    """The faults of vmapfuzz_faults.py planted in torch's batching (cond-, scan-, vmap-, aten-)
    that change forward values (not the gradient-only ones)."""
    import vmapfuzz_faults

    return sorted(n for n, fn in vmapfuzz_faults.FAULTS.items()
                  if n.split("-")[0] in ("cond", "scan", "vmap", "aten")
                  and not (fn.__doc__ or "").lstrip().startswith("Gradient modes only:"))


def batchable(cases):
    """The (case, components) of a fault whose HOPs this torch can vmap (torch 2.6: not scan)."""
    return [(case, want) for case, want in cases if not lacking(c[4:] for c in want if c.startswith("hop:"))]


def localise(fault):
    """In this (fresh) process: plants `fault` and, per case of batchable(FAULT_CASES[fault]),
    whether the unswapped run is wrong and which single swaps make it right. JSON-able."""
    import vmapfuzz_faults

    vmapfuzz_faults.plant([fault])
    found = []
    for case, _ in batchable(FAULT_CASES[fault]):
        out, ops = run(case, record=True)
        comps = ([f"hop:{h}" for h in vc.swappable(torch)["hops"]] + [vc.FRONT_END]
                 + [f"op:{o}" for o in sorted(set(ops) | set(case["ops"]))])
        fixes = sorted(c for c in comps if right(case, run(case, [c])[0]))
        found.append({"program": case["program"].__name__, "wrong": not right(case, out),
                      "unswapped": repr(out)[:200] if isinstance(out, Exception) else "values",
                      "tried": comps, "fixed_by": fixes})
    return found


def localise_each(faults, at_once=2):
    """{fault: {"cases": localise(fault)} or {"error": text}}, each fault planted in a process of its
    own: a fork of this one (which plants nothing and runs no case), made after torch and dynamo
    are imported, so each fault starts from a clean torch without paying the imports."""
    importlib.import_module("torch._dynamo")  # imported once here too (the public API's cases, the front end)
    from vmapfuzz_faults import FaultNotApplicable

    results, pending, running = {}, list(faults), {}
    while pending or running:
        while pending and len(running) < at_once:
            fault = pending.pop(0)
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: plant, localise, write the JSON, leave without cleanup
                os.close(r)
                try:
                    text = json.dumps({"cases": localise(fault)})
                except FaultNotApplicable as e:  # this torch lacks the code the fault changes
                    text = json.dumps({"not_applicable": str(e)})
                except BaseException:
                    text = json.dumps({"error": traceback.format_exc()})
                with os.fdopen(w, "w") as out:
                    out.write(text)
                os._exit(0)
            os.close(w)
            running[pid] = (fault, os.fdopen(r))
        pid, status = os.wait()
        fault, pipe = running.pop(pid)
        text = pipe.read()
        pipe.close()
        results[fault] = json.loads(text) if text else {"error": f"the child ended with wait status {status}"}
    return results


@pytest.fixture(scope="module")
def localised():
    """Every forward fault localised by a fresh python (`python3 test_culprits.py --each`), which
    forks one process per fault."""
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--each"], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ, VMAPFUZZ_FAULTS=""))
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_every_forward_fault_has_cases():
    assert set(forward_faults()) == set(FAULT_CASES)


def test_each_fault_is_expected_where_the_faults_file_says_it_is_planted():
    """The component every case of a fault must name (a HOP around the op may name it too)."""
    import vmapfuzz_faults

    if not hasattr(vmapfuzz_faults, "COMPONENT"):
        pytest.skip("vmapfuzz_faults.py names no components")
    for fault, cases in FAULT_CASES.items():
        assert set.intersection(*(want for _, want in cases)) == {vmapfuzz_faults.COMPONENT[fault]}, fault


@pytest.mark.parametrize("fault", sorted(FAULT_CASES))
def test_the_fault_is_localised_to_its_component(localised, fault):
    got = localised[fault]
    assert "error" not in got, got.get("error")
    if "not_applicable" in got:
        pytest.skip(got["not_applicable"])
    cases = batchable(FAULT_CASES[fault])
    if not cases:
        pytest.skip(f"torch {torch.__version__} cannot vmap any case of {fault}")
    assert len(got["cases"]) == len(cases)
    for (case, want), found in zip(cases, got["cases"]):
        assert found["wrong"], f"{found['program']}: the fault does not change this case"
        assert want <= set(found["tried"]), found
        # unrelated swaps of every kind were tried: another HOP's rule, and an op of the program
        assert {"hop:cond", "hop:scan"} - want and any(c.startswith("op:") and c not in want for c in found["tried"]), found
        assert set(found["fixed_by"]) == want, found


# ---- the worker protocol -----------------------------------------------------------------------


def _frame(header, blobs=()):
    data = json.dumps(header).encode()
    return struct.pack("<Q", len(data)) + data + b"".join(blobs)


def _ask(p, header, blobs=()):
    p.stdin.write(_frame(header, blobs))
    p.stdin.flush()
    (n,) = struct.unpack("<Q", p.stdout.read(8))
    return json.loads(p.stdout.read(n))


SOURCE = """import torch
from torch._higher_order_ops.cond import cond_op


def program(x):
    return cond_op(x.sum() > 0, lambda a: (a.sin() * 2,), lambda a: (a.cos(),), (x,))


batched = torch.vmap(program)
"""


def test_the_worker_swaps_records_and_names_an_unknown_component():
    env = dict(os.environ, VMAPFUZZ_FAULTS="cond-batched-pred-swapped", VMAPFUZZ_COVERAGE="")
    p = subprocess.Popen([sys.executable, os.path.join(WORKER_DIR, "vmapfuzz_worker.py")], env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        hello = _ask(p, {"v": 2, "op": "hello"})
        assert hello["status"] == "ok"
        hops = set(hello["swappable"]["hops"])
        assert hops == set(vc.swappable(torch)["hops"]) and "cond" in hops
        assert hello["swappable"]["front_end"] is True
        x = torch.tensor([[1.0, 2.0], [-3.0, -1.0]])
        want = looped(lambda a: (a.sin() * 2,) if a.sum() > 0 else (a.cos(),))(x)[0]
        run_ = {"v": 2, "op": "run", "source": SOURCE, "mode": "batched", "exec": {"api": "direct"},
                "tensors": [{"dtype": "f32", "shape": [2, 2]}]}
        blob = x.numpy().tobytes()

        def values(reply):
            assert reply["status"] == "ok", reply.get("error")
            return torch.frombuffer(bytearray(p.stdout.read(16)), dtype=torch.float32).reshape(2, 2)

        # the planted fault swaps the branches of a batched predicate: wrong unswapped ...
        plain = _ask(p, dict(run_, id=1), [blob])
        assert not torch.allclose(values(plain), want) and "ops" not in plain
        # ... right with cond's rule swapped (the branches ran on plain slices: none of their ops
        # is recorded)
        fixed = _ask(p, dict(run_, id=2, swap=["hop:cond"], record_ops=True), [blob])
        assert torch.allclose(values(fixed), want)
        assert {"gt", "sum"} <= set(fixed["ops"]) and not {"sin", "cos", "mul"} & set(fixed["ops"]), fixed["ops"]
        swapped_only = _ask(p, dict(run_, id=6, swap=["hop:cond"]), [blob])
        assert torch.allclose(values(swapped_only), want) and "ops" not in swapped_only
        recorded = _ask(p, dict(run_, id=3, record_ops=True, swap=["op:sin"]), [blob])
        assert not torch.allclose(values(recorded), want)
        assert {"sin", "cos", "mul", "sum", "gt"} <= set(recorded["ops"])
        # an unknown component: an error of the worker naming it, nothing run
        bad = _ask(p, dict(run_, id=4, swap=["hop:cond", "hop:no_such_op"]), [blob])
        assert bad["status"] == "error" and bad["error"]["stage"] == "worker"
        assert "'hop:no_such_op'" in bad["error"]["message"] and "UnknownComponent" in bad["error"]["type"]
        # the worker is clean afterwards: the fault is back
        again = _ask(p, dict(run_, id=5), [blob])
        assert not torch.allclose(values(again), want)
    finally:
        p.stdin.close()
        p.wait()


if __name__ == "__main__":
    # `python3 test_culprits.py FAULT`: localise one planted fault in this process;
    # `python3 test_culprits.py --each`: every forward fault, each in a forked process (`localised`).
    if sys.argv[1] == "--each":
        print(json.dumps(localise_each(forward_faults())))
    else:
        print(json.dumps(localise(sys.argv[1])))


def test_components_name_the_hops_the_front_end_and_the_ops_a_recorded_run_went_through():
    """The reply's "components" (what the C++ side swaps one at a time): the higher-order op called
    on batched tensors, vmap's front end, and the ops, each under its full name."""
    import vmapfuzz_culprits as vc
    import torch
    from torch._higher_order_ops.cond import cond_op

    def tf(x):
        return (torch.sin(x),)

    def ff(x):
        return (torch.cos(x),)

    def prog(x):
        return cond_op(torch.sum(x) > 0, tf, ff, (x,))

    with vc.swapped(torch, [], record=True) as swap:
        torch.vmap(prog)(torch.randn(3, 2))
    got = swap.components(torch)
    assert got[0] == "hop:cond" and "vmap:front-end" in got, got
    assert {"op:sin", "op:cos", "op:sum"} <= set(got), got
    assert not any(c.startswith("op:cond") for c in got), got
