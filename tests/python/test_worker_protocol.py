"""The worker's framing over its pipes (protocol v2): u64le header length, JSON header, blobs.
Starts the worker as a process; a run request needs torch, a hello does not."""
import struct

import pytest

from conftest import ask


def test_hello_and_a_wrong_version_are_answered_in_frames(worker):
    hello = ask(worker, {"v": 2, "op": "hello"})
    assert hello["v"] == 2 and hello["status"] in ("ok", "error")
    wrong = ask(worker, {"v": 1, "op": "hello", "id": 7})
    assert wrong["status"] == "protocol-error" and wrong["id"] == 7


def test_a_run_calls_the_entry_and_names_the_raising_pass(worker):
    pytest.importorskip("torch")
    source = ("import torch\n"
              "def _backward_pass(fn, *a):\n    return fn(*a)\n"
              "def batched(x):\n    return (x + 1,)\n"
              "def fails(x):\n    return _backward_pass(lambda: 1 / 0)\n")
    run = {"v": 2, "op": "run", "id": 1, "source": source, "mode": "batched", "exec": {"api": "direct"},
           "tensors": [{"dtype": "f32", "shape": [2]}]}
    ok = ask(worker, dict(run, entry={"fn": "batched"}), [struct.pack("<2f", 1.0, 2.0)])
    assert ok["status"] == "ok" and ok["tensors"] == [{"dtype": "f32", "shape": [2]}]
    assert struct.unpack("<2f", worker.stdout.read(8)) == (2.0, 3.0)
    bad = ask(worker, dict(run, entry={"fn": "fails"}), [struct.pack("<2f", 1.0, 2.0)])
    assert bad["status"] == "error" and bad["error"]["raising_pass"] == "backward"
    assert bad["error"]["type"] == "ZeroDivisionError"


def test_an_import_this_torch_lacks_is_stage_import_and_other_module_errors_the_harnesss(worker):
    pytest.importorskip("torch")
    run = {"v": 2, "op": "run", "id": 2, "mode": "batched", "exec": {"api": "direct"},
           "entry": {"fn": "batched"}, "tensors": [{"dtype": "f32", "shape": [2]}]}
    x = struct.pack("<2f", 1.0, 2.0)
    lacks = ask(worker, dict(run, source="import torch\nfrom torch._higher_order_ops import no_such_op\n"), [x])
    assert lacks["status"] == "error" and lacks["error"]["stage"] == "import"
    assert lacks["error"]["type"] == "ImportError"
    broken = ask(worker, dict(run, source="import torch\n1 / 0\n"), [x])
    assert broken["status"] == "error" and broken["error"]["stage"] == "worker"
    # The module is importable by its name while it runs, as dynamo expects of a traced function's.
    named = ask(worker, dict(run, source="import sys, torch\n"
                                         "def batched(x):\n"
                                         "    return (x + (1 if sys.modules[__name__].batched is batched else 0),)\n"), [x])
    assert named["status"] == "ok"
    assert struct.unpack("<2f", worker.stdout.read(8)) == (2.0, 3.0)


def test_a_later_case_in_the_same_worker_sees_its_own_imports_under_dynamo(worker):
    """torch.cond traces its branches with dynamo, which keeps the module it looked up by name:
    a second case's globals must not be resolved in the first case's module (which lacks the
    second's imports)."""
    pytest.importorskip("torch")
    run = {"v": 2, "op": "run", "mode": "batched", "exec": {"api": "direct"},
           "entry": {"fn": "batched"}, "tensors": [{"dtype": "f32", "shape": [2]}]}
    x = struct.pack("<2f", 1.0, 2.0)
    first = ("import torch\n"
             "def batched(x):\n"
             "    return torch.cond(x.sum() > 0, lambda a: (torch.add(a, 1),), lambda a: (a - 1,), (x,))\n")
    second = ("import torch\nfrom torch import sin\n"
              "def batched(x):\n"
              "    return torch.cond(x.sum() > 0, lambda a: (torch.add(sin(a) * 0, a + 2),), lambda a: (a - 2,), (x,))\n")
    for i, (source, want) in enumerate([(first, (2.0, 3.0)), (second, (3.0, 4.0)), (first, (2.0, 3.0))]):
        reply = ask(worker, dict(run, id=10 + i, source=source), [x])
        assert reply["status"] == "ok", reply.get("error")
        assert struct.unpack("<2f", worker.stdout.read(8)) == want
