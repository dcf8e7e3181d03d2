#!/usr/bin/env python3
"""Runs a new finding's repro.py alone, in a fork of the start-up image (vmapfuzz_zygote.py)
instead of a fresh `python3`: the fork has torch imported and nothing else initialised, the
script runs as `__main__` from its own folder, and its output goes to repro.out there. A fresh
`python3` spends seconds of CPU importing torch; on a 2-core machine that came out of the
campaign's own time, once per new finding.

Protocol (the worker's framing: u64le header length, then the UTF-8 JSON header; no blobs):
  request := {"v": 2, "op": "hello"} | {"v": 2, "op": "confirm", "dir": str, "script": str, "seconds": int}
  reply   := {"v": 2, "status": "ok"} (hello) | {"v": 2, "status": "exited", "code": N}
           | {"v": 2, "status": "timeout"} (still running after `seconds`: killed)
           | {"v": 2, "status": "died", "signal": N}
The exit code is what `python3 repro.py` would give: SystemExit's code, 1 for an uncaught
exception (its traceback printed, as python prints it), 0 otherwise.
"""
import json
import os
import runpy
import struct
import sys
import traceback

PROTOCOL_VERSION = 2


def run_script(folder, script):
    """The fork: `python3 SCRIPT` in `folder`, stdout and stderr into repro.out."""
    folder = os.path.abspath(folder)
    path = os.path.join(folder, script)
    out = os.open(os.path.join(folder, "repro.out"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    os.chdir(folder)
    if not os.path.isfile(path):  # as python says it, with its exit status
        print(f"python3: can't open file {path!r}: [Errno 2] No such file or directory", file=sys.stderr)
        os._exit(2)
    sys.argv = [path]
    sys.path[0:0] = [folder]
    code = 0
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if e.code is not None and not isinstance(e.code, int):
            print(e.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import vmapfuzz_zygote

    proto_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    proto_in = os.fdopen(os.dup(0), "rb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)

    def send(header):
        data = json.dumps(header).encode()
        proto_out.write(struct.pack("<Q", len(data)) + data)

    while True:
        head = proto_in.read(8)
        if len(head) < 8:
            return 0
        (n,) = struct.unpack("<Q", head)
        body = b""
        while len(body) < n:
            chunk = proto_in.read(n - len(body))
            if not chunk:
                return 0
            body += chunk
        req = json.loads(body)
        if req.get("op") == "hello":
            send({"v": PROTOCOL_VERSION, "status": "ok"})
            continue
        status = vmapfuzz_zygote.run_for(req["seconds"], run_script, req["dir"], req["script"])
        if status is None:
            send({"v": PROTOCOL_VERSION, "status": "timeout"})
        elif status < 0:
            send({"v": PROTOCOL_VERSION, "status": "died", "signal": -status})
        else:
            send({"v": PROTOCOL_VERSION, "status": "exited", "code": status})


if __name__ == "__main__":
    sys.exit(main())
