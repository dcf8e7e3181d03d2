"""Precompile modes: a compiled vmap saved, loaded in a fresh process, and called there.

API: `torch.compile(fn, fullgraph=True).aot_compile(((args), {}))` compiles ahead of time and
returns an `AOTCompiledFunction`; `save_compiled_function(path)` serialises it (graph, guards,
bytecode); `torch.compiler.load_compiled_function(file, f_globals=...)` loads it in another
process, and every call checks the saved guards first.

The worker (`run_batched`) compiles one artifact per call (per batch size), calls the first in
process (a program this torch cannot compile or run in process fails as in any compile mode),
saves them all in a temporary folder and runs this file as a fresh `python3` (`load_and_call`).
The fresh process loads artifact 0 and calls it with each call's inputs: where the saved guards
reject another batch size (the documented behaviour of a static artifact) it loads that call's own
artifact instead. Anything that fails there is marked `after save/load`. The folder is removed
before the reply.

Planted fault (self-tests): `precompile-load-perturbed` in VMAPFUZZ_FAULTS adds 1 to the first
floating output of every loaded function, in the fresh process only.
"""
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import traceback

import vmapfuzz_aot  # the compile-save-load steps, shared with a precompile mode's repro.py

ENTRY = "_vmapfuzz_entry"
# A function of the case's own module (globals, no closure), so the artifact refers to `batched`
# by name and the fresh process resolves it in the same module it re-creates from the source.
ENTRY_SOURCE = f"\n\ndef {ENTRY}(*args):\n    return batched(*args)\n"


class AfterSaveLoad(Exception):
    """The fresh process failed: carries its exception's type, message and traceback."""

    def __init__(self, info):
        super().__init__(info["message"])
        self.info = info


def missing(torch):
    """Why this torch cannot run a precompile mode ("" when it can): the APIs it needs."""
    lacks = []
    if not hasattr(torch.compiler, "load_compiled_function"):
        lacks.append("torch.compiler.load_compiled_function")
    try:
        from torch._dynamo.aot_compile import AOTCompiledFunction
    except ImportError:
        lacks.append("torch._dynamo.aot_compile (torch.compile(...).aot_compile)")
    else:
        if not hasattr(AOTCompiledFunction, "save_compiled_function"):
            lacks.append("AOTCompiledFunction.save_compiled_function")
    return f"torch {torch.__version__} lacks " + ", ".join(lacks) if lacks else ""


def run_batched(torch, source, args_per_call, ex, preloads, worker_dir):
    """`args_per_call`: each call's inputs, contiguous on the CPU. Returns the outputs of each call (a tuple of tensors each), computed in a fresh process
    from the saved artifacts. Raises what the in-process compile raises, or AfterSaveLoad."""
    ns = {"__name__": "vmapfuzz_case"}
    exec(compile(source + ENTRY_SOURCE, "<vmapfuzz-case>", "exec"), ns)
    folder = tempfile.mkdtemp(prefix="vmapfuzz-precompile-")
    try:
        laid_out = []
        for args in args_per_call:
            args = [a.to(ex.get("device", "cpu")) for a in args]
            if "layout_inputs" in ns:  # the case's memory layouts (same values, other strides)
                args = list(ns["layout_inputs"](*args))
            laid_out.append(args)
        try:
            vmapfuzz_aot.aot_compile_and_save(torch, ns[ENTRY], laid_out, ex["compile"], ex.get("dynamic"), folder,
                                              run_first=True)
        except vmapfuzz_aot.AotSaveFailed as e:
            raise AfterSaveLoad({"type": _type_name(e.error), "message": str(e)[:4000],
                                 "traceback": "".join(traceback.format_exception(e.error))[-4000:],
                                 "call": e.call}) from None
        with open(os.path.join(folder, "case.pkl"), "wb") as f:
            pickle.dump({"source": source, "args": [[a.cpu() for a in args] for args in args_per_call],
                         "device": ex.get("device", "cpu"),
                         "preloads": [os.path.abspath(p) for p in preloads]}, f)
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), folder], cwd=worker_dir,
                              stdin=subprocess.DEVNULL, stdout=sys.stderr, stderr=sys.stderr)
        result = os.path.join(folder, "result.pkl")
        if not os.path.exists(result):
            raise AfterSaveLoad({"type": "ProcessDied", "message": f"the fresh process that loads the artifact exited with status {proc.returncode}",
                                 "traceback": "", "call": 0})
        with open(result, "rb") as f:
            res = pickle.load(f)
        if "error" in res:
            raise AfterSaveLoad(res["error"])
        return res["outputs"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _type_name(e):
    m = type(e).__module__
    return type(e).__qualname__ if m == "builtins" else m + "." + type(e).__qualname__


def _perturb(torch, out):
    out = list(out) if isinstance(out, (tuple, list)) else [out]
    for i, t in enumerate(out):
        if t.is_floating_point() and t.numel():
            out[i] = t + 1
            break
    return tuple(out)


def load_and_call(folder):
    """The fresh process: load, call each batch size, write result.pkl."""
    import runpy

    import torch

    with open(os.path.join(folder, "case.pkl"), "rb") as f:
        case = pickle.load(f)
    for path in case["preloads"]:
        runpy.run_path(path, run_name="__vmapfuzz_preload__")
    perturb = "precompile-load-perturbed" in os.environ.get("VMAPFUZZ_FAULTS", "").split(",")
    ns = {"__name__": "vmapfuzz_case"}
    exec(compile(case["source"] + ENTRY_SOURCE, "<vmapfuzz-case>", "exec"), ns)
    device = case["device"]
    if device != "cpu":
        torch.set_default_device(device)

    outputs, call = [], 0
    try:
        loaded = vmapfuzz_aot.aot_loader(torch, folder, ns)
        for call, args in enumerate(case["args"]):
            args = [a.to(device) for a in args]
            if "layout_inputs" in ns:
                args = list(ns["layout_inputs"](*args))
            out = loaded(call, *args)  # artifact 0, or this call's own where its guards reject it
            out = (out,) if isinstance(out, torch.Tensor) else tuple(out)
            if perturb:
                out = _perturb(torch, out)
            outputs.append(tuple(t.detach().cpu() for t in out))
        res = {"outputs": outputs}
    except Exception as e:
        res = {"error": {"type": _type_name(e), "message": str(e)[:4000],
                         "traceback": traceback.format_exc()[-4000:], "call": call}}
    with open(os.path.join(folder, "result.pkl"), "wb") as f:
        pickle.dump(res, f)
    return 0


if __name__ == "__main__":
    sys.exit(load_and_call(sys.argv[1]))
