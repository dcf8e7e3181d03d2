"""Faults planted into torch's batching machinery, in the worker process only.

Each fault is one plausible bug in one place of torch's vmap support: a higher-order op's
batching rule (`functorch_table`), a helper of the vmap front end (`torch._functorch.vmap`), or
one ATen op's C++ batching rule (overridden at the `FuncTorchBatched` dispatch key with
`torch.library`). They exist so that `vmapfuzz selftest` can measure whether, and how fast, the
harness notices broken batching, the way mutation testing measures a test suite.

Most faults are *source mutations*: the installed torch's own function, with exactly one line
changed, recompiled in its own module and installed wherever torch refers to it. A fault whose
line is no longer in the installed torch fails to plant with a clear message (FaultNotApplicable)
rather than silently testing nothing. Faults that cannot be written as one changed line of Python
(a C++ rule, a rule's input) wrap the original instead; their docstrings say what they mimic.

`FAULTS` maps each name to (planting function, where it lives, what a case needs to show it).
"""
import importlib
import inspect
import textwrap

from vmapfuzz_culprits import replace_everywhere as _replace_everywhere  # imports no torch

if __name__ != "__main__":  # listing the faults (`python3 vmapfuzz_faults.py`) needs no torch
    import torch
    from torch._C._functorch import (
        TransformType,
        _add_batch_dim,
        get_unwrapped,
        is_batchedtensor,
        maybe_get_bdim,
        maybe_get_level,
    )


class FaultNotApplicable(RuntimeError):
    """The installed torch does not contain the code a fault mutates."""


# ---- planting helpers --------------------------------------------------------------------------


def _hop_rule(op):
    if TransformType.Vmap not in op.functorch_table:  # e.g. scan and while_loop in torch 2.6
        raise FaultNotApplicable(f"{op} has no vmap rule in torch {torch.__version__}")
    return op.functorch_table[TransformType.Vmap]


def _set_hop_rule(op, fn):
    op.functorch_table[TransformType.Vmap] = fn


def _mutate(module_name, func_name, old, new):
    """Recompiles `module.func_name` with the single occurrence of `old` replaced by `new`, in the
    module's own globals, and returns the new function (not yet installed)."""
    mod = importlib.import_module(module_name)
    if not hasattr(mod, func_name):
        raise FaultNotApplicable(f"{module_name} in torch {torch.__version__} has no {func_name}")
    fn = getattr(mod, func_name)
    fn = inspect.unwrap(fn)
    src = textwrap.dedent(inspect.getsource(fn))
    if src.count(old) != 1:
        raise FaultNotApplicable(
            f"{module_name}.{func_name} in torch {torch.__version__} has {src.count(old)} occurrences of {old!r}, expected 1")
    src = src.replace(old, new)
    # Decorators (e.g. @cond_op.py_impl(...)) would register the copy a second time; the caller
    # installs it explicitly instead.
    lines = src.splitlines(keepends=True)
    while lines and lines[0].lstrip().startswith("@"):
        lines.pop(0)
    ns = {}
    code = compile("".join(lines), f"<vmapfuzz fault in {module_name}.{func_name}>", "exec")
    exec(code, mod.__dict__, ns)
    new_fn = ns[func_name]
    new_fn.__module__ = module_name
    return fn, new_fn


def _mutate_module_function(module_name, func_name, old, new):
    fn, new_fn = _mutate(module_name, func_name, old, new)
    _replace_everywhere(fn, new_fn)


def _mutate_hop_rule(op, module_name, func_name, old, new):
    fn, new_fn = _mutate(module_name, func_name, old, new)
    if _hop_rule(op) is not fn:
        raise FaultNotApplicable(f"{module_name}.{func_name} is not the vmap rule of {op}")
    _set_hop_rule(op, new_fn)
    _replace_everywhere(fn, new_fn)


_libs = []  # keep torch.library registrations alive


