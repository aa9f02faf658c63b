"""Window functions for spectral analysis (hann, hamming, blackman, bartlett,
kaiser), computed in the requested dtype by the steps torch takes so the
rounding matches; periodic windows are the symmetric window one longer with
its last point dropped."""
import builtins
import math
from typing import Any, Callable, Optional

import numpy as np

from . import _C

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


def _window(name: str, window_length: int, periodic: bool, dtype: Optional[Any],
            requires_grad: bool, device: Any, symmetric: Callable[[int, Any], Any]) -> Any:
    """Checks the arguments as torch does, then builds the window by
    symmetric(length, dtype) for lengths above 1."""
    import minitorch
    if not isinstance(window_length, builtins.int) or isinstance(window_length, builtins.bool):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    dtype = _C.get_default_dtype() if dtype is None else dtype
    minitorch.empty(0, device=device)
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    if not dtype.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype={dtype._cpp_name}, "
            "device=cpu, layout=Strided (default), requires_grad=false (default), "
            "pinned_memory=false, memory_format=(nullopt))")
    if window_length <= 1:
        out = minitorch.ones(window_length, dtype=dtype)
    else:
        n = window_length + 1 if periodic else window_length
        out = symmetric(n, dtype)
        if periodic:
            out = out[:-1].clone()
    return out.requires_grad_(requires_grad)


def _cosine_sum(n: int, dtype: Any, alpha: float, beta: float) -> Any:
    import minitorch
    w = minitorch.arange(n, dtype=dtype).mul_(2 * math.pi / (n - 1)).cos_()
    return w.mul_(-beta).add_(alpha)


def hann_window(window_length: int, periodic: bool = True, *, dtype: Optional[Any] = None,
                layout: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """The Hann window: 0.5 - 0.5 cos(2 pi n / (N - 1))."""
    return _window("hann_window", window_length, periodic, dtype, requires_grad, device,
                   lambda n, d: _cosine_sum(n, d, 0.5, 0.5))


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype: Optional[Any] = None, layout: Any = None,
                   device: Any = None, requires_grad: bool = False) -> Any:
    """The Hamming window: alpha - beta cos(2 pi n / (N - 1))."""
    return _window("hamming_window", window_length, periodic, dtype, requires_grad, device,
                   lambda n, d: _cosine_sum(n, d, alpha, beta))


def _blackman(n: int, dtype: Any) -> Any:
    import minitorch
    w = minitorch.arange(n, dtype=dtype).mul_(math.pi / (n - 1))
    return w.mul(4).cos_().mul_(0.08) - w.mul(2).cos_().mul_(0.5) + 0.42


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Optional[Any] = None,
                    layout: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """The Blackman window: 0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))."""
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, device,
                   _blackman)


def _bartlett(n: int, dtype: Any) -> Any:
    import minitorch
    w = minitorch.arange(n, dtype=dtype).mul_(2.0 / (n - 1))
    half = ((n - 1) >> 1) + 1
    w.narrow(0, half, n - half).mul_(-1).add_(2)
    return w


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Optional[Any] = None,
                    layout: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """The Bartlett (triangular) window: ``1 - abs(2n / (N - 1) - 1)``."""
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, device,
                   _bartlett)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype: Optional[Any] = None, layout: Any = None, device: Any = None,
                  requires_grad: bool = False) -> Any:
    """The Kaiser window: I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2
    (computed in float64, then cast)."""
    import minitorch

    def symmetric(n: int, d: Any) -> Any:
        a = (n - 1) / 2.0
        k = np.arange(n, dtype=np.float64)
        w = np.i0(beta * np.sqrt(np.maximum(1.0 - ((k - a) / a) ** 2, 0.0))) / np.i0(beta)
        return minitorch.tensor(w, dtype=d)
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, device,
                   symmetric)
