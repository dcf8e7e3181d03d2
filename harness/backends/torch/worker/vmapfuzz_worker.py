#!/usr/bin/env python3
"""vmapfuzz's torch worker: a long-lived process that runs emitted programs under torch.vmap.

Protocol (version 2), over stdin/stdout, one request then one response:
  frame   := u64le header_len, header (UTF-8 JSON), then one raw blob per tensor in
             header["tensors"], each numel * itemsize bytes, C-contiguous, little endian.
  request := {"v": 2, "op": "hello"}
           | {"v": 2, "op": "run", "id": N, "source": str, "mode": "batched" | "unbatched" | "unbatched-func",
              "exec": {"device": "cpu" | "cuda", "compile": null | "eager" | "aot_eager" | "inductor",
                       "dynamic": null | true | false, "api": "public" | "direct",
                       "grad": absent | "of-vmap" | "vmap-of" | "jvp",
                       "precompile": bool (optional: vmapfuzz_precompile.py)},
              "entry": {"fn": str, "compile": bool, "vjp_of": bool, "precompile": bool} (optional:
                        the function of `source` to call, decided by the C++ side's one table,
                        python_entry.h; absent: `batched` in a batched run, else `per_example`),
              "calls": [n0, n1, ...], "tensors": [{"dtype": "f32", "shape": [..]}, ...]}
  reply   := {"v": 2, "id": N, "status": "ok" | "error",
              "error": {"type", "message", "traceback", "call": k, "oom": bool,
                        "raising_pass": "forward" | "backward" | "tangent" | null (which pass of
                        a gradient mode raised, from the frames before the traceback is cut),
                        "after": "save/load" when a precompile mode's fresh process failed},
              "tensors": [...], "calls": [m0, m1, ...], "recycle": bool,
              "torch_s": seconds inside the program's calls (torch), "worker_s": seconds from
              request to reply (torch_s included), "rss_kb": peak RSS,
              "cov": {"l": {file: [line, ...]}, "b": {file: [2 * branch + side, ...]}},
              "ops": [name, ...], "components": ["hop:cond", "vmap:front-end", "op:sum", ...]
                     (only when the request has "record_ops")}
Coverage (vmapfuzz_coverage.py): with VMAPFUZZ_COVERAGE set ("default" or a comma-separated list
of files), a hello request with "coverage": true gets "coverage_table" (per file, its functions'
executable lines and branches) or "coverage_error"; a batched run request with "coverage": true
gets "cov", the lines and branch edges of those files that its calls reached ("coverage": "new":
only those this process never reported before, which saves restart_events; optional fields:
the protocol version is unchanged).
Culprit localisation (vmapfuzz_culprits.py; optional fields, the protocol version is unchanged):
a run request's "swap": ["hop:cond", "vmap:front-end", "op:where", ...] makes the program's calls
with each named component of torch's batching swapped for a per-example implementation
("hop:NAME": that higher-order op's vmap rule; "vmap:front-end": torch._functorch.vmap's Python;
"op:NAME": the torch function or Tensor method of that __name__, at every vmap level), and torch
is restored after each call; absent or [] swaps nothing (a precompile mode's fresh process runs
unswapped). A name this torch cannot swap is an error of stage "worker" naming it, before the case
runs. "record_ops": true adds "ops" to the reply, also to an error's: the sorted names of the
torch functions the calls made with a BatchedTensor argument that returned tensors (the candidate
"op:" components), and "components": every swappable component the calls went through, in
full ("hop:NAME" for each higher-order op with a vmap rule called on batched tensors,
"vmap:front-end", "op:NAME"), what culprit localisation then swaps one at a time. The hello reply's "swappable": {"hops": [the HOPs with a vmap rule in this
torch], "front_end": bool} (with "error" where the swaps cannot load) says what can be swapped.
Gradient modes ("grad" in "exec", optional: absent means forward values): the tensors of each
call are the inputs, then one cotangent per floating output, and the reply's tensors are the
gradients of the floating inputs; "jvp" (forward mode): the inputs, then one tangent per floating
input, and the reply's tensors are the tangents of the floating outputs. Which function of the
module each (mode, grad) pair calls is the request's "entry" (python_entry.h).
`source` defines `program`, `batched` (the vmapped program) and `per_example` (each example
alone, stacked as vmap stacks), and `layout_inputs` when inputs are to be handed over in other
memory layouts (the tensors arrive contiguous). The function is compiled once per request (when "compile" is
set) and called once per entry of "calls", with the next n_k tensors: a second call at another
batch size tests the compiled function's guards. "recycle" asks the C++ side to replace this
process (after a CUDA error or running out of memory). Anything the program prints goes to
stderr: stdout carries only frames. Faults named in VMAPFUZZ_FAULTS are planted at start-up
(self-tests only); VMAPFUZZ_MEMORY_LIMIT_MB caps the process's data segment (RLIMIT_DATA).
Each `--preload FILE.py` argument is run (runpy) after torch is imported and before any request,
e.g. to register a batching rule that torch lacks; hello's reply lists them as "preloads"
([{"path", "sha256"}]); "precompile_missing" says why this torch cannot run a precompile mode
(absent when it can). A preload that raises makes hello answer status "error" with
error["kind"] == "preload", and every run an error of stage "worker".
An error's "stage": "program" (the program's call raised: torch's), "worker" (the harness's own
code), or "import" (the case's module imports what this torch lacks: an ImportError).
"""
import argparse
import contextlib
import hashlib
import itertools
import json
import linecache
import os
import resource
import runpy
import struct
import sys
import time
import traceback
import types

