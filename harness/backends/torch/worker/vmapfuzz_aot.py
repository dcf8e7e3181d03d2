"""A precompile mode's compile-save-load steps, defined once: the worker's vmapfuzz_precompile.py
imports this file, and a precompile mode's repro.py embeds its text from the marker line on
(harness/backends/torch/python_repro.cpp), so both compile, save and load alike.

`aot_compile_and_save` compiles `fn` ahead of time once per call (per batch size) with
`torch.compile(fn, fullgraph=True).aot_compile(((args), {}))` and saves each artifact with
`save_compiled_function`; `aot_loader` loads them in another process with
`torch.compiler.load_compiled_function` and calls artifact 0 wherever its saved guards accept the
arguments, that call's own artifact where they reject them (a static artifact's documented
behaviour)."""
# vmapfuzz: emitted from here
import os


class AotSaveFailed(Exception):
    """Saving artifact `call` raised `error`."""

    def __init__(self, call, error):
        super().__init__(f"saving the compiled function: {error}")
        self.call, self.error = call, error


def aot_artifact(folder, k):
    return os.path.join(folder, f"artifact_{k}.bin")


def aot_compile_and_save(torch, fn, args_per_call, backend, dynamic, folder, run_first=False):
    """One artifact per call in `folder`, each compiled from a fresh dynamo state; `run_first`:
    the first is called in process before it is saved. Raises what compiling raises, or AotSaveFailed."""
    for k, args in enumerate(args_per_call):
        torch._dynamo.reset()
        compiled = torch.compile(fn, backend=backend, dynamic=dynamic, fullgraph=True).aot_compile((tuple(args), {}))
        if k == 0 and run_first:
            compiled(*args)  # the same torch runs it in process: what fails later is save/load's
        try:
            compiled.save_compiled_function(aot_artifact(folder, k))
        except Exception as e:
            raise AotSaveFailed(k, e) from None


def aot_loader(torch, folder, f_globals):
    """`call(k, *args)`: the k-th call through the artifacts in `folder`, loaded into the module
    whose globals are `f_globals`: artifact 0 where its saved guards accept args, else call k's own."""
    loaded = {}

    def load(k):
        if k not in loaded:
            with open(aot_artifact(folder, k), "rb") as f:
                loaded[k] = torch.compiler.load_compiled_function(f, f_globals=f_globals)
        return loaded[k]

    def call(k, *args):
        first = load(0)
        return (first if k == 0 or first.guard_check(*args) else load(k))(*args)

    return call
