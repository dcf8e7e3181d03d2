"""The precompile modes' shared compile-save-load steps (vmapfuzz_aot.py), with a fake torch:
artifact 0 serves every call its guards accept, a call they reject loads its own."""
import os

import vmapfuzz_aot as aot


class FakeCompiled:
    def __init__(self, k, accepts):
        self.k, self.accepts = k, accepts

    def guard_check(self, *args):
        return args[0] in self.accepts

    def __call__(self, *args):
        return (self.k, args)


class FakeTorch:
    def __init__(self, accepts):
        self.accepts, self.loads = accepts, []
        torch = self

        class Compiler:
            @staticmethod
            def load_compiled_function(f, f_globals):
                k = int(f.read())
                torch.loads.append(k)
                return FakeCompiled(k, torch.accepts)

        self.compiler = Compiler


def test_artifact_zero_where_its_guards_accept(tmp_path):
    for k in range(3):
        with open(aot.aot_artifact(str(tmp_path), k), "w") as f:
            f.write(str(k))
    torch = FakeTorch(accepts={2})
    call = aot.aot_loader(torch, str(tmp_path), {})
    assert call(0, 5) == (0, (5,))   # the first call: artifact 0, no guard check
    assert call(1, 2) == (0, (2,))   # accepted by artifact 0's guards
    assert call(2, 7) == (2, (7,))   # rejected: call 2's own artifact
    assert torch.loads == [0, 2]     # each artifact loaded once


def test_a_save_that_raises_names_its_call(tmp_path):
    class Compiled:
        def __init__(self, k):
            self.k = k

        def __call__(self, *args):
            return args

        def save_compiled_function(self, path):
            if self.k == 1:
                raise OSError("disk full")
            open(path, "w").close()

    class Torch:
        class _dynamo:
            @staticmethod
            def reset():
                pass

        def __init__(self):
            self.n = 0

        def compile(self, fn, **kwargs):
            torch = self

            class Lazy:
                def aot_compile(self, spec):
                    torch.n += 1
                    return Compiled(torch.n - 1)
            return Lazy()

    try:
        aot.aot_compile_and_save(Torch(), lambda *a: a, [[1], [2]], "eager", None, str(tmp_path), run_first=True)
    except aot.AotSaveFailed as e:
        assert e.call == 1 and isinstance(e.error, OSError)
        assert str(e) == "saving the compiled function: disk full"
    else:
        raise AssertionError("the failed save did not raise")
    assert os.path.exists(aot.aot_artifact(str(tmp_path), 0))