_WORKER_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _chain(exc):
    """The exceptions of exc's chain in the order a traceback prints them: causes and contexts
    first, exc last."""
    seen, out = set(), []

    def walk(e):
        if id(e) in seen:
            return
        seen.add(id(e))
        if e.__cause__ is not None:
            walk(e.__cause__)
            out.append((e, "\nThe above exception was the direct cause of the following exception:\n\n"))
        elif e.__context__ is not None and not e.__suppress_context__:
            walk(e.__context__)
            out.append((e, "\nDuring handling of the above exception, another exception occurred:\n\n"))
        else:
            out.append((e, ""))

    walk(exc)
    return out


def _frames(e):
    """e's own traceback frames, outermost first: (code, line number, frame globals)."""
    tb, out = e.__traceback__, []
    while tb is not None:
        out.append((tb.tb_frame.f_code, tb.tb_lineno, tb.tb_frame.f_globals))
        tb = tb.tb_next
    return out


def _format_exception(exc):
    """traceback.format_exception's frames without what Python 3.13+ spends a millisecond or
    more a traceback on (whole multi-line statements, caret lines, a stat of every file): per
    frame its `File "...", line N, in NAME` line and its source line, chained exceptions first,
    as the standard format orders them. A third of direct-mode cases raise: this is per case."""
    out = []
    for e, separator in _chain(exc):
        out.append(separator)
        frames = _frames(e)
        if frames:
            out.append("Traceback (most recent call last):\n")
        for code, line_no, f_globals in frames:
            out.append(f'  File "{code.co_filename}", line {line_no}, in {code.co_name}\n')
            line = linecache.getline(code.co_filename, line_no, f_globals).strip() if line_no else ""
            if line:
                out.append(f"    {line}\n")
        out += traceback.format_exception_only(type(e), e)
    return "".join(out)


# The frames of the emitted module that say which pass of a gradient mode ran (python_grad.cpp).
PASS_FRAMES = {"_forward_pass": "forward", "_backward_pass": "backward", "_tangent_pass": "tangent"}


def raising_pass(exc):
    """Which pass of a gradient mode raised exc: "forward", "backward" or "tangent" (the
    innermost of those frames, last in printing order: a backward that re-runs a forward raises
    inside both), None outside a gradient mode's passes. Read from the frames themselves, before
    any traceback is cut."""
    found = None
    for e, _ in _chain(exc):
        for code, _, _ in _frames(e):
            found = PASS_FRAMES.get(code.co_name, found)
    return found


