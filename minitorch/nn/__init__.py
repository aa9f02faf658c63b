"""minitorch.nn: neural-network building blocks."""
from . import functional  # noqa: F401
from .parameter import Parameter  # noqa: F401