def _override_batch_rule(op_overload, rule):
    """Replaces ATen's C++ batching rule of one op (its FuncTorchBatched kernel) with `rule`,
    which gets the physical tensors of the current level and their batch dims. Arguments not
    batched at the current level go straight to the next level, as functorch's own plumbing
    does."""
    name = op_overload.rsplit(".", 1)
    lib = torch.library.Library("aten", "IMPL")
    _libs.append(lib)
    op = getattr(getattr(torch.ops.aten, name[0]), name[1])

    def kernel(*args, **kwargs):
        level = torch._C._functorch.maybe_current_level()
        batched = [isinstance(a, torch.Tensor) and is_batchedtensor(a) and maybe_get_level(a) == level for a in args]
        with torch._C._ExcludeDispatchKeyGuard(torch._C.DispatchKeySet(torch._C.DispatchKey.FuncTorchBatched)):
            if not any(batched):
                return op(*args, **kwargs)
            phys = [get_unwrapped(a) if b else a for a, b in zip(args, batched)]
            bdims = [maybe_get_bdim(a) if b else None for a, b in zip(args, batched)]
            out, out_bdim = rule(op, phys, bdims, kwargs)
        return _add_batch_dim(out, out_bdim, level)

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Overriding a previously registered kernel": intended
        lib.impl(op_overload, kernel, "FuncTorchBatched")


# ---- cond ---------------------------------------------------------------------------------------


def cond_batched_pred_swapped():
    """cond with a batched predicate runs true_fn where pred is False and vice versa.

    Mimics the operands of torch.where(p, t, f) swapped in cond_batch_rule's batched-predicate
    path."""
    from torch._higher_order_ops.cond import cond_op

    orig = _hop_rule(cond_op)

    def rule(interpreter, pred, true_fn, false_fn, inputs):
        if isinstance(pred, torch.Tensor) and is_batchedtensor(pred):
            return orig(interpreter, pred, false_fn, true_fn, inputs)
        return orig(interpreter, pred, true_fn, false_fn, inputs)

    _set_hop_rule(cond_op, rule)


def cond_batched_pred_any():
    """A batched cond predicate is reduced with any(): every example takes true_fn as soon as one
    does. Mimics the batching rule of a while_loop predicate (JAX reduces it with OR) copied into
    cond, where each example must choose on its own."""
    from torch._higher_order_ops.cond import cond_op

    orig = _hop_rule(cond_op)

    def rule(interpreter, pred, true_fn, false_fn, inputs):
        if isinstance(pred, torch.Tensor) and is_batchedtensor(pred) and maybe_get_level(pred) == interpreter.level():
            with interpreter.lower():
                pred = get_unwrapped(pred).any()
        return orig(interpreter, pred, true_fn, false_fn, inputs)

    _set_hop_rule(cond_op, rule)


def cond_operand_bdim_zero():
    """cond_batch_rule assumes every batched operand carries its batch dim in front
    (`maybe_get_bdim(t)` replaced by 0). Shows when an operand's batch dim is elsewhere: a
    non-zero or negative in_dim passed straight to cond, or a transpose before it."""
    from torch._higher_order_ops.cond import cond_op

    _mutate_hop_rule(cond_op, "torch._higher_order_ops.cond", "cond_batch_rule",
                     "(get_unwrapped(t), maybe_get_bdim(t)) if is_batchedtensor(t)",
                     "(get_unwrapped(t), 0) if is_batchedtensor(t)")


def cond_unbatched_pred_inputs_unbatched():
    """With a predicate not batched at this level, cond_batch_rule vmaps true_fn with in_dims for
    its first operand only and None for the rest (in_dims built for the explicit operand, the
    lifted captured tensors forgotten), so a batched second operand or captured tensor reaches
    the branch with its batch dim as a data dim. Only an unbatched predicate with a second,
    batched operand (often a captured value) shows it."""
    from torch._higher_order_ops.cond import cond_op

    _mutate_hop_rule(cond_op, "torch._higher_order_ops.cond", "cond_batch_rule",
                     "true_fn = torch.vmap(true_fn, in_dims=in_dims)",
                     "true_fn = torch.vmap(true_fn, in_dims=in_dims[:1] + (None,) * (len(in_dims) - 1))")


# ---- autograd of batched control flow (the gradient modes: --mode MODE+grad) -------------------
# Each leaves the forward values alone and breaks only what the backward pass sees, and only
# under vmap (a per-example run's backward is untouched), so only a gradient mode finds them.
# Their docstrings start with "Gradient modes only:" (kGradientFaultMarker in selftest.h): a
# gradient mode's selftest plants these by default, any other mode the rest.