def _traceback(exc=None, limit=4000):
    """exc's traceback (the current exception's by default; _format_exception), its last `limit`
    characters, with this worker's own files named without the directory they run from: reports
    must not name a machine's paths. Where a pass frame (PASS_FRAMES) is in the part cut off
    (dynamo's tracebacks are long), a line naming the innermost one is kept, so that the text
    still says which pass raised to a person reading it (the runner reads the raising_pass
    field: raising_pass)."""
    exc = sys.exc_info()[1] if exc is None else exc
    full = _format_exception(exc).replace(_WORKER_DIR, "vmapfuzz-worker/")
    if len(full) <= limit:
        return full
    cut, kept = full[:-limit], full[-limit:]
    at = {name: cut.rfind("in " + name) for name in PASS_FRAMES}
    last = max(at, key=at.get)
    if at[last] >= 0:
        kept = "  (frames cut) in " + last + "\n" + kept
    return kept


PROTOCOL_VERSION = 2


def _limit_memory():
    mb = int(os.environ.get("VMAPFUZZ_MEMORY_LIMIT_MB", "0") or 0)
    if mb > 0:
        import resource

        limit = mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def _is_oom(e):
    text = f"{type(e).__name__}: {e}"
    return (isinstance(e, MemoryError) or type(e).__name__ == "OutOfMemoryError"
            or "can't allocate memory" in text or "out of memory" in text.lower())


def _is_device_error(e):
    text = str(e)
    return type(e).__name__ == "AcceleratorError" or "CUDA error" in text or "HIP error" in text


# Faults in the worker process itself, for the isolation tests: each fires on every second
# batched run a worker process makes, so a campaign meets them on some cases and not on others
# whatever the generator makes.
def _worker_fault(name):
    import signal

    def segfault():
        os.kill(os.getpid(), signal.SIGSEGV)

    def abort():
        os.abort()

    def exit_():
        os._exit(7)

    def hang():
        while True:
            time.sleep(1)

    def huge_alloc():
        import torch

        torch.empty(1 << 34, dtype=torch.uint8).fill_(1)  # 16 GiB: past the default limit

    table = {"worker-segfault": segfault, "worker-abort": abort, "worker-exit": exit_,
             "worker-hang": hang, "worker-huge-alloc": huge_alloc}
    return table.get(name)


# worker-serialise-error: the worker's own code raises (sending the outputs back), which is
# the harness's bug, not torch's.
WORKER_FAULTS = ("worker-segfault", "worker-abort", "worker-exit", "worker-hang", "worker-huge-alloc",
                 "worker-serialise-error")


def _leaked_state(torch):
    """What a call left behind in torch's process-wide transform state, or None: a forward-AD
    dual level still entered, torch.func.jvp's nesting count, a functorch interpreter on the
    stack, grad mode off. Every later case of this process would meet it (a jvp then raises
    "Nested forward mode AD is not supported at the moment", unbatched too: an `invalid` verdict
    that is the previous case's doing), so the worker is replaced."""
    from torch._functorch import eager_transforms
    left = []
    try:  # a level still entered, from Python or in C++ alone (dynamo enters one while it traces a jvp), refuses another
        torch._C._exit_dual_level(level=torch._C._enter_dual_level())
    except RuntimeError as e:
        left.append(f"a forward-AD dual level entered ({e})")
    if getattr(eager_transforms, "JVP_NESTING", 0):
        left.append(f"torch.func.jvp nesting {eager_transforms.JVP_NESTING}")
    if torch._C._functorch.peek_interpreter_stack() is not None:
        left.append("a functorch interpreter on the stack")
    if not torch.is_grad_enabled():
        left.append("grad mode off")
    return ", ".join(left) or None


