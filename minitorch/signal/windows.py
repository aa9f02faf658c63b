"""minitorch.signal.windows: torch.signal.windows' eleven windows, built
from a linspace by the steps torch takes (so the rounding and, with
requires_grad=True, the graph match), with its ValueError checks. A
periodic window (sym=False) is the symmetric one over M + 1 points without
its last. The cosine-sum windows share general_cosine."""
import math
from collections.abc import Iterable
from typing import Any, Optional

from .. import _C

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _mt():
    import minitorch
    return minitorch


def _checked(name: str, M: int, dtype: Optional[Any], layout: Any) -> Any:
    """The dtype to build in, after torch's checks common to every window."""
    mt = _mt()
    dtype = _C.get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and str(layout) != "torch.strided":
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (mt.float32, mt.float64):
        # torch's message prints the dtype as torch spells it
        spelled = "torch." + str(dtype).rpartition(".")[2]
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {spelled}")
    return dtype


def _trivial(M: int, dtype: Any, device: Any, requires_grad: bool, one: bool = True) -> Any:
    """The window of length 0 (and of length 1 when one), or None."""
    mt = _mt()
    if M == 0:
        return mt.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if M == 1 and one:
        return mt.ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def _line(start, end, M, dtype, device, requires_grad):
    return _mt().linspace(start, end, M, dtype=dtype, device=device,
                          requires_grad=requires_grad)


def exponential(M: int, *, center: Optional[float] = None, tau: float = 1.0, sym: bool = True,
                dtype: Optional[Any] = None, layout: Any = None, device: Any = None,
                requires_grad: bool = False) -> Any:
    """The exponential (Poisson) window exp(-abs(n - center) / tau)."""
    dtype = _checked("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    w = _trivial(M, dtype, device, requires_grad, one=False)
    if w is not None:
        return w
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / tau
    k = _line(-center * constant, (-center + (M - 1)) * constant, M, dtype, device,
              requires_grad)
    return _mt().exp(-_mt().abs(k))


def cosine(M: int, *, sym: bool = True, dtype: Optional[Any] = None, layout: Any = None,
           device: Any = None, requires_grad: bool = False) -> Any:
    """The cosine (sine) window sin(pi (n + 1/2) / M)."""
    dtype = _checked("cosine", M, dtype, layout)
    w = _trivial(M, dtype, device, requires_grad, one=False)
    if w is not None:
        return w
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    k = _line(0.5 * constant, (0.5 + (M - 1)) * constant, M, dtype, device, requires_grad)
    return _mt().sin(k)


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype: Optional[Any] = None,
             layout: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """The Gaussian window exp(-(n / (2 std))^2), centred."""
    dtype = _checked("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    w = _trivial(M, dtype, device, requires_grad, one=False)
    if w is not None:
        return w
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = _line(start * constant, (start + (M - 1)) * constant, M, dtype, device, requires_grad)
    return _mt().exp(-(k ** 2))


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype: Optional[Any] = None,
           layout: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """The Kaiser window I0(beta sqrt(1 - (2n / N - 1)^2)) / I0(beta), N = M - 1 when sym
    else M."""
    mt = _mt()
    dtype = _checked("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    w = _trivial(M, dtype, device, requires_grad)
    if w is not None:
        return w
    b = mt.tensor(beta, dtype=dtype, device=device)
    start = -b
    constant = 2.0 * b / (M if not sym else M - 1)
    end = mt.minimum(b, start + (M - 1) * constant)
    k = _line(start, end, M, dtype, device, requires_grad)
    return mt.i0(mt.sqrt(b * b - mt.pow(k, 2))) / mt.i0(b)


def bartlett(M: int, *, sym: bool = True, dtype: Optional[Any] = None, layout: Any = None,
             device: Any = None, requires_grad: bool = False) -> Any:
    """The Bartlett (triangular) window 1 - abs(2n / (M - 1) - 1)."""
    dtype = _checked("bartlett", M, dtype, layout)
    w = _trivial(M, dtype, device, requires_grad)
    if w is not None:
        return w
    constant = 2 / (M if not sym else M - 1)
    k = _line(-1, -1 + (M - 1) * constant, M, dtype, device, requires_grad)
    return 1 - _mt().abs(k)


def general_cosine(M: int, *, a: Iterable, sym: bool = True, dtype: Optional[Any] = None,
                   layout: Any = None, device: Any = None, requires_grad: bool = False) -> Any:
    """The general cosine window, the sum over i of (-1)^i a_i cos(2 pi i n / (M - 1))."""
    mt = _mt()
    dtype = _checked("general_cosine", M, dtype, layout)
    w = _trivial(M, dtype, device, requires_grad)
    if w is not None:
        return w
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = _line(0, (M - 1) * constant, M, dtype, device, requires_grad)
    a_i = mt.tensor([(-1) ** i * v for i, v in enumerate(a)], dtype=dtype, device=device,
                    requires_grad=requires_grad)
    i = mt.arange(a_i.shape[0], dtype=a_i.dtype, requires_grad=a_i.requires_grad)
    return (a_i.unsqueeze(-1) * mt.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M: int, *, alpha: float = 0.54, sym: bool = True,
                    dtype: Optional[Any] = None, layout: Any = None, device: Any = None,
                    requires_grad: bool = False) -> Any:
    """The general Hamming window alpha - (1 - alpha) cos(2 pi n / (M - 1))."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M: int, *, sym: bool = True, dtype: Optional[Any] = None, layout: Any = None,
            device: Any = None, requires_grad: bool = False) -> Any:
    """The Hamming window 0.54 - 0.46 cos(2 pi n / (M - 1))."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype: Optional[Any] = None, layout: Any = None,
         device: Any = None, requires_grad: bool = False) -> Any:
    """The Hann window 1/2 - 1/2 cos(2 pi n / (M - 1))."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M: int, *, sym: bool = True, dtype: Optional[Any] = None, layout: Any = None,
             device: Any = None, requires_grad: bool = False) -> Any:
    """The Blackman window 0.42 - 0.5 cos(2 pi n / (M - 1)) + 0.08 cos(4 pi n / (M - 1))."""
    _checked("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def nuttall(M: int, *, sym: bool = True, dtype: Optional[Any] = None, layout: Any = None,
            device: Any = None, requires_grad: bool = False) -> Any:
    """Nuttall's minimum 4-term Blackman-Harris window."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)
