"""Culprit localisation (issue 27): one component of torch's batching swapped, for the length of a
run, for a trivially correct per-example implementation. Where a failing case passes with one
component swapped, that component is its culprit; the C++ side compares the results, this file
only makes the swaps.

Components, each named by a string:
  hop:NAME        the vmap rule of one HigherOrderOperator (`op.functorch_table[TransformType.Vmap]`;
                  which ops have one is read from the installed torch: `hop_rules`), replaced by a
                  rule that runs the op once per example of its level and stacks the outputs.
  vmap:front-end  the Python of torch._functorch.vmap: `vmap_impl` (in_dims, out_dims, batch size,
                  chunking) and the helpers the HOP rules share with it (`restore_vmap`,
                  `wrap_batched`, `unwrap_batched`, `vmap_increment_nesting`), replaced by minimal
                  ones on functorch's C++ primitives. torch.vmap calls inside HOP rules use it too.
  op:NAME         one torch function or Tensor method, by its `__name__` as a TorchFunctionMode sees
                  it (`where`, `sum`, `select`, `__getitem__`; torch 2.14 shows `a + b` as `add` and
                  `a += b` as `add_`), computed per example at every vmap level.

`swapped(torch, components, record=False)` installs them and restores torch afterwards (the worker
is long-lived); with `record` it also collects the names of the torch functions called with a
BatchedTensor argument that returned tensors: the candidate `op:` components of that run.
`swappable(torch)` says what this torch offers (the worker's hello). Nothing here imports torch at
module import time: every entry point takes the torch module.
"""
import contextlib
import functools
import importlib
import sys

FRONT_END = "vmap:front-end"
# The names in torch._functorch.vmap that the front-end swap replaces (`_front_end`).
FRONT_END_NAMES = ("vmap_impl", "restore_vmap", "wrap_batched", "unwrap_batched", "vmap_increment_nesting")
# Dunder methods that write into their first argument (the in-place Tensor methods end with "_").
IN_PLACE_DUNDERS = frozenset({"__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__",
                              "__ipow__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__",
                              "__imatmul__", "__setitem__"})


class UnknownComponent(ValueError):
    """A component name that this torch cannot swap (an unknown kind, or a HOP without a vmap rule)."""


# ---- what can be swapped ----------------------------------------------------------------------


def hop_rules(torch):
    """{name: op} of every HigherOrderOperator of this torch that has a vmap rule, read from torch's
    own registry (importing torch._higher_order_ops registers the control-flow ops)."""
    from torch._C._functorch import TransformType

    importlib.import_module("torch._higher_order_ops")  # registers cond, scan, while_loop, ...

    ops = getattr(torch._ops, "_higher_order_ops", {})
    return {name: op for name, op in sorted(ops.items()) if TransformType.Vmap in op.functorch_table}


def swappable(torch):
    """What this torch can swap, for the worker's hello: {"hops": [names], "front_end": bool}; any
    op name can be swapped (`op:NAME`)."""
    vm = importlib.import_module("torch._functorch.vmap")
    return {"hops": sorted(hop_rules(torch)), "front_end": hasattr(vm, "vmap_impl")}


def parse(torch, components):
    """(hop names, front end swapped?, op names) of a list of component names; raises
    UnknownComponent naming the first one this torch cannot swap."""
    hops, front_end, ops = [], False, []
    for c in components:
        kind, _, name = str(c).partition(":")
        if c == FRONT_END:
            front_end = True
        elif kind == "op" and name:
            ops.append(name)
        elif kind == "hop" and name in hop_rules(torch):
            hops.append(name)
        else:
            offered = [f"hop:{h}" for h in hop_rules(torch)] + [FRONT_END, "op:NAME"]
            raise UnknownComponent(f"unknown component {c!r} (swappable in this torch: {', '.join(offered)})")
    return hops, front_end, ops


# ---- shared: examples of one vmap level ---------------------------------------------------------


def _at_level(torch, t, level):
    from torch._C._functorch import is_batchedtensor, maybe_get_level

    return isinstance(t, torch.Tensor) and is_batchedtensor(t) and maybe_get_level(t) == level


