"""Every gradient mode's pass functions (python_grad.cpp): the forward and the backward pass, each
in a function of its own name, so that a traceback says which one raised (the worker's
raising_pass). Embedded in the emitted module from the marker line on."""
# vmapfuzz: emitted from here
def _forward_pass(fn, *args):
    return fn(*args)


def _backward_pass(fn, *args, **kwargs):
    return fn(*args, **kwargs)
