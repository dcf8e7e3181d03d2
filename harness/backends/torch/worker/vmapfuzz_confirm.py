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
import os
import runpy
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
        if e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:  # sys.exit("message"): python prints it and exits 1
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import vmapfuzz_worker
    import vmapfuzz_zygote

    pipes = vmapfuzz_worker.Pipes()
    send = pipes.send
    while True:
        req = pipes.read_header()
        if req is None:
            return 0
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
