#!/usr/bin/env python3
# vmapfuzz finding: batched-error
# torch._dynamo.exc.TorchRuntimeError: RuntimeError when making fake tensor call got ValueError('vmap: Expected at least one Tensor to vmap over')
# reproduce: vmapfuzz gen --case-seed 368342364169337290 --size 77 > case.vf && vmapfuzz replay case.vf
# Exits 1 while torch.vmap disagrees with running each example alone, 0 once it agrees.
import torch


def program(x0, x1):
    v3 = torch.gt(x1, 0.0)
    def true_fn_4():
        return (x1.clone(),)
    def false_fn_4():
        return (x1.clone(),)
    v4, = torch.cond(v3, true_fn_4, false_fn_4, ())
    return (v3,)


batched = torch.vmap(program, in_dims=(0, None), out_dims=(0,))


def per_example(x0, x1):
    """Each example alone, stacked the way vmap stacks: what `batched` must return."""
    outs = [program(x0.select(0, b), x1) for b in range(1)]
    return tuple(torch.stack(o, dim=d) for o, d in zip(zip(*outs), (0,)))


x0 = torch.tensor([-0.19664497673511505], dtype=torch.float32).reshape((1,))
x1 = torch.tensor([-0.3791216313838959], dtype=torch.float32).reshape(())

expected = per_example(x0, x1)
try:
    actual = batched(x0, x1)
except Exception as e:
    print(f"FAIL: the batched run raised {type(e).__name__}: {e}")
    raise SystemExit(1)
failed = False
for i, (a, e) in enumerate(zip(actual, expected)):
    tol = {torch.float16: 1e-2, torch.bfloat16: 4e-2, torch.float32: 1e-4, torch.float64: 1e-9}.get(e.dtype, 0)
    try:
        torch.testing.assert_close(a, e, rtol=tol, atol=tol, equal_nan=True)
    except AssertionError as err:
        failed = True
        print(f"FAIL: output {i} differs from the per-example result:\n{err}")
if len(actual) != len(expected):
    failed = True
    print(f"FAIL: {len(actual)} outputs, expected {len(expected)}")
print("FAIL" if failed else "OK: batched and per-example results agree")
raise SystemExit(1 if failed else 0)
