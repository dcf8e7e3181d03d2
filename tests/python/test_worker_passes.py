"""The worker's raising-pass detection and its traceback cut (vmapfuzz_worker.py)."""
import vmapfuzz_worker as w


# Stand-ins for the emitted module's pass frames (python_grad.cpp): only their names matter.
def _forward_pass(fn, *args):
    return fn(*args)


def _backward_pass(fn, *args):
    return fn(*args)


def _tangent_pass(fn, *args):
    return fn(*args)


def _raise(msg="boom"):
    raise RuntimeError(msg)


def _caught(fn, *args):
    try:
        fn(*args)
    except Exception as e:
        return e
    raise AssertionError("did not raise")


def test_no_pass_frame_is_none():
    assert w.raising_pass(_caught(_raise)) is None


def test_each_pass_is_named():
    assert w.raising_pass(_caught(_forward_pass, _raise)) == "forward"
    assert w.raising_pass(_caught(_backward_pass, _raise)) == "backward"
    assert w.raising_pass(_caught(_tangent_pass, _raise)) == "tangent"


def test_the_innermost_pass_decides():
    # A backward that re-runs the forward raises inside both: the forward is innermost.
    assert w.raising_pass(_caught(_backward_pass, _forward_pass, _raise)) == "forward"
    assert w.raising_pass(_caught(_forward_pass, _tangent_pass, _raise)) == "tangent"


def test_a_chained_exception_reads_as_its_printed_traceback():
    def reraise():
        try:
            _backward_pass(_raise)
        except RuntimeError as e:
            raise ValueError("wrapped") from e

    # The cause (raised in the backward pass) prints first, the final exception (raised in the
    # forward pass, outside the backward) last: the last pass frame printed decides, as the
    # worker's raising_pass reads the frames in the same order.
    e = _caught(_forward_pass, reraise)
    text = w._format_exception(e)
    assert text.rfind("in _forward_pass") > text.rfind("in _backward_pass") >= 0
    assert w.raising_pass(e) == "forward"


def _deep(n, fn, *args):
    return fn(*args) if n == 0 else _deep(n - 1, fn, *args)


def test_the_cut_keeps_the_pass_it_cuts_off():
    for fn, name in ((_forward_pass, "_forward_pass"), (_backward_pass, "_backward_pass"),
                     (_tangent_pass, "_tangent_pass")):
        e = _caught(fn, _deep, 60, _raise)
        full = w._traceback(e, limit=10 ** 6)
        assert "in " + name in full
        cut = w._traceback(e, limit=300)
        assert len(cut) > 300 and "in " + name not in cut[cut.index("\n") + 1:]
        assert cut.startswith("  (frames cut) in " + name + "\n")
        assert w.raising_pass(e) == name.strip("_").split("_")[0]


def test_a_short_traceback_is_whole_and_formatted_like_the_standard_one():
    e = _caught(_forward_pass, _raise, "short")
    text = w._traceback(e)
    assert text.startswith("Traceback (most recent call last):\n")
    assert "in _forward_pass\n" in text and text.endswith("RuntimeError: short\n")
    assert "(frames cut)" not in text


def test_a_leaked_transform_state_is_seen_and_a_clean_one_is_not():
    # A forward-AD level entered in C++ alone (as dynamo does while it traces a jvp) is invisible
    # to forward_ad's Python bookkeeping; the worker still sees it, and replaces itself.
    import torch
    assert w._leaked_state(torch) is None
    level = torch._C._enter_dual_level()
    try:
        assert "forward-AD dual level" in w._leaked_state(torch)
    finally:
        torch._C._exit_dual_level(level=level)
    assert w._leaked_state(torch) is None
    with torch.no_grad():
        assert w._leaked_state(torch) == "grad mode off"
