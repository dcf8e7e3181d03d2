# torch.compile / torch.cond tracing (dynamo) rejects valid nested higher-order-op programs with
# "InternalTorchDynamoError: SyntaxError: duplicate argument '...' in function definition".
# No vmap is involved: these programs fail unbatched. Exit 1 while either still fails, 0 when
# both run. Found by vmapfuzz (cases rejected as `invalid`, shrunk with `vmapfuzz shrink`).
import torch
from torch._higher_order_ops.scan import scan


def parameter_shared_by_while_loop(init, xs):
    """A parameter of scan's combine_fn, captured by both functions of a while_loop inside it."""
    def combine(carry, x):
        c, = carry  # dynamo names this placeholder "child", as it names the loop's own inputs

        def cond_fn(i):
            return i < c.sum()

        def body_fn(i):
            return (i + c.sum(),)

        i, = torch.while_loop(cond_fn, body_fn, (torch.zeros((), dtype=c.dtype),))
        return (c.clone(),), (i.clone(),)

    return scan(combine, (init,), (xs,))


def two_captures_named_alike(x):
    """One branch captures values of two enclosing branches that dynamo names alike ("sin")."""
    def outer_true():
        a = x.sin()

        def inner_true():
            b = x.cos().sin()

            def t():
                return (a + b,)

            def e():
                return (x.clone(),)

            return torch.cond(x.sum() > 1, t, e, ())

        def inner_false():
            return (x.clone(),)

        return torch.cond(x.sum() > 0, inner_true, inner_false, ())

    def outer_false():
        return (x.clone(),)

    return torch.cond(x.sum() > -1, outer_true, outer_false, ())


failed = False
for name, run in [("parameter_shared_by_while_loop", lambda: parameter_shared_by_while_loop(torch.ones(1), torch.ones(2, 1))),
                  ("two_captures_named_alike", lambda: two_captures_named_alike(torch.ones(2)))]:
    try:
        run()
        print(f"OK: {name}")
    except Exception as e:
        failed = True
        print(f"FAIL: {name}: {type(e).__name__}: {str(e).splitlines()[0]}")
raise SystemExit(1 if failed else 0)
