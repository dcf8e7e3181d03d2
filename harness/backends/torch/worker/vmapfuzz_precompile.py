"""Precompile modes: a compiled vmap saved, loaded in a fresh process, and called there.

API: `torch.compile(fn, fullgraph=True).aot_compile(((args), {}))` compiles ahead of time and
returns an `AOTCompiledFunction`; `save_compiled_function(path)` serialises it (graph, guards,
bytecode); `torch.compiler.load_compiled_function(file, f_globals=...)` loads it in another
process, and every call checks the saved guards first.

The worker (`run_batched`) writes the case into a temporary folder and runs two fresh processes,
each a fork of the start-up image (vmapfuzz_zygote.py), one after the other:
- `compile_and_save` (the compile): plants the worker's faults, runs the preloads, compiles one
  artifact per call (per batch size) with the request's swaps applied, calls the first in process
  (a program this torch cannot compile or run fails as in any compile mode) and saves them all.
  The worker's own process never compiles, so a failed compile cannot leave functorch levels
  behind in it (it used to be replaced after each).
- `load_and_call` (the load): loads artifact 0 and calls it with each call's inputs; where the
  saved guards reject another batch size (the documented behaviour of a static artifact) it loads
  that call's own artifact instead. Anything that fails there, or in saving, is marked
  `after save/load`.
Results come back through pickles in the folder, which is removed before the reply.

Planted fault (self-tests): `precompile-load-perturbed` in VMAPFUZZ_FAULTS adds 1 to the first
floating output of every loaded function, in the loading process only.
"""
import os
import pickle
import runpy
import shutil
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


class CompileFailed(Exception):
    """The compiling process failed: carries the error as the worker reports it (type, message,
    traceback, call, oom, stage)."""

    def __init__(self, info):
        super().__init__(info["message"])
        self.info = info


def run_batched(source, args_per_call, ex, preloads, wants=None):
    """`args_per_call`: each call's inputs, contiguous on the CPU; `wants`: what the compile is
    to apply and record, {"components": the request's swaps, "record": its record_ops,
    "coverage": bool}. Returns (outputs, recorded): each call's outputs (a tuple of tensors),
    computed in the loading process from the saved artifacts, and what the compiling process
    recorded ({"cov", "ops", "components"}). Raises CompileFailed or AfterSaveLoad."""
    import vmapfuzz_zygote

    folder = tempfile.mkdtemp(prefix="vmapfuzz-precompile-")
    try:
        with open(os.path.join(folder, "case.pkl"), "wb") as f:
            pickle.dump({"source": source, "args": [[a.cpu() for a in args] for args in args_per_call],
                         "exec": ex, "device": ex.get("device", "cpu"), "wants": wants or {},
                         "preloads": [os.path.abspath(p) for p in preloads]}, f)
        status = vmapfuzz_zygote.run(compile_and_save, folder)
        compiled = _result(folder, "compiled.pkl")
        if compiled is None:
            raise CompileFailed({"type": "ProcessDied", "call": 0, "oom": False, "stage": "program", "traceback": "",
                                 "message": f"the process compiling the case exited with status {status}"})
        if "error" in compiled:
            error = compiled["error"]
            raise (AfterSaveLoad(error) if error.pop("after", None) else CompileFailed(error))
        status = vmapfuzz_zygote.run(load_and_call, folder)
        res = _result(folder, "result.pkl")
        if res is None:
            raise AfterSaveLoad({"type": "ProcessDied", "message": f"the fresh process that loads the artifact exited with status {status}",
                                 "traceback": "", "call": 0})
        if "error" in res:
            raise AfterSaveLoad(res["error"])
        return res["outputs"], compiled["recorded"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _result(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return pickle.load(f)


def _case(folder):
    """The case the worker wrote, its preloads run, its module's namespace made from its source."""
    with open(os.path.join(folder, "case.pkl"), "rb") as f:
        case = pickle.load(f)
    for path in case["preloads"]:
        runpy.run_path(path, run_name="__vmapfuzz_preload__")
    ns = {"__name__": "vmapfuzz_case"}
    exec(compile(case["source"] + ENTRY_SOURCE, "<vmapfuzz-case>", "exec"), ns)
    return case, ns


def _laid_out(ns, args, device):
    args = [a.to(device) for a in args]
    if "layout_inputs" in ns:  # the case's memory layouts (same values, other strides)
        args = list(ns["layout_inputs"](*args))
    return args


def _plant_faults():
    """The worker's planted faults (self-tests), as the worker plants them at start-up."""
    import vmapfuzz_faults
    import vmapfuzz_worker

    names = [f for f in os.environ.get("VMAPFUZZ_FAULTS", "").split(",") if f and f not in vmapfuzz_worker.WORKER_FAULTS]
    if names:
        vmapfuzz_faults.plant(names)


def compile_and_save(folder):
    """The compiling process: artifacts into `folder`, and compiled.pkl: {"recorded": {"cov",
    "ops", "components"}} or {"error": the worker's error fields (+ "after" when saving failed)}."""
    import contextlib

    import torch
    import vmapfuzz_culprits
    import vmapfuzz_image
    import vmapfuzz_worker

    res, stage, swap, recording, record = {}, "worker", None, False, False
    cov = vmapfuzz_image.COVERAGE
    try:
        _plant_faults()
        case, ns = _case(folder)
        wants = case["wants"]
        components, record = wants.get("components") or [], bool(wants.get("record"))
        laid_out = [_laid_out(ns, args, case["device"]) for args in case["args"]]
        if case["device"] != "cpu":
            torch.set_default_device(case["device"])
        with contextlib.ExitStack() as stack:
            if components or record:
                swap = stack.enter_context(vmapfuzz_culprits.swapped(torch, components, record=record))
            if cov is not None and wants.get("coverage"):
                cov.begin(restart=True)
                recording = True
            stage = "program"
            vmapfuzz_aot.aot_compile_and_save(torch, ns[ENTRY], laid_out, case["exec"]["compile"],
                                              case["exec"].get("dynamic"), folder, run_first=True)
            stage = "worker"
    except vmapfuzz_aot.AotSaveFailed as e:
        res["error"] = {"type": _type_name(e.error), "message": str(e)[:4000], "call": e.call, "after": "save/load",
                        "traceback": "".join(traceback.format_exception(e.error))[-4000:]}
    except Exception as e:
        res["error"] = {"type": _type_name(e), "message": str(e)[:4000], "traceback": vmapfuzz_worker._traceback(e),
                        "raising_pass": vmapfuzz_worker.raising_pass(e), "call": 0,
                        "oom": vmapfuzz_worker._is_oom(e), "stage": stage}
    recorded = {"cov": cov.end() if recording else None,
                "ops": sorted(swap.ops) if swap is not None and record else None,
                "components": swap.components(torch) if swap is not None and record else None}
    if "error" not in res:
        res["recorded"] = recorded
    with open(os.path.join(folder, "compiled.pkl"), "wb") as f:
        pickle.dump(res, f)


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
    """The loading process: load, call each batch size, write result.pkl."""
    import torch

    outputs, call = [], 0
    try:
        case, ns = _case(folder)
        perturb = "precompile-load-perturbed" in os.environ.get("VMAPFUZZ_FAULTS", "").split(",")
        device = case["device"]
        if device != "cpu":
            torch.set_default_device(device)
        loaded = vmapfuzz_aot.aot_loader(torch, folder, ns)
        for call, args in enumerate(case["args"]):
            out = loaded(call, *_laid_out(ns, args, device))  # artifact 0, or this call's own where its guards reject it
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
