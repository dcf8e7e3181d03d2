"""Fresh processes without a fresh `import torch`: a start-up image (zygote) that forks them.

The image is Python's own multiprocessing forkserver: a `python3` started once per worker, on
the first request that needs a fresh process, from the worker's environment (VMAPFUZZ_FAULTS,
VMAPFUZZ_COVERAGE, VMAPFUZZ_MEMORY_LIMIT_MB's limit) and sys.path. It imports torch,
torch._dynamo and vmapfuzz's worker modules (`vmapfuzz_image`: the coverage tables too, when
coverage is on) and then only forks: it never runs a program, never compiles, never initialises
CUDA (no tensor is made there). Each fresh process is a fork of that image, so what a fork shares
with its parent is the imported modules' memory (copy on write) and nothing else: no dynamo
cache, no compiled artifact, no functorch interpreter level, no planted fault, no swap, no CUDA
context. A precompile case's compile and its load are two such forks: the loading process has
never seen the compile, which is what "loaded in another process" means (the artifact's bytes
on disk are all they share, as between two `python3` runs; inductor's on-disk cache is shared
by fresh `python3` processes too).

A fork's parent is the forkserver, which exits once no process holds the write end of its
"alive" pipe. multiprocessing gives each fork a copy of that end too; a fork closes its copy
first thing, so the worker's is the last: when the worker exits or is killed, the forkserver
exits, and each fork has asked the kernel for SIGKILL when its parent dies (PR_SET_PDEATHSIG). A
fork hung past the C++ side's deadline thus dies with the worker it ran for.
"""
import multiprocessing
import os
import signal

_CONTEXT = []


def _context():
    if not _CONTEXT:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["vmapfuzz_image"])
        _CONTEXT.append(ctx)
    return _CONTEXT[0]


def _die_with_parent():
    """SIGKILL this process when its parent (the forkserver) exits (Linux; elsewhere nothing),
    and let the forkserver exit when the worker does: close this fork's copy of the write end of
    the forkserver's alive pipe (multiprocessing keeps it, privately, in `_forkserver_alive_fd`)."""
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if fd is not None:
        os.close(fd)
        server._forkserver_alive_fd = None  # a fork that starts processes itself gets its own server
    try:
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent died before the request took effect
        os._exit(1)


def _child(target, args):
    _die_with_parent()
    target(*args)


def run(target, *args):
    """Runs target(*args) (a module-level function: it is sent by name) in a fresh fork of the
    image and waits for it. Returns its exit code: 0, what it exited with, or -N for signal N."""
    return run_for(None, target, *args)


def run_for(seconds, target, *args):
    """run() with a limit: None when the fork still ran after `seconds` (it is then killed)."""
    proc = _context().Process(target=_child, args=(target, args), daemon=False)
    proc.start()
    proc.join(seconds)
    if proc.exitcode is None:
        proc.kill()
        proc.join()
        return None
    return proc.exitcode