def _slicer(torch, flat, level):
    """For the flat arguments of a call at vmap level `level`: a function of b that gives the flat
    arguments of example b (those batched at `level` unwrapped and sliced with .select(bdim, b),
    the rest as they are), or None when no argument is batched at `level`. Call it under
    interpreter.lower(): the slices live at the levels below."""
    from torch._C._functorch import get_unwrapped, maybe_get_bdim

    at = [_at_level(torch, a, level) for a in flat]
    if not any(at):
        return None
    phys = [(get_unwrapped(a), maybe_get_bdim(a)) if hit else None for a, hit in zip(flat, at)]
    return lambda b: [p[0].select(p[1], b) if p else a for a, p in zip(flat, phys)]


def _first_bdim(torch, flat, level):
    """The physical batch dim of the first of `flat` batched at `level` (0 when none is)."""
    from torch._C._functorch import maybe_get_bdim

    return next((maybe_get_bdim(a) for a in flat if _at_level(torch, a, level)), 0)


def _real_layout(torch, func, args, kwargs, level):
    """The physical layout (sizes, strides, batch dim) of each tensor leaf of what the batching
    under test gives for func(*args, **kwargs) at `level`; None for a leaf not batched there, and
    None in all where that call raises (the rule's own error: the per-example loop stands alone)."""
    import torch.utils._pytree as pytree
    from torch._C._functorch import get_unwrapped, maybe_get_bdim

    try:
        real = pytree.tree_leaves(func(*args, **kwargs))
        return [(tuple(get_unwrapped(t).size()), tuple(get_unwrapped(t).stride()), maybe_get_bdim(t))
                if _at_level(torch, t, level) else None for t in real]
    except Exception:  # noqa: BLE001 - any failure of the real call: no layout to copy
        return None


def _with_strides(t, stride):
    """`t`'s values laid out with the order of `stride` (outermost dim first), dense: what a
    permute, contiguous and permute back give; differentiable and batchable."""
    order = sorted(range(t.dim()), key=lambda i: -stride[i])
    back = [order.index(i) for i in range(t.dim())]
    return t.permute(order).contiguous().permute(back)


def _stacked(torch, outs, level, bdim=0, like=None):
    """The outputs of each example (one pytree structure) as one output batched at `level`: each
    tensor leaf stacked along dim `bdim` (the last dim where an example has fewer; call this
    under interpreter.lower(), where the examples live) and given back a batch dim there by the
    returned function (call that at `level`). A non-tensor leaf is the first example's; it must be
    the same in all. Where the batch dim sits and the strides change no value, only the layout
    that the rules after this one see: `like` (_real_layout), where given and of the same shape,
    is the layout the batching under test gave, copied so that swapping an op changes its
    computation and nothing else; otherwise the batch dim of its first batched input (as ATen's
    own rules mostly keep it)."""
    import torch.utils._pytree as pytree
    from torch._C._functorch import _add_batch_dim

    flat = [pytree.tree_flatten(o) for o in outs]
    leaves = []
    for i, column in enumerate(zip(*(f for f, _ in flat))):
        if isinstance(column[0], torch.Tensor):
            layout = like[i] if like is not None and i < len(like) else None
            if layout is not None and 0 <= layout[2] <= column[0].dim():
                t = torch.stack(column, dim=layout[2])
                if tuple(t.size()) == layout[0]:
                    try:
                        leaves.append((_with_strides(t, layout[1]), layout[2]))
                        continue
                    except Exception:  # noqa: BLE001 - a layout the examples cannot take: stacked as is
                        pass
            d = min(bdim, column[0].dim())
            leaves.append((torch.stack(column, dim=d), d))
        elif any(c != column[0] for c in column):
            raise RuntimeError(f"per-example swap: a non-tensor output differs between examples: {column!r}")
        else:
            leaves.append((column[0], None))

    def batched():
        return pytree.tree_unflatten([t if d is None else _add_batch_dim(t, d, level) for t, d in leaves], flat[0][1])

    return batched