def _run_preloads(paths):
    """Runs each file in order; returns ([{"path", "sha256"}], None) or (done so far, error)."""
    done = []
    for path in paths:
        try:
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            runpy.run_path(path, run_name="__vmapfuzz_preload__")
        except BaseException as e:  # SystemExit too: a preload must not end the worker silently
            return done, {"type": "PreloadError", "kind": "preload",
                          "message": f"--preload {path} failed: {type(e).__name__}: {e}"[:4000],
                          "traceback": _traceback()}
        done.append({"path": path, "sha256": digest})
    return done, None


def _coverage(torch):
    """Coverage of torch's batching code (VMAPFUZZ_COVERAGE: vmapfuzz_coverage.py), or why not."""
    if torch is None or not os.environ.get("VMAPFUZZ_COVERAGE"):
        return None, None
    try:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import vmapfuzz_coverage

        return vmapfuzz_coverage.from_env(), None
    except Exception as e:
        return None, f"{type(e).__name__}: {e}"


def _precompiled(source, inputs, calls, ex, preloads, wants, recorded):
    """A precompile mode's batched run (vmapfuzz_precompile.py): `fn(call, *args)` gives that
    call's outputs, all computed on the first call by two fresh processes (compile, then load);
    what the compiling process recorded (`wants`: swaps, ops, coverage) goes into `recorded`."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import vmapfuzz_precompile

    per_call, at = [], 0
    for n in calls:
        per_call.append(inputs[at:at + n])
        at += n
    done = []

    def fn(call, *_args):
        if not done:
            outputs, got = vmapfuzz_precompile.run_batched(source, per_call, ex, preloads, wants)
            done.append(outputs)
            recorded.update(got)
        return done[0][call]

    return fn


def _merge_coverage(mine, theirs):
    """Coverage replies ({"l": {file: [line]}, "b": {file: [edge]}}) united."""
    if not theirs:
        return mine
    out = {}
    for kind in ("l", "b"):
        files = {}
        for part in (mine or {}, theirs):
            for f, hits in part.get(kind, {}).items():
                files.setdefault(f, set()).update(hits)
        out[kind] = {f: sorted(h) for f, h in files.items()}
    return out


class Pipes:
    """The protocol's framing over this process's stdin and stdout (the module docstring), shared
    with the confirmation runner (vmapfuzz_confirm.py). Made once, at start-up: the real stdout
    is kept for frames and every print (ours, torch's, a program's) goes to stderr; stdin becomes
    /dev/null, so that nothing this process starts (the zygote: vmapfuzz_zygote.py) inherits the
    request pipe."""

    def __init__(self):
        self.out = os.fdopen(os.dup(1), "wb", buffering=0)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        self.inp = os.fdopen(os.dup(0), "rb", buffering=0)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)

    def read_exact(self, n):
        """n bytes, or None at the end of input."""
        buf = bytearray()
        while len(buf) < n:
            chunk = self.inp.read(n - len(buf))
            if not chunk:
                return None
            buf += chunk
        return bytes(buf)

    def read_header(self):
        """The next frame's header, or None at the end of input (its blobs are the caller's to read)."""
        head = self.read_exact(8)
        if head is None:
            return None
        (n,) = struct.unpack("<Q", head)
        body = self.read_exact(n)
        return None if body is None else json.loads(body)

    def send(self, header, blobs=()):
        data = json.dumps(header).encode()
        self.out.write(struct.pack("<Q", len(data)) + data + b"".join(blobs))


_CASE_MODULE_IDS = itertools.count()
_CASE_MODULES = []  # the name of the module of the case run last
_CODE = {}  # source -> its compiled code: the last few, for a case's later requests


def _compiled(source, filename):
    """The module's code, compiled once for a case's requests (its batched run, the per-example
    run after a batched error, culprit localisation's runs: the same source; a traceback then
    names the file of the first). Compiling was a third of a direct-mode case's Python time.
    Dynamo keeps its caches on code objects: every request but a direct-mode one resets them."""
    code = _CODE.pop(source, None)
    if code is None:
        code = compile(source, filename, "exec")
    _CODE[source] = code  # the most recent last
    while len(_CODE) > 8:
        del _CODE[next(iter(_CODE))]
    return code


def _case_module(source, filename):
    """Runs the case's module and returns its namespace. The module is in sys.modules, as
    repro.py's __main__ is: dynamo (2.6) imports a traced function's module by its __name__.
    Each case's module has a name of its own: dynamo (2.14) keeps the module it first looked up
    by a name (torch.cond's branches are traced) and would resolve a later case's globals in
    the earlier case's module, which lacks the later one's imports."""
    for old in _CASE_MODULES:
        sys.modules.pop(old, None)
    name = f"vmapfuzz_case_{next(_CASE_MODULE_IDS)}"
    _CASE_MODULES[:] = [name]
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    exec(_compiled(source, filename), mod.__dict__)
    return mod.__dict__


def entry_request(req):
    """The request's entry point (python_entry.h's table, sent by the C++ side): {"fn", "compile",
    "vjp_of", "precompile"}. A request without one (a hand-made request of a test) calls the
    forward program: `batched` in a batched run, `per_example` otherwise."""
    return req.get("entry") or {"fn": "batched" if req.get("mode") == "batched" else "per_example"}


def _entry_point(ns, entry, ex, torch):
    """The function a request calls: the module's `entry["fn"]`, compiled with the mode's backend
    when entry["compile"], then wrapped in the module's `vjp_of` when entry["vjp_of"]."""
    fn = ns[entry["fn"]]
    if entry.get("compile"):
        fn = torch.compile(fn, backend=ex["compile"], dynamic=ex.get("dynamic"), fullgraph=False)
    if entry.get("vjp_of"):
        fn = ns["vjp_of"](fn)
    return fn


