"""The start-up image (vmapfuzz_zygote.py) and a precompile mode's two fresh processes: each fork
is fresh (none of its parent's state), dies with the worker it ran for, and a failed compile no
longer leaves anything in the worker."""
import os
import signal
import struct
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

from conftest import WORKER_DIR, ask

import vmapfuzz_zygote


def report_state(path):
    """A fork's view: what its parent set in torch, and whether functorch has a level open."""
    import torch

    with open(path, "w") as f:
        f.write(f"{hasattr(torch, '_vmapfuzz_test_marker')} {torch._C._functorch.peek_interpreter_stack() is None}")


def test_a_fork_starts_from_the_image_not_from_the_process_that_asks():
    torch = pytest.importorskip("torch")
    torch._vmapfuzz_test_marker = 1
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "state")
        # Asked from inside a vmap: the fork has no level open and no marker.
        torch.vmap(lambda x: (vmapfuzz_zygote.run(report_state, out), x)[1])(torch.ones(2))
        with open(out) as f:
            assert f.read() == "False True"


def test_a_fork_dies_with_the_process_it_ran_for():
    pytest.importorskip("torch")
    with tempfile.TemporaryDirectory() as d:
        pid_file = os.path.join(d, "pid")
        asker = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
            import os, sys, time
            sys.path.insert(0, {WORKER_DIR!r})
            import vmapfuzz_zygote
            from test_zygote import hang
            vmapfuzz_zygote.run(hang, {pid_file!r})
        """)], cwd=os.path.dirname(os.path.abspath(__file__)), env=dict(os.environ, VMAPFUZZ_COVERAGE=""))
        deadline = time.monotonic() + 120
        while not os.path.exists(pid_file) and time.monotonic() < deadline:
            time.sleep(0.1)
        with open(pid_file) as f:
            pid = int(f.read())
        os.kill(asker.pid, signal.SIGKILL)  # as the C++ side kills a worker past its deadline
        asker.wait()
        deadline = time.monotonic() + 30
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(pid), "the hung fork outlived the process it ran for"


def hang(pid_file):
    with open(pid_file + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(pid_file + ".tmp", pid_file)
    while True:
        time.sleep(1)


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_failed_precompile_compile_is_torchs_error_and_the_worker_goes_on(worker):  # noqa: F811
    torch = pytest.importorskip("torch")
    from vmapfuzz_precompile import missing

    if missing(torch):
        pytest.skip(missing(torch))
    run = {"v": 2, "op": "run", "mode": "batched", "exec": {"api": "public", "compile": "aot_eager"},
           "entry": {"fn": "batched", "precompile": True}, "tensors": [{"dtype": "f32", "shape": [2]}]}
    x = struct.pack("<2f", 1.0, 2.0)
    # fullgraph=True cannot trace a data-dependent Python branch: the compiling process fails.
    bad = ask(worker, dict(run, id=1, source="import torch\ndef batched(x):\n    return (x + 1 if x.sum() > 0 else x,)\n"), [x])
    assert bad["status"] == "error" and bad["error"]["stage"] == "program", bad
    assert not bad["recycle"] and "after" not in bad["error"]
    assert "Traceback" in bad["error"]["traceback"]
    ok = ask(worker, dict(run, id=2, source="import torch\ndef batched(x):\n    return (torch.vmap(torch.sin)(x),)\n"), [x])
    assert ok["status"] == "ok", ok
    got = struct.unpack("<2f", worker.stdout.read(8))
    assert got == pytest.approx((0.841471, 0.909297), abs=1e-5)