# ---- hop:NAME -----------------------------------------------------------------------------------


def per_example_hop_rule(torch, op, original):
    """A vmap rule for `op` that runs it once per example of the interpreter's level: the args
    batched at that level are sliced (pytrees of operands included), the op is called under
    interpreter.lower() on each example's slices (callables and unbatched args as they are),
    each output is stacked along dim 0 and batched at the level. Batch size 0: `original`."""
    import torch.utils._pytree as pytree

    def rule(interpreter, *args, **kwargs):
        level, size = interpreter.level(), interpreter.batch_size()
        flat, spec = pytree.tree_flatten((args, kwargs))
        example = _slicer(torch, flat, level)
        if size == 0:
            return original(interpreter, *args, **kwargs)
        with interpreter.lower():
            if example is None:  # nothing batched here: the same result for every example
                return op(*args, **kwargs)
            outs = []
            for b in range(size):
                a, k = pytree.tree_unflatten(example(b), spec)
                outs.append(op(*a, **k))
            batched = _stacked(torch, outs, level)
        return batched()

    rule.__name__ = f"vmapfuzz_per_example_{op.__name__}_rule"
    return rule


@contextlib.contextmanager
def rules_replaced(torch, names, make):
    """While the block runs, the vmap rule of each higher-order op in `names` is `make(op, rule)`
    (`rule`: the one installed before); restored afterwards, whatever the block raised."""
    from torch._C._functorch import TransformType

    ops = hop_rules(torch)
    saved = {}
    try:
        for name in names:
            saved[name] = ops[name].functorch_table[TransformType.Vmap]
            ops[name].functorch_table[TransformType.Vmap] = make(ops[name], saved[name])
        yield
    finally:
        for name, rule in saved.items():
            ops[name].functorch_table[TransformType.Vmap] = rule


def _hops_swapped(torch, names):
    return rules_replaced(torch, names, lambda op, rule: per_example_hop_rule(torch, op, rule))


# ---- vmap:front-end -----------------------------------------------------------------------------


def replace_everywhere(old, new):
    """Points every torch module attribute that refers to `old` at `new` (modules import helpers by
    name: apis.py's `vmap_impl`, scan.py's `from torch._functorch.vmap import wrap_batched`). The
    planted faults (vmapfuzz_faults.py) install their mutants with it too."""
    for name, mod in list(sys.modules.items()):
        if not name.startswith("torch") or mod is None:
            continue
        d = getattr(mod, "__dict__", None)
        if not d:
            continue
        for k, v in list(d.items()):
            if v is old:
                d[k] = new


