"""Line and branch coverage of chosen Python source files (torch's batching rules), per case.

Collected with sys.monitoring (PEP 669, Python >= 3.12; branch events need 3.14): local LINE,
BRANCH_LEFT and BRANCH_RIGHT events on the code objects of the target files only. Each location
returns DISABLE after its first hit, and `begin()` calls restart_events() before each recorded
run, so a case pays for each location once. Runs outside begin()/end() (the per-example runs)
record nothing: their hits are disabled until the next begin().

The table (`table()`, sent once in the hello reply) lists per file its functions: qualified
name, first line, executable lines, and branches as [line, left line, right line], numbered in
their file from "first_branch" on (nested functions' lines and branches count as their
enclosing function's); a case's
coverage (`end()`) is {"l": {file: [line, ...]}, "b": {file: [2 * branch_index + side, ...]}},
side 0 for the left (fall-through, "condition true") edge and 1 for the right (jump) edge.
"""
import gc
import os
import sys
import types

TOOL_NAME = "vmapfuzz-coverage"
# The rules, vmap's front end, and the interpreter stack they meet when levels interleave with
# control flow (pyfunctorch.py: lower(), the interpreters; eager_transforms.py: grad, jvp, vjp).
DEFAULT_FILES = ("torch/_higher_order_ops/cond.py", "torch/_higher_order_ops/scan.py",
                 "torch/_higher_order_ops/while_loop.py", "torch/_higher_order_ops/switch.py",
                 "torch/_higher_order_ops/utils.py", "torch/_functorch/vmap.py", "torch/_functorch/apis.py",
                 "torch/_functorch/pyfunctorch.py", "torch/_functorch/eager_transforms.py")


def _nested(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _nested(c)


def _lines(code):
    """The lines LINE events can fire on: those of instructions after the code's RESUME."""
    import dis

    out = set()
    started = False
    for ins in dis.get_instructions(code):
        if ins.opname == "RESUME":
            started = True
            continue
        if started and ins.positions is not None and ins.positions.lineno is not None:
            out.add(ins.positions.lineno)
    return out


class Coverage:
    """`files`: paths as given (relative to a directory on sys.path, e.g. "torch/_functorch/vmap.py",
    or absolute); the modules must be imported before this is built."""

    def __init__(self, files):
        self.mon = sys.monitoring
        self.ev = self.mon.events
        self.names = {}  # absolute path -> the name the table uses
        for f in files:
            path = f if os.path.isabs(f) else self._find(f)
            if path:
                self.names[os.path.realpath(path)] = f
        self.codes = {}  # code object -> (file name, {src offset: branch index})
        self.funcs = {}  # file name -> [{"name", "first", "lines", "branches"}]
        self.branch_lines = {}  # file name -> [line of each branch]
        seen = set()
        for obj in gc.get_objects():
            code = obj.__code__ if type(obj) is types.FunctionType else None
            if code is None or id(code) in seen:
                continue
            name = self.names.get(os.path.realpath(code.co_filename)) if code.co_filename else None
            if name is None or code.co_name == "<module>":
                continue
            seen.add(id(code))
            self._add(name, code)
        self.tool = None
        for tid in range(5, 0, -1):  # 0 is the debugger's, 1 coverage.py's; take a free one
            if self.mon.get_tool(tid) is None:
                self.tool = tid
                break
        if self.tool is None:
            raise RuntimeError("no free sys.monitoring tool id")
        self.mon.use_tool_id(self.tool, TOOL_NAME)
        self.recording = False
        self.hit_lines = {}
        self.hit_branches = {}
        self.mon.register_callback(self.tool, self.ev.LINE, self._line)
        events = self.ev.LINE
        if hasattr(self.ev, "BRANCH_LEFT"):
            self.mon.register_callback(self.tool, self.ev.BRANCH_LEFT, self._left)
            self.mon.register_callback(self.tool, self.ev.BRANCH_RIGHT, self._right)
            events |= self.ev.BRANCH_LEFT | self.ev.BRANCH_RIGHT
        for code in self.codes:
            self.mon.set_local_events(self.tool, code, events)

    @staticmethod
    def _find(rel):
        for d in sys.path:
            p = os.path.join(d or ".", rel)
            if os.path.isfile(p):
                return p
        return None

    def _add(self, name, top):
        brs = self.branch_lines.setdefault(name, [])
        entry = {"name": top.co_qualname, "first": top.co_firstlineno, "lines": set(), "branches": [],
                 "first_branch": len(brs)}
        for code in _nested(top):
            if code in self.codes:
                continue
            entry["lines"] |= _lines(code)
            index = {}
            if hasattr(code, "co_branches"):
                line_at = {}
                for start, end, line in code.co_lines():
                    for off in range(start, end, 2):
                        line_at[off] = line
                for src, left, right in code.co_branches():
                    index[src] = len(brs)
                    brs.append(line_at.get(src) or 0)
                    entry["branches"].append([line_at.get(src) or 0, line_at.get(left) or 0, line_at.get(right) or 0])
            self.codes[code] = (name, index)
        if entry["lines"]:
            entry["lines"] = sorted(entry["lines"])
            self.funcs.setdefault(name, []).append(entry)

    def table(self):
        return {name: sorted(fs, key=lambda e: e["first"]) for name, fs in self.funcs.items()}

    def begin(self, restart=True):
        """restart=False: report only what this process never reported before (no
        restart_events, which costs about 1 ms a case on torch's code paths)."""
        self.hit_lines = {}
        self.hit_branches = {}
        if restart:
            self.mon.restart_events()
        self.recording = True

    def end(self):
        self.recording = False
        return {"l": {f: sorted(s) for f, s in self.hit_lines.items()},
                "b": {f: sorted(s) for f, s in self.hit_branches.items()}}

    def _line(self, code, line):
        if self.recording:
            self.hit_lines.setdefault(self.codes[code][0], set()).add(line)
        return self.mon.DISABLE

    def _branch(self, code, src, side):
        if self.recording:
            name, index = self.codes[code]
            i = index.get(src)
            if i is not None:
                self.hit_branches.setdefault(name, set()).add(2 * i + side)
        return self.mon.DISABLE

    def _left(self, code, src, dst):
        return self._branch(code, src, 0)

    def _right(self, code, src, dst):
        return self._branch(code, src, 1)


def from_env():
    """The Coverage VMAPFUZZ_COVERAGE asks for ("default" or comma-separated files), or None."""
    spec = os.environ.get("VMAPFUZZ_COVERAGE", "")
    if not spec:
        return None
    files = DEFAULT_FILES if spec == "default" else [f for f in spec.split(",") if f]
    for f in files:  # import what is importable, so its functions exist
        if os.path.isabs(f) and f.endswith(".py"):
            sys.path.insert(0, os.path.dirname(f))
            try:
                __import__(os.path.basename(f)[:-3])
            except Exception:
                pass
            finally:
                sys.path.pop(0)
        elif f.endswith(".py"):
            mod = f[:-3].replace("/", ".")
            if mod.endswith(".__init__"):
                mod = mod[: -len(".__init__")]
            try:
                __import__(mod)
            except Exception:
                pass
    return Coverage(files)
