import torch


def program(x0):
    v6 = torch.squeeze(x0, -1)
    return (x0,)


batched = torch.vmap(program, in_dims=(0,), out_dims=(0,))


def per_example(x0):
    """Each example alone, stacked the way vmap stacks: what `batched` must return."""
    outs = [program(x0.select(0, b)) for b in range(x0.size(0))]
    return tuple(torch.stack(o, dim=d) for o, d in zip(zip(*outs), (0,)))