def front_end(torch):
    """{name: function}: minimal replacements of FRONT_END_NAMES, built only on functorch's C++
    primitives (_vmap_increment_nesting, _vmap_decrement_nesting, _add_batch_dim,
    _remove_batch_dim, _unwrap_batched) and pytree."""
    import torch.utils._pytree as pytree
    from torch._C import _functorch as C

    try:  # the Python batching rules torch registers on its first vmap
        from torch._functorch.predispatch import lazy_load_decompositions
    except ImportError:  # an older torch: in vmap.py itself
        lazy_load_decompositions = getattr(sys.modules["torch._functorch.vmap"], "lazy_load_decompositions", None)

    def flat_dims(dims, spec, what):
        flat = pytree._broadcast_to_and_flatten(dims, spec)
        if flat is None:
            raise ValueError(f"vmap: {what}={dims} is not compatible with the structure {spec}")
        return flat

    @contextlib.contextmanager
    def vmap_increment_nesting(batch_size, randomness):
        level = C._vmap_increment_nesting(batch_size, randomness)
        try:
            yield level
        finally:
            C._vmap_decrement_nesting()

    def wrap_batched(args, bdims, level):
        flat, spec = pytree.tree_flatten(args)
        flat_bdims = flat_dims(bdims, spec, "in_dims")  # HOP rules pass -1: the physical last dim
        return pytree.tree_unflatten([a if d is None else C._add_batch_dim(a, d % a.dim(), level)
                                      for a, d in zip(flat, flat_bdims)], spec)

    def unwrap_batched(args, level):
        flat, spec = pytree.tree_flatten(args)
        if not flat:
            return args, ()
        pairs = [C._unwrap_batched(a, level) if isinstance(a, torch.Tensor) else (a, None) for a in flat]
        return pytree.tree_unflatten([p[0] for p in pairs], spec), pytree.tree_unflatten([p[1] for p in pairs], spec)

    def restore_vmap(func, in_dims, batch_size, randomness):
        def inner(*args, **kwargs):
            with vmap_increment_nesting(batch_size, randomness) as level:
                return unwrap_batched(func(*wrap_batched(args, in_dims, level), **kwargs), level)

        return inner

    def vmap_impl(func, in_dims, out_dims, randomness, chunk_size, *args, **kwargs):
        """torch.vmap(func, in_dims, out_dims, randomness, chunk_size)(*args, **kwargs), with
        chunk_size ignored (chunking does not change the values)."""
        del chunk_size
        if not isinstance(in_dims, (int, tuple)):
            raise ValueError(f"vmap: in_dims must be an int or a tuple, got {type(in_dims)}")
        if not args:
            raise ValueError("vmap: got no inputs")
        flat, spec = pytree.tree_flatten(args)
        dims = flat_dims(in_dims, spec, "in_dims")
        sizes = []
        for i, (a, d) in enumerate(zip(flat, dims)):
            if d is None:
                continue
            if not isinstance(d, int) or not isinstance(a, torch.Tensor):
                raise ValueError(f"vmap: in_dim {d!r} for an input of type {type(a).__name__}")
            if not -a.dim() <= d < a.dim():
                raise ValueError(f"vmap: in_dim {d} for an input of {a.dim()} dims")
            dims[i] = d % a.dim()  # against the input's own rank
            sizes.append(a.size(dims[i]))
        if not sizes:
            raise ValueError("vmap: Expected at least one Tensor to vmap over")
        if any(s != sizes[0] for s in sizes):
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got {sizes}")
        batch_size = sizes[0]
        if lazy_load_decompositions is not None:
            lazy_load_decompositions()
        with vmap_increment_nesting(batch_size, randomness) as level:
            out = func(*pytree.tree_unflatten([a if d is None else C._add_batch_dim(a, d, level)
                                               for a, d in zip(flat, dims)], spec), **kwargs)
            flat_out, out_spec = pytree.tree_flatten(out)
            if isinstance(out, torch.Tensor):
                odims = list(out_dims) if isinstance(out_dims, tuple) and len(out_dims) == 1 else [out_dims]
            else:
                odims = flat_dims(out_dims, out_spec, "out_dims")
            result = []
            for o, d in zip(flat_out, odims):
                if d is None:
                    if _at_level(torch, o, level):
                        raise ValueError("vmap: an output batched at this level has out_dim None")
                    result.append(o)
                    continue
                if not isinstance(d, int) or not isinstance(o, torch.Tensor):
                    raise ValueError(f"vmap: out_dim {d!r} for an output of type {type(o).__name__}")
                rank = o.dim() + 1  # the per-example rank plus the batch dim put back
                if not -rank <= d < rank:
                    raise ValueError(f"vmap: out_dim {d} for an output of {o.dim()} dims per example")
                result.append(C._remove_batch_dim(o, level, batch_size, d % rank))
            return pytree.tree_unflatten(result, out_spec)

    return {"vmap_impl": vmap_impl, "restore_vmap": restore_vmap, "wrap_batched": wrap_batched,
            "unwrap_batched": unwrap_batched, "vmap_increment_nesting": vmap_increment_nesting}