def cond_batched_pred_false_grad_dropped():
    """Gradient modes only: with a batched predicate, no gradient reaches false_fn's operands. cond_batch_rule
    selects false_fn's result detached from the autograd graph (the forward is unchanged), as a
    batching rule that lowers cond to select but treats the untaken-looking branch as a constant
    would. Only a gradient mode, with a batched predicate and a false branch that depends on a
    floating input, shows it."""
    from torch._higher_order_ops.cond import cond_op

    _mutate_hop_rule(cond_op, "torch._higher_order_ops.cond", "cond_batch_rule",
                     "return torch.where(p, t[0], f[0])",
                     "return torch.where(p, t[0], f[0].detach())")


def cond_unbatched_pred_operand_detached():
    """Gradient modes only: under vmap, cond with an unbatched predicate drops its first operand's
    gradient. With a predicate not batched at this level, cond_batch_rule hands its first operand to
    cond_op detached from the autograd graph (the forward is unchanged): the backward of cond
    under vmap drops that operand's cotangent, as a rule that unwraps operands without their
    autograd history would. Only a gradient mode, with an unbatched predicate whose first
    operand depends on a floating input, shows it."""
    from torch._higher_order_ops.cond import cond_op

    _mutate_hop_rule(cond_op, "torch._higher_order_ops.cond", "cond_batch_rule",
                     "result = cond_op(pred, true_fn, false_fn, tensors)",
                     "result = cond_op(pred, true_fn, false_fn, (tensors[0].detach(),) + tuple(tensors[1:]))")


def _tangent_dropped():
    """The identity with the right backward (the gradient passes through) and a zero forward-mode
    derivative: what a jvp rule that forgets an operand's tangent computes. (A function: listing
    the faults needs no torch.)"""
    class TangentDropped(torch.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x.clone()

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, grad):
            return grad

        @staticmethod
        def jvp(ctx, tangent):
            return torch.zeros_like(tangent)

    return TangentDropped.apply


def cond_batched_pred_false_tangent_dropped():
    """Gradient modes only: +jvp only: under torch.func.jvp of vmap, with a batched predicate,
    false_fn's result loses its tangent. cond_batch_rule selects false_fn's result through an op
    whose forward-mode derivative is zero (its value and its backward are the identity), as a
    forward-mode rule of cond that carries only the true branch's tangent would. Forward values
    and VJPs are unchanged: only a +jvp mode, with a batched predicate, an example taking the
    false branch and a false branch that depends on a floating input, shows it."""
    from torch._higher_order_ops.cond import cond_op

    # The module itself (torch._higher_order_ops.cond as an attribute is the function cond).
    importlib.import_module("torch._higher_order_ops.cond")._vmapfuzz_tangent_dropped = _tangent_dropped()
    _mutate_hop_rule(cond_op, "torch._higher_order_ops.cond", "cond_batch_rule",
                     "return torch.where(p, t[0], f[0])",
                     "return torch.where(p, t[0], _vmapfuzz_tangent_dropped(f[0]))")


def scan_batched_operands_detached():
    """Gradient modes only: no gradient reaches a batched operand of scan under vmap. scan_batch_rule
    moves each batched operand's batch dim to the end on a detached copy (the
    forward is unchanged), so no gradient reaches a batched init, xs or captured value of a
    scan under vmap. Only a gradient mode shows it."""
    from torch._higher_order_ops.scan import scan_op

    _mutate_hop_rule(scan_op, _SCAN, "scan_batch_rule",
                     "lambda x, bdim: x.movedim(bdim, -1) if bdim is not None else x,",
                     "lambda x, bdim: x.detach().movedim(bdim, -1) if bdim is not None else x,")


# ---- vmap front end (torch._functorch.vmap) -----------------------------------------------------

_VMAP = "torch._functorch.vmap"


def vmap_negative_in_dim():
    """A negative in_dim is wrapped as if a dim were being inserted (modulo rank + 1, as for
    unsqueeze), so in_dims=-1 points past the last dim and -2 at the last one. Only negative
    in_dims show it."""
    _mutate_module_function(_VMAP, "_process_batched_inputs",
                            "flat_in_dims[i] = in_dim % arg.dim()",
                            "flat_in_dims[i] = in_dim % (arg.dim() + 1)")


