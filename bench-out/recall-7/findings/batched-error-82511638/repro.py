#!/usr/bin/env python3
# vmapfuzz finding: batched-error
# RuntimeError: Dimension is out of range (expected to be in range of [-1, 0], but got [-1]
# reproduce: vmapfuzz gen --case-seed 8724071982933185875 --size 44 --gen switch_weight=0 --gen while_weight=0 > case.vf && vmapfuzz replay --mode eager case.vf
# Exits 1 while torch.vmap disagrees with running each example alone, 0 once it agrees.
import torch


def program(x0):
    v6 = torch.squeeze(x0, -1)
    return (x0,)


batched = torch.vmap(program, in_dims=(0,), out_dims=(0,))


def per_example(x0):
    """Each example alone, stacked the way vmap stacks: what `batched` must return."""
    outs = [program(x0.select(0, b)) for b in range(x0.size(0))]
    return tuple(torch.stack(o, dim=d) for o, d in zip(zip(*outs), (0,)))



x0 = torch.tensor([-0.052490234375], dtype=torch.bfloat16).reshape((1,))


# (rtol, atol) per output: its dtype's, or the looser one of the least precise dtype it was computed through
TOLERANCES = [(0.04, 0.04)]


def check(args, what):
    expected = per_example(*args)
    try:
        actual = batched(*args)
    except Exception as e:
        print(f"FAIL: {what} raised {type(e).__name__}: {e}")
        return False
    ok = len(actual) == len(expected)
    if not ok:
        print(f"FAIL: {what} gave {len(actual)} outputs, expected {len(expected)}")
    for i, (a, e) in enumerate(zip(actual, expected)):
        rtol, atol = TOLERANCES[i]
        try:
            torch.testing.assert_close(a, e, rtol=rtol, atol=atol, equal_nan=True)
        except AssertionError as err:
            ok = False
            print(f"FAIL: output {i} of {what} differs from the per-example result:\n{err}")
    return ok


ok = True
ok = check((x0,), "the batched run") and ok
print("OK: batched and per-example results agree" if ok else "FAIL")
raise SystemExit(0 if ok else 1)
