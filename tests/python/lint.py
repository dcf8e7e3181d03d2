"""Lints every Python file of the project: each must compile (py_compile), and, where pyflakes is
installed, each hand-written one (all but the filed reports' emitted files) must pass it. The static Python of the emitter (harness/backends/torch/py/) is linted as the
files stand: their stand-ins above the embedding marker give pyflakes the names the emitted module
defines around them.

    python3 tests/python/lint.py [SOURCE_DIR]      exit 0 when clean, 1 with what is wrong
"""
import importlib.util
import os
import py_compile
import subprocess
import sys
import tempfile

# Output folders of the tools (.gitignore): what they hold is emitted, not the project's own Python.
SKIP = {".git", "build", "__pycache__", "bench-out", "vmapfuzz-out", "matrix-out"}


def python_files(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP and not d.startswith(("build", ".")))
        for f in sorted(files):
            if f.endswith(".py"):
                yield os.path.join(folder, f)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    files = list(python_files(root))
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            try:
                py_compile.compile(f, cfile=os.path.join(tmp, "out.pyc"), doraise=True)
            except py_compile.PyCompileError as e:
                print(e.msg)
                bad += 1
    if importlib.util.find_spec("pyflakes") is None:
        print(f"lint: {len(files)} files compile; pyflakes is not installed: skipped")
        return 1 if bad else 0
    # The filed reports' program.py and repro.py are emitted (a shrunk program keeps values it no
    # longer uses): compiled above, not held to pyflakes.
    written = [f for f in files if os.path.relpath(f, root).split(os.sep)[0] != "reports"]
    flakes = subprocess.run([sys.executable, "-m", "pyflakes", *written], capture_output=True, text=True)
    if flakes.returncode != 0:
        print(flakes.stdout + flakes.stderr)
        bad += 1
    print(f"lint: {len(files)} files, py_compile and pyflakes: " + ("clean" if not bad else "FAILED"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
