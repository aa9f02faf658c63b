"""minitorch.masked: torch.masked's reductions and normalizations, each
taking a boolean mask that says which elements of the input take part."""
from ._ops import *  # noqa: F403  (its __all__)
from ._ops import __all__  # noqa: F401
