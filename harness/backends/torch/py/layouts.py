"""The helpers of `layout_inputs` (python_module.cpp), emitted when a case has memory layouts.
The emitted module imports torch first; the import is here for linters only."""
import torch

# vmapfuzz: emitted from here
def _strided(x, d):
    """x's values at every other element of a larger buffer along dim d, from offset 1."""
    shape = list(x.shape)
    shape[d] = 2 * shape[d] + 1
    v = torch.ops.aten.slice(torch.full(shape, 77, dtype=x.dtype), d, 1, None, 2)
    return v.copy_(x)


def _offset(x):
    """x's values, contiguous, 3 elements into their storage."""
    return torch.full((x.numel() + 3,), 77, dtype=x.dtype)[3:].view(x.shape).copy_(x)
