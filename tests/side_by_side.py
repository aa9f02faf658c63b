"""Running one scenario on torch and on minitorch and comparing what it saw.

A scenario is a function of the library (`L`) that returns plain data: the
values hooks received, call orders, error texts. `val` turns tensors into
such data; `errmsg` turns a raised error into its type and text, with the
library's own name read as torch's."""
import minitorch


def val(x):
    """A tensor (or nested tuples of them) as comparable plain data."""
    if x is None:
        return None
    if isinstance(x, (tuple, list)):
        return tuple(val(v) for v in x)
    if hasattr(x, "detach"):
        return ("T", tuple(x.shape), [round(v, 4) for v in x.detach().reshape(-1).tolist()])
    return x


def both(torch, scenario, *args):
    """[scenario(torch, *args), scenario(minitorch, *args)]."""
    return [scenario(L, *args) for L in (torch, minitorch)]


def same(torch, scenario, *args):
    """Runs the scenario on both libraries, asserts they saw the same; returns it."""
    ref, got = both(torch, scenario, *args)
    assert got == ref
    return got


def errmsg(fn):
    """(type name, message) of what fn() raises, or None."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return (type(e).__name__, str(e).replace("minitorch.", "torch."))
    return None