@contextlib.contextmanager
def _front_end_swapped(torch):
    importlib.import_module("torch._functorch.apis")  # refers to vmap_impl by name
    vm = importlib.import_module("torch._functorch.vmap")

    # dynamo maps torch's functions to its handlers by resolving their names once, on first use,
    # and keeps the map: resolved now (the worker has imported dynamo already), it holds torch's
    # own functions, not the swapped ones, also when the swapped run is dynamo's first.
    importlib.import_module("torch._dynamo.trace_rules").get_torch_obj_rule_map()
    swaps = [(getattr(vm, name), new) for name, new in front_end(torch).items() if hasattr(vm, name)]
    try:
        for old, new in swaps:
            replace_everywhere(old, new)
        yield
    finally:
        for old, new in swaps:
            replace_everywhere(new, old)


# ---- op:NAME and recording ----------------------------------------------------------------------


def _in_place(name):
    return name in IN_PLACE_DUNDERS or (name.endswith("_") and not name.startswith("__"))


def per_example_call(torch, func, args, kwargs):
    """func(*args, **kwargs) computed per example at every vmap level: at the innermost level (the
    top of functorch's stack), the arguments batched there are sliced and the call made once per
    example under interpreter.lower() (recursively: the levels below are looped the same way), the
    outputs stacked and batched again at that level. A level that batches no argument is lowered
    through; a non-vmap transform on top, or batch size 0, calls func as it is. An in-place call
    writes each example into its slice of the first argument and returns that argument."""
    import torch.utils._pytree as pytree
    from torch._functorch.pyfunctorch import retrieve_current_functorch_interpreter
    from torch._C._functorch import TransformType

    if torch._C._functorch.peek_interpreter_stack() is None:
        return func(*args, **kwargs)
    interpreter = retrieve_current_functorch_interpreter()
    if interpreter.key() != TransformType.Vmap:
        return func(*args, **kwargs)
    level, size = interpreter.level(), interpreter.batch_size()
    flat, spec = pytree.tree_flatten((args, kwargs))
    example = _slicer(torch, flat, level)
    if example is None:
        with interpreter.lower():
            return per_example_call(torch, func, args, kwargs)
    if size == 0:
        return func(*args, **kwargs)
    name = getattr(func, "__name__", "")
    if _in_place(name):
        if not (args and _at_level(torch, args[0], level)):
            return func(*args, **kwargs)  # vmap's own error: an unbatched tensor written per example
        with interpreter.lower():
            for b in range(size):
                a, k = pytree.tree_unflatten(example(b), spec)
                per_example_call(torch, func, a, k)
        return None if name == "__setitem__" else args[0]
    like = _real_layout(torch, func, args, kwargs, level)
    with interpreter.lower():
        outs = []
        for b in range(size):
            a, k = pytree.tree_unflatten(example(b), spec)
            outs.append(per_example_call(torch, func, a, k))
        batched = _stacked(torch, outs, level, _first_bdim(torch, flat, level), like)
    return batched()


def _has_batched(torch, tree):
    import torch.utils._pytree as pytree
    from torch._C._functorch import is_batchedtensor

    return any(isinstance(a, torch.Tensor) and is_batchedtensor(a) for a in pytree.tree_leaves(tree))


def _has_tensor(torch, tree):
    import torch.utils._pytree as pytree

    return any(isinstance(a, torch.Tensor) for a in pytree.tree_leaves(tree))


