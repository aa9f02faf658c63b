"""minitorch.signal: torch.signal's window functions (minitorch.signal.windows)."""
from . import windows  # noqa: F401
