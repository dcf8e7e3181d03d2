"""A precompile mode's repro.py steps (python_repro.cpp): without arguments it compiles one
artifact per call ahead of time, saves them and runs itself again as a fresh process with
`--load DIR`, which loads them and makes the calls through `loaded`. Follows the embedded
worker/vmapfuzz_aot.py and the case's _ARGS, _BACKEND and _DYNAMIC; the names below are here
for linters only."""
import torch

batched = aot_compile_and_save = aot_loader = AotSaveFailed = None
_ARGS, _BACKEND, _DYNAMIC = [], "eager", None
# vmapfuzz: emitted from here
import os as _os, shutil as _shutil, subprocess as _subprocess, sys as _sys, tempfile as _tempfile  # noqa: E401,E402


def _entry(*args):
    return batched(*args)


if _sys.argv[1:2] != ["--load"]:  # step 1: compile and save, then load in a fresh process
    _dir = _tempfile.mkdtemp(prefix="vmapfuzz-precompile-")
    try:
        try:
            aot_compile_and_save(torch, _entry, _ARGS, _BACKEND, _DYNAMIC, _dir)
        except AotSaveFailed as e:
            print(f"FAIL: saving the compiled function raised {type(e.error).__name__}: {e.error}")
            raise SystemExit(1)
        print("saved; loading it in a fresh process", flush=True)
        _rc = _subprocess.run([_sys.executable, _os.path.abspath(__file__), "--load", _dir]).returncode
    finally:
        _shutil.rmtree(_dir, ignore_errors=True)
    raise SystemExit(_rc)


_load = aot_loader(torch, _sys.argv[2], globals())  # step 2, in the fresh process
_calls = []


def loaded(*args):
    k = len(_calls)
    _calls.append(k)
    return _load(k, *args)
