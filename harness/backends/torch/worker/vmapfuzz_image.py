"""What the zygote (vmapfuzz_zygote.py) imports before it forks: torch, torch._dynamo, the
modules a precompile case's fresh processes run, and, when VMAPFUZZ_COVERAGE is set, the
coverage tables (building them reads torch's sources: seconds, paid once here). Importing this
module must not run torch code beyond imports."""
import importlib

import torch
import torch._dynamo

# What compiling, saving and loading ahead of time import on first use (measured: about 450
# modules, half a second a fork when they are not here). Imports only; one this torch lacks is
# skipped (the fork then imports what it needs itself).
for _name in ("torch._dynamo.aot_compile", "torch._dynamo.backends.debugging", "torch._dynamo.precompile_context",
              "torch._functorch.aot_autograd", "torch._functorch.partitioners", "torch._inductor.compile_fx",
              "torch._export", "networkx", "sqlite3", "filelock"):
    try:
        importlib.import_module(_name)
    except Exception:
        pass

import vmapfuzz_aot
import vmapfuzz_coverage
import vmapfuzz_precompile
import vmapfuzz_worker  # its error formatting

# The modules a fork runs, imported here once (named so that linters see them used).
PRELOADED = (torch._dynamo, vmapfuzz_aot, vmapfuzz_precompile, vmapfuzz_worker)

try:
    COVERAGE = vmapfuzz_coverage.from_env()
except Exception:  # the worker's hello already said why (coverage_error); the forks record none
    COVERAGE = None