def vmap_negative_out_dim():
    """A negative out_dim is wrapped against the per-example rank instead of rank + 1 (the
    output has one more dim once the batch dim is back), so out_dims=-1 puts the batch dim
    before the last dim. Only negative out_dims of outputs with rank >= 1 show it."""
    _mutate_module_function(_VMAP, "_maybe_remove_batch_dim",
                            "return _remove_batch_dim(batched_output, vmap_level, batch_size, out_dim)",
                            "return _remove_batch_dim(batched_output, vmap_level, batch_size, "
                            "out_dim + batched_output.dim() if out_dim < 0 else out_dim)")


def vmap_chunk_unbatched_input_short():
    """_get_chunked_inputs repeats an unbatched input (in_dim None) once per split index minus
    one, as if tensor_split returned len(split_idxs) pieces (it returns one more, the last
    empty): zip then stops a chunk early and the last chunk of examples is dropped. Only
    chunk_size smaller than the batch size, with an input that is not batched, shows it."""
    _mutate_module_function(_VMAP, "_get_chunked_inputs",
                            "* len(split_idxs)",
                            "* (len(split_idxs) - 1)")


def vmap_chunk_split_dim0():
    """_get_chunked_inputs splits every batched input along dim 0 instead of its in_dim. Only
    chunk_size with an in_dim other than 0 shows it."""
    _mutate_module_function(_VMAP, "_get_chunked_inputs",
                            "t.tensor_split(split_idxs, dim=in_dim)",
                            "t.tensor_split(split_idxs, dim=0)")


def vmap_chunk_concat_dim0():
    """_concat_chunked_outputs concatenates the chunks' outputs along dim 0 instead of out_dim.
    Only chunk_size with more than one chunk and an out_dim other than 0 shows it."""
    _mutate_module_function(_VMAP, "_concat_chunked_outputs",
                            "torch.cat(chunk, dim=out_dim)",
                            "torch.cat(chunk, dim=0)")


def vmap_nested_physical_batch_size():
    """_validate_and_get_batch_size reads an input's batch size from its physical tensor (the
    enclosing vmap's BatchedTensor unwrapped) instead of its logical view. Only nested vmap,
    where an outer level batches the same input, shows it; the wrong size surfaces where vmap
    uses it: an output not batched at the inner level is expanded to it, and inputs are checked
    against each other."""
    _mutate_module_function(_VMAP, "_validate_and_get_batch_size",
                            "arg.size(in_dim)",
                            "(torch._C._functorch.get_unwrapped(arg) if is_batchedtensor(arg) else arg).size(in_dim)")


def vmap_equal_size_levels_merged():
    """A nested vmap whose batch size equals the enclosing vmap's reuses the enclosing level
    instead of opening its own (a level cache keyed by batch size). Only nested vmap levels with
    equal batch sizes show it."""
    import contextlib

    vm = importlib.import_module(_VMAP)
    from torch._functorch.pyfunctorch import retrieve_current_functorch_interpreter

    orig = vm.vmap_increment_nesting

    @contextlib.contextmanager
    def reuse_or_increment(batch_size, randomness):
        cur = retrieve_current_functorch_interpreter() if torch._C._functorch.peek_interpreter_stack() else None
        if cur is not None and cur.key() == TransformType.Vmap and cur.batch_size() == batch_size:
            yield cur.level()
            return
        with orig(batch_size, randomness) as level:
            yield level

    vm.vmap_increment_nesting = reuse_or_increment