def _culprits():
    """vmapfuzz_culprits.py, the swaps of culprit localisation (imported on first use)."""
    if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import vmapfuzz_culprits

    return vmapfuzz_culprits


class _Swap:
    """A run request's "swap" and "record_ops" (vmapfuzz_culprits.py): calling it gives the context
    to make one call of the program in; `recorded` collects the op names over all calls (None
    unless "record_ops"). Unknown component names raise here, before anything runs."""

    def __init__(self, torch, components, record):
        self.torch, self.components, self.record = torch, components, record
        self.recorded = set() if record else None
        self.components_seen = [] if record else None
        if components:
            _culprits().parse(torch, components)

    @contextlib.contextmanager
    def __call__(self):
        if not self.components and not self.record:
            yield
            return
        swap = None
        try:
            with _culprits().swapped(self.torch, self.components, record=self.record) as swap:
                yield
        finally:
            if swap is not None and self.record:
                self.recorded |= set(swap.ops)
                seen = swap.components(self.torch)
                self.components_seen += [c for c in seen if c not in self.components_seen]


def _swap(torch, req):
    """The request's swaps (`_Swap`); a request without "swap" or "record_ops" swaps nothing."""
    return _Swap(torch, list(req.get("swap") or []), bool(req.get("record_ops")))


