# A toy module for the coverage tests: which lines and branches a call reaches is known exactly.
def pick(x):
    if x > 0:
        y = x + 1
    else:
        y = x - 1
    return y


def never():
    return 42


def loop(n):
    total = 0
    for i in range(n):
        total += i
    return total