def vmap_in_region_lowered_batch_size():
    """A vmap opened inside a region that a batching rule runs one level down (a cond branch or
    a scan combine function batched by an enclosing vmap: the code under the rule's
    `interpreter.lower()`) takes its batch size from the level the rule lowered from instead of
    its own inputs, so an output its function returns unbatched is expanded to the enclosing
    level's size. Only a vmap inside a batched control-flow region shows it.

    Mimics a front end that reads the batch size of the wrong interpreter level when it removes
    the batch dim of an output. The rules' own vmaps (the branches cond_batch_rule re-vmaps,
    called from torch's code) run at the size they lowered from anyway and are left alone. The
    unwrapping runs when the program runs, also where dynamo compiled the region (the wrapper is
    kept in its graph)."""
    import contextlib
    import sys

    from torch._functorch import pyfunctorch

    vm = importlib.import_module(_VMAP)
    lowered = []  # the batch sizes of the vmap levels rules have lowered from, innermost last
    orig_lower, orig_remove = pyfunctorch.VmapInterpreter.lower, vm._remove_batch_dim

    @contextlib.contextmanager
    def lower(self):
        lowered.append(self.batch_size())
        try:
            with orig_lower(self):
                yield
        finally:
            lowered.pop()

    def remove_batch_dim(batched_output, vmap_level, batch_size, out_dim):
        # Who opened this vmap: the first frame out of torch._functorch (a rule's own vmap is
        # called from torch's code).
        frame = sys._getframe(1)
        while frame is not None and frame.f_globals.get("__name__", "").startswith("torch._functorch"):
            frame = frame.f_back
        caller = frame.f_globals.get("__name__", "") if frame is not None else ""
        if lowered and not caller.startswith("torch.") and caller != "torch":
            batch_size = lowered[-1]
        return orig_remove(batched_output, vmap_level, batch_size, out_dim)

    pyfunctorch.VmapInterpreter.lower = lower
    vm._remove_batch_dim = torch._dynamo.allow_in_graph(remove_batch_dim)


# ---- scan ---------------------------------------------------------------------------------------

_SCAN = "torch._higher_order_ops.scan"


def scan_bdim_moved_to_front():
    """scan_batch_rule moves each batched operand's batch dim to the front instead of to the end,
    where it collides with the scanned dim (while the per-slice in_dims still say -1)."""
    from torch._higher_order_ops.scan import scan_op

    _mutate_hop_rule(scan_op, _SCAN, "scan_batch_rule",
                     "lambda x, bdim: x.movedim(bdim, -1) if bdim is not None else x,",
                     "lambda x, bdim: x.movedim(bdim, 0) if bdim is not None else x,")


def scan_unbatched_output_marked_batched():
    """scan_batch_rule marks every output of the combine function as batched (out dim -1), also
    those that depend on no batched value, so their last data dim is taken for the batch dim.
    Only a scan output that does not depend on batched values shows it."""
    from torch._higher_order_ops.scan import scan_op

    _mutate_hop_rule(scan_op, _SCAN, "scan_batch_rule",
                     "lambda out_bdim: -1 if out_bdim is not None else None,",
                     "lambda out_bdim: -1,")


def scan_captured_unbatched():
    """scan_batch_rule treats the scan's additional inputs (the tensors the combine function
    captures, lifted by dynamo) as unbatched: each example sees the first example's captured
    value. Only a combine function that captures a value batched at this level shows it."""
    from torch._higher_order_ops.scan import scan_op

    orig = _hop_rule(scan_op)

    def rule(interpreter, combine_fn, init, xs, additional_inputs, *args, **kwargs):
        level = interpreter.level()
        fixed = []
        with interpreter.lower():
            for a in additional_inputs:
                if isinstance(a, torch.Tensor) and is_batchedtensor(a) and maybe_get_level(a) == level:
                    a = get_unwrapped(a).select(maybe_get_bdim(a), 0)
                fixed.append(a)
        return orig(interpreter, combine_fn, init, xs, type(additional_inputs)(fixed), *args, **kwargs)

    _set_hop_rule(scan_op, rule)


# ---- ATen C++ batching rules --------------------------------------------------------------------


def aten_sum_negative_dim():
    """sum.dim_IntList's batching rule wraps a negative dim against the logical rank but forgets
    to shift it past the batch dim, so sum(x, -1) reduces the logical dim before the last, and
    sum(x, -rank) reduces over the batch. Only negative dims show it."""

    def rule(op, phys, bdims, kwargs):
        x, dims, *rest = phys
        x = x.movedim(bdims[0], 0)
        logical_rank = x.dim() - 1
        if dims is None:
            dims = []
        wrapped = [d + logical_rank if d < 0 else d + 1 for d in dims]  # fault: d + logical_rank + 1
        if not dims:
            wrapped = list(range(1, x.dim()))
        return op(x, wrapped, *rest, **kwargs), 0

    _override_batch_rule("sum.dim_IntList", rule)


def aten_where_no_logical_pad():
    """where.self's batching rule moves every batch dim to the front but forgets to pad each
    operand to the common logical rank (functorch's maybePadToLogicalRank) first, so a batched
    operand of lower rank broadcasts its batch dim against a data dim. Only operands of
    different ranks with at least one of the lower-rank ones batched show it."""

    def rule(op, phys, bdims, kwargs):
        moved = [t if b is None else t.movedim(b, 0) for t, b in zip(phys, bdims)]
        return op(*moved, **kwargs), 0

    _override_batch_rule("where.self", rule)