def main():
    parser = argparse.ArgumentParser(description="vmapfuzz's torch worker (spoken to over stdin/stdout)")
    parser.add_argument("--preload", action="append", default=[], help="a python file to run at start-up")
    args = parser.parse_args()
    preload_paths = args.preload  # `args` is reused below for each call's tensors
    pipes = Pipes()
    read_exact, send = pipes.read_exact, pipes.send

    _limit_memory()
    all_faults = [f for f in os.environ.get("VMAPFUZZ_FAULTS", "").split(",") if f]
    process_faults = [fn for fn in map(_worker_fault, all_faults) if fn]
    serialise_fault = "worker-serialise-error" in all_faults
    try:
        import torch
    except Exception as e:  # reported through hello, so the C++ side can say what is wrong
        torch = None
        import_error = f"{type(e).__name__}: {e}"
    else:
        import_error = None
        import torch._dynamo  # noqa: F401  imported here (seconds), so the first case does not pay for it
        faults = [f for f in all_faults if f not in WORKER_FAULTS]
        if faults:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import vmapfuzz_faults

            vmapfuzz_faults.plant(faults)
    preloads, preload_error = [], None
    if torch is not None:
        preloads, preload_error = _run_preloads(args.preload)
    cov, cov_error = _coverage(torch)

    dtypes = {}
    if torch is not None:
        dtypes = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
                  "bf16": torch.bfloat16, "i64": torch.int64, "i32": torch.int32, "bool": torch.bool}
    names = {v: k for k, v in dtypes.items()}

    def to_tensor(meta, raw):
        dtype, shape = dtypes[meta["dtype"]], meta["shape"]
        if len(raw) == 0:
            return torch.empty(shape, dtype=dtype)
        return torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(dtype).reshape(shape)

    def from_tensor(t):
        t = t.detach().cpu()
        # A fresh dense buffer: .contiguous() keeps odd strides on size-1 dims, and viewing
        # those as bytes fails.
        flat = torch.empty(t.numel(), dtype=t.dtype)
        flat.copy_(t.reshape(-1))
        raw = flat.view(torch.uint8).numpy().tobytes() if t.numel() else b""
        return {"dtype": names.get(t.dtype, str(t.dtype)), "shape": list(t.shape)}, raw

    batched_runs = 0
    while True:
        req = pipes.read_header()
        if req is None:
            return 0
        t_req = time.perf_counter()
        if req.get("v") != PROTOCOL_VERSION:
            send({"v": PROTOCOL_VERSION, "id": req.get("id"), "status": "protocol-error",
                  "error": {"type": "ProtocolError", "message": f"expected protocol {PROTOCOL_VERSION}, got {req.get('v')}", "traceback": ""}})
            continue
        if req["op"] == "hello":
            info = {"v": PROTOCOL_VERSION, "status": "ok" if torch and not preload_error else "error",
                    "python": sys.version.split()[0], "preloads": preloads}
            if preload_error:
                info["error"] = preload_error
            if torch:
                cuda_ok = torch.cuda.is_available()
                info.update(torch=torch.__version__, cuda=torch.version.cuda, hip=getattr(torch.version, "hip", None),
                            cuda_available=cuda_ok,
                            cuda_device=torch.cuda.get_device_name(0) if cuda_ok else None)
            else:
                info["error"] = {"type": "ImportError", "kind": "import", "message": import_error, "traceback": ""}
            if torch:
                sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
                import vmapfuzz_precompile

                if vmapfuzz_precompile.missing(torch):
                    info["precompile_missing"] = vmapfuzz_precompile.missing(torch)
                try:
                    info["swappable"] = _culprits().swappable(torch)
                except Exception as e:  # a torch too old for the swaps: nothing swappable
                    info["swappable"] = {"hops": [], "front_end": False, "error": f"{type(e).__name__}: {e}"}
            if cov is not None and req.get("coverage"):
                info["coverage_table"] = cov.table()
            if cov_error:
                info["coverage_error"] = cov_error
            send(info)
            continue
        metas = req.get("tensors", [])
        inputs = []
        for m in metas:
            nbytes = torch.empty((), dtype=dtypes[m["dtype"]]).element_size()
            count = 1
            for s in m["shape"]:
                count *= s
            inputs.append(to_tensor(m, read_exact(nbytes * count)))
        ex = req.get("exec") or {}
        device = ex.get("device", "cpu")
        calls = req.get("calls") or [len(inputs)]
        reply = {"v": PROTOCOL_VERSION, "id": req.get("id")}
        blobs = []
        call = 0
        torch_s, t_call = 0.0, None
        stage = "worker"  # an exception outside the program's call is the harness's own bug
        recording = False
        swap, child = None, {}
        try:
            # Each case starts from a clean compiler state, as its standalone repro.py does:
            # dynamo remembers shapes per code location (automatic dynamic shapes), which
            # would otherwise leak from one case into the next. A direct-mode program calls the
            # higher-order ops themselves and never enters dynamo: nothing to reset.
            if preload_error:
                raise RuntimeError(preload_error["message"])
            if ex.get("api") != "direct":
                torch._dynamo.reset()
            if req["mode"] == "batched":
                batched_runs += 1
                if batched_runs % 2 == 0:
                    for fault in process_faults:
                        fault()
            if device != "cpu":  # factory calls in the program land on the device too
                torch.set_default_device(device)
            swap = _swap(torch, req)  # an unknown component: the worker's error, before the case runs
            # An ImportError here is this torch lacking an op the program uses (one of a later
            # release): stage "import", the construct unsupported here, not a harness bug.
            stage = "import"
            ns = _case_module(req["source"], f"<vmapfuzz-case-{req.get('id')}>")
            stage = "worker"
            entry = entry_request(req)
            fn = _entry_point(ns, entry, ex, torch)
            if entry.get("precompile"):  # `child`: what its compiling process recorded
                wants = {"components": swap.components, "record": swap.record,
                         "coverage": bool(cov is not None and req.get("coverage"))}
                fn = _precompiled(req["source"], inputs, calls, ex, preload_paths, wants, child)
            metas_out, counts, at = [], [], 0
            recording = cov is not None and req.get("coverage") and req["mode"] == "batched"
            if recording:
                cov.begin(restart=req.get("coverage") != "new")
            for call, n in enumerate(calls):
                args = [t.to(device) for t in inputs[at:at + n]]
                at += n
                if "layout_inputs" in ns:  # the case's memory layouts (same values, other strides)
                    args = list(ns["layout_inputs"](*args))
                with swap():  # entered and left as the worker ("stage"), the call is the program's
                    t_call, stage = time.perf_counter(), "program"
                    out = fn(call, *args) if entry.get("precompile") else fn(*args)
                    torch_s, t_call, stage = torch_s + time.perf_counter() - t_call, None, "worker"
                if isinstance(out, torch.Tensor):
                    out = (out,)
                counts.append(len(out))
                if serialise_fault and req["mode"] == "batched" and batched_runs % 2 == 0:
                    raise RuntimeError("planted fault worker-serialise-error: cannot serialise the output")
                for t in out:
                    m, raw = from_tensor(t)
                    metas_out.append(m)
                    blobs.append(raw)
            reply.update(status="ok", tensors=metas_out, calls=counts)
        except Exception as e:
            blobs = []
            if stage == "import" and not isinstance(e, ImportError):
                stage = "worker"
            oom = _is_oom(e)
            if type(e).__name__ == "AfterSaveLoad":  # the fresh process that loaded the artifact failed
                reply.update(status="error", tensors=[], recycle=False,
                             error=dict(e.info, oom=False, stage="program", after="save/load"))
            elif type(e).__name__ == "CompileFailed":  # a precompile mode's compiling process failed
                reply.update(status="error", tensors=[], recycle=False, error=e.info)
            else:
                reply.update(status="error", tensors=[], recycle=oom or _is_device_error(e),
                             error={"type": type(e).__module__ + "." + type(e).__qualname__
                                    if type(e).__module__ not in ("builtins",) else type(e).__qualname__,
                                    "message": str(e)[:4000], "traceback": _traceback(e),
                                    "raising_pass": raising_pass(e), "call": call, "oom": oom, "stage": stage})
        finally:
            if recording:
                reply["cov"] = _merge_coverage(cov.end(), child.get("cov"))
                recording = False
            if swap is not None and swap.recorded is not None:
                swap.recorded |= set(child.get("ops") or [])
                swap.components_seen += [c for c in child.get("components") or [] if c not in swap.components_seen]
                reply["ops"] = sorted(swap.recorded)
                reply["components"] = swap.components_seen
            if device != "cpu":
                torch.set_default_device(None)
            leaked = _leaked_state(torch)
            if leaked:  # this case's verdict stands; the next one gets a fresh process
                reply.update(recycle=True, leaked=leaked)
            if t_call is not None:  # the program's call raised: its time is still torch's
                torch_s += time.perf_counter() - t_call
        reply["torch_s"] = torch_s
        reply["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        reply["worker_s"] = time.perf_counter() - t_req
        send(reply, blobs)


if __name__ == "__main__":
    sys.exit(main())
