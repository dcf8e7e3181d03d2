"""The worker calls the entry point the request names (python_entry.h's table), and decides
nothing itself."""
import vmapfuzz_worker as w


class FakeTorch:
    """Records torch.compile's arguments; the compiled function is the same function, tagged."""

    def __init__(self):
        self.compiled = []

    def compile(self, fn, **kwargs):
        self.compiled.append((fn.__name__, kwargs))

        def compiled(*args):
            return ("compiled", fn(*args))
        return compiled


def module():
    def batched(*args):
        return "batched"

    def per_example(*args):
        return "per_example"

    def batched_vjp(*args):
        return "batched_vjp"

    def vjp_of(fn):
        return lambda *args: ("vjp_of", fn(*args))

    return {"batched": batched, "per_example": per_example, "batched_vjp": batched_vjp, "vjp_of": vjp_of}


def test_the_named_function_is_called_plainly():
    torch = FakeTorch()
    fn = w._entry_point(module(), {"fn": "batched_vjp"}, {"compile": "inductor"}, torch)
    assert fn() == "batched_vjp" and torch.compiled == []


def test_compile_then_vjp_of():
    torch = FakeTorch()
    ex = {"compile": "aot_eager", "dynamic": True}
    fn = w._entry_point(module(), {"fn": "batched", "compile": True, "vjp_of": True}, ex, torch)
    assert fn() == ("vjp_of", ("compiled", "batched"))
    assert torch.compiled == [("batched", {"backend": "aot_eager", "dynamic": True, "fullgraph": False})]


def test_a_request_without_entry_calls_the_forward_program():
    assert w.entry_request({"mode": "batched"}) == {"fn": "batched"}
    assert w.entry_request({"mode": "unbatched"}) == {"fn": "per_example"}
    entry = {"fn": "per_example_func_jvp", "compile": False}
    assert w.entry_request({"mode": "unbatched-func", "entry": entry}) is entry
