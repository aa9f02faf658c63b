"""minitorch.backends.mps: Apple's Metal backend, which minitorch lacks."""


def is_available() -> bool:
    """False: no MPS device can be used."""
    return False


def is_built() -> bool:
    """False: minitorch is not built with MPS support."""
    return False