def op_mode(torch, names, record, record_hops=None):
    """A TorchFunctionMode that computes the functions named in `names` per example
    (per_example_call) and, when `record` is a set, adds to it the name of every function called
    with a BatchedTensor argument that returns a tensor or raises (HOPs left out: they are hop:
    components, whose names go to `record_hops` when it is a set, batched arguments or not).

    A mode is disabled while it handles a call, so the branches of a higher-order op it passes on
    would run unseen: the callables of every call it handles are wrapped to re-enter it. Where
    dynamo traces the mode (torch.cond's public path compiles its branches; the compile modes),
    the traced handler is the plain call: dynamo cannot trace the swap's functorch calls (and a
    recording's side effect would break the HOP's capture); the ops of the graph it makes are seen
    when the graph runs under the mode."""
    import torch.utils._pytree as pytree
    from torch._ops import HigherOrderOperator
    from torch.overrides import TorchFunctionMode, _get_current_function_mode_stack

    names = frozenset(names)

    class PerExampleOps(TorchFunctionMode):
        def _reenter(self, fn):
            @functools.wraps(fn)
            def wrapped(*a, **k):
                if any(m is self for m in _get_current_function_mode_stack()):
                    return fn(*a, **k)
                with self:
                    return fn(*a, **k)

            return wrapped

        def _wrap(self, x):
            if callable(x) and not isinstance(x, (type, torch.Tensor)):
                return self._reenter(x)
            return x

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if torch.compiler.is_dynamo_compiling():  # traced by dynamo: the plain call (see above)
                return func(*args, **kwargs)
            args, kwargs = pytree.tree_map(self._wrap, (tuple(args), kwargs))
            name = getattr(func, "__name__", "")
            hop = isinstance(func, HigherOrderOperator)
            batched = record is not None and _has_batched(torch, (args, kwargs))
            # A higher-order op called under vmap goes through its rule even when nothing it
            # takes is batched (the rule then vmaps its regions in_dims None): recorded before
            # the call, since the rule may raise.
            if hop and record_hops is not None:
                record_hops.add(func.name())
            out, raised = None, True
            try:
                if name in names:
                    out = per_example_call(torch, func, args, kwargs)
                else:
                    out = func(*args, **kwargs)
                raised = False
            finally:
                # An op that raised on batched tensors is a candidate too (a batched-error's
                # culprit raises); one that returned is when it returned tensors.
                if record is not None and name and not hop and batched and (raised or _has_tensor(torch, out)):
                    record.add(name)
            return out

    return PerExampleOps()


def _rules_reenter(torch, mode):
    """While the block runs, every higher-order op's vmap rule runs with `mode` active: a mode is
    off while it handles the op's call, and a rule makes torch calls of its own (cond's rule
    selects with torch.where under a batched predicate) whose batching is an op: component too."""
    from torch.overrides import _get_current_function_mode_stack

    def reentering(op, rule):
        @functools.wraps(rule)
        def wrapped(interpreter, *args, **kwargs):
            if any(m is mode for m in _get_current_function_mode_stack()):
                return rule(interpreter, *args, **kwargs)
            with mode:
                return rule(interpreter, *args, **kwargs)

        return wrapped

    return rules_replaced(torch, list(hop_rules(torch)), reentering)


# ---- the worker's entry point -------------------------------------------------------------------


class Swap:
    """What `swapped` yields: `ops`, the sorted names recorded (empty unless recording)."""

    def __init__(self):
        self.recorded = set()
        self.hops_recorded = set()

    @property
    def ops(self):
        return sorted(self.recorded)

    def components(self, torch):
        """What the recorded run went through, as swappable components: each higher-order op
        with a vmap rule called on batched tensors ("hop:NAME"), vmap's front end, and each
        recorded op ("op:NAME"); the order culprit localisation tries them in is its own."""
        rules = hop_rules(torch)
        out = [f"hop:{h}" for h in sorted(self.hops_recorded) if h in rules]
        if swappable(torch)["front_end"]:
            out.append("vmap:front-end")
        return out + [f"op:{o}" for o in self.ops]


@contextlib.contextmanager
def swapped(torch, components, record=False):
    """Swaps `components` (names; UnknownComponent before anything is swapped when one is not
    swappable here) for their per-example implementations while the block runs, and with `record`
    collects the candidate op: names into the yielded Swap's `ops`. torch is as it was afterwards."""
    hops, use_front_end, ops = parse(torch, components)
    swap = Swap()
    with contextlib.ExitStack() as stack:
        if use_front_end:
            stack.enter_context(_front_end_swapped(torch))
        if hops:
            stack.enter_context(_hops_swapped(torch, hops))
        if ops or record:
            mode = op_mode(torch, ops, swap.recorded if record else None, swap.hops_recorded if record else None)
            stack.enter_context(_rules_reenter(torch, mode))
            stack.enter_context(mode)
        yield swap
