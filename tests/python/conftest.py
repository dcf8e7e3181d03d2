"""The worker's own Python on the import path (tests/python/../../harness/backends/torch/worker),
and a worker process to speak its protocol to (the `worker` fixture, `ask`)."""
import json
import os
import struct
import subprocess
import sys

import pytest

WORKER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "harness", "backends", "torch", "worker")
sys.path.insert(0, os.path.abspath(WORKER_DIR))


def frame(header, blobs=()):
    data = json.dumps(header).encode()
    return struct.pack("<Q", len(data)) + data + b"".join(blobs)


def read_frame(pipe):
    (n,) = struct.unpack("<Q", pipe.read(8))
    return json.loads(pipe.read(n))


@pytest.fixture
def worker():
    env = dict(os.environ, VMAPFUZZ_FAULTS="", VMAPFUZZ_COVERAGE="")
    p = subprocess.Popen([sys.executable, os.path.join(WORKER_DIR, "vmapfuzz_worker.py")], env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    yield p
    p.stdin.close()
    p.wait()


def ask(p, header, blobs=()):
    p.stdin.write(frame(header, blobs))
    p.stdin.flush()
    return read_frame(p.stdout)
