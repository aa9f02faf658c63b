"""scalar_tensor: a 0-dim tensor holding one number, in the default floating
dtype unless dtype says otherwise."""
import builtins
import numbers
from typing import Any, Optional

from . import _C
from ._tensor import Tensor

__all__ = ["scalar_tensor"]


def scalar_tensor(s: Any, *, dtype: Optional[Any] = None, layout: Any = None, device: Any = None,
                  requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Returns a 0-dim tensor of s (default dtype unless dtype is given)."""
    import minitorch
    if isinstance(s, Tensor) and s.numel() == 1:
        s = s.item()
    if not isinstance(s, numbers.Number) or isinstance(s, builtins.complex):
        raise TypeError("scalar_tensor(): argument 's' (position 1) must be Number, not "
                        f"{type(s).__name__}")
    dtype = _C.get_default_dtype() if dtype is None else dtype
    return minitorch.tensor(s, dtype=dtype, device=device, requires_grad=requires_grad)
