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


