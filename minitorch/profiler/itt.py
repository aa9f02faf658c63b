"""minitorch.profiler.itt: torch's Intel ITT annotations. Without an ITT
runtime to report to, the ranges and marks do nothing."""
from contextlib import contextmanager

__all__ = ["is_available", "range_push", "range_pop", "mark", "range"]


def is_available():
    """Whether ITT annotations reach a profiler: False here."""
    return False


def range_push(msg):
    """Opens an ITT range named msg (nothing to report to here)."""
    return None


def range_pop():
    """Closes the innermost ITT range (nothing to report to here)."""
    return None


def mark(msg):
    """Marks an instant named msg (nothing to report to here)."""
    return None


@contextmanager
def range(msg, *args, **kwargs):
    """A context manager around range_push(msg.format(*args, **kwargs)) and range_pop()."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