def aten_select_negative_index():
    """select.int's batching rule wraps a negative index against the physical tensor's size at
    the batch dim instead of the selected dim (a mixed-up size lookup). Only negative indices
    into a dim whose size differs from the batch size show it."""

    def rule(op, phys, bdims, kwargs):
        x, dim, index = phys
        x = x.movedim(bdims[0], 0)
        logical_rank = x.dim() - 1
        pdim = (dim + logical_rank if dim < 0 else dim) + 1
        if index < 0:
            index = index + x.size(0)  # fault: x.size(pdim)
        return op(x, pdim, index, **kwargs), 0

    _override_batch_rule("select.int", rule)


FAULTS = {
    "cond-batched-pred-false-tangent-dropped": cond_batched_pred_false_tangent_dropped,
    "cond-batched-pred-swapped": cond_batched_pred_swapped,
    "cond-batched-pred-any": cond_batched_pred_any,
    "cond-operand-bdim-zero": cond_operand_bdim_zero,
    "cond-unbatched-pred-inputs-unbatched": cond_unbatched_pred_inputs_unbatched,
    "vmap-negative-in-dim": vmap_negative_in_dim,
    "vmap-negative-out-dim": vmap_negative_out_dim,
    "vmap-chunk-unbatched-input-short": vmap_chunk_unbatched_input_short,
    "vmap-chunk-split-dim0": vmap_chunk_split_dim0,
    "vmap-chunk-concat-dim0": vmap_chunk_concat_dim0,
    "vmap-nested-physical-batch-size": vmap_nested_physical_batch_size,
    "vmap-equal-size-levels-merged": vmap_equal_size_levels_merged,
    "vmap-in-region-lowered-batch-size": vmap_in_region_lowered_batch_size,
    "scan-bdim-moved-to-front": scan_bdim_moved_to_front,
    "scan-unbatched-output-marked-batched": scan_unbatched_output_marked_batched,
    "scan-captured-unbatched": scan_captured_unbatched,
    "aten-sum-negative-dim": aten_sum_negative_dim,
    "aten-where-no-logical-pad": aten_where_no_logical_pad,
    "aten-select-negative-index": aten_select_negative_index,
    "cond-batched-pred-false-grad-dropped": cond_batched_pred_false_grad_dropped,
    "cond-unbatched-pred-operand-detached": cond_unbatched_pred_operand_detached,
    "scan-batched-operands-detached": scan_batched_operands_detached,
}


def describe():
    """One line per fault: name and the first sentence of its docstring."""
    return {name: " ".join(fn.__doc__.split()).split(". ")[0] for name, fn in FAULTS.items()}


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


def precompile_load_perturbed():
    """A loaded precompiled function returns its first floating output plus one: a compiled
    artifact that is wrong only after it is saved and loaded in a fresh process.

    Nothing is planted in the worker itself: vmapfuzz_precompile.py's fresh process reads the name
    from VMAPFUZZ_FAULTS and perturbs what the loaded function returns (precompile modes only)."""


FAULTS["precompile-load-perturbed"] = precompile_load_perturbed
# The component of torch's batching each fault is planted in, named as culprit localisation
# names components (vmapfuzz_culprits.py): a detection of the fault should be localised there.
# A fault of the compiler or of the worker process names none.
COMPONENT = {
    **{name: "hop:cond" for name in FAULTS if name.startswith("cond-")},
    **{name: "hop:scan" for name in FAULTS if name.startswith("scan-")},
    **{name: "vmap:front-end" for name in FAULTS if name.startswith("vmap-")},
    "aten-sum-negative-dim": "op:sum",
    "aten-where-no-logical-pad": "op:where",
    "aten-select-negative-index": "op:select",
}


if __name__ == "__main__":
    # `python3 vmapfuzz_faults.py`: list the faults (vmapfuzz selftest --list reads this), one a
    # line: name, what it mimics, and the component it is planted in (when it names one).
    for name, doc in describe().items():
        print(f"{name}\t{doc}" + (f"\t{COMPONENT[name]}" if name in COMPONENT else ""))
