"""Statistics and numerical integration torch writes over other ops (cov,
corrcoef, the trapezoid rule and its cumulative form), written the same way
over minitorch's, so gradients follow from the ops used. Each dispatches
__torch_function__ as a C op does."""
import numbers
import warnings
from typing import Optional, Union

from . import _C
from ._tensor import Tensor
from .overrides import composite

__all__ = ["cov", "corrcoef", "trapezoid", "trapz", "cumulative_trapezoid", "gradient"]

_f = _C._functions


def _weights(name, w, observations, integral):
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {w.dim()} dimensions")
    if integral and w.is_floating_point() or not integral and not w.is_floating_point():
        kind = "integral" if integral else "floating point"
        raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                           f"{w.dtype._scalar_name} dtype")
    if w.numel() != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {w.numel()} != {observations}")
    if observations > 0 and bool(w.min() < 0):
        raise RuntimeError(f"cov(): {name} cannot be negative")


@composite()
def cov(input: Tensor, *, correction: int = 1, fweights: Optional[Tensor] = None,
        aweights: Optional[Tensor] = None) -> Tensor:
    """The covariance matrix of the variables in input's rows (observations in
    its columns), weighted by fweights (integer frequencies) and aweights."""
    if input.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    if input.dtype == _C.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    observations = x.shape[1]
    w = None
    if fweights is not None:
        _weights("fweights", fweights, observations, True)
        w = fweights
    if aweights is not None:
        _weights("aweights", aweights, observations, False)
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = _f["tensor"](observations, dtype=_C.int64)
        avg = x.sum(1) / w_sum
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm = w_sum - correction
    if bool(norm <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=3)
        norm = norm.clamp(min=0)
    centred = x - avg.unsqueeze(1)
    other = (centred if w is None else centred * w).t()
    c = _f["mm"](centred, other.conj() if other.is_complex() else other)
    return (c / norm).squeeze()


@composite()
def corrcoef(input: Tensor) -> Tensor:
    """Pearson's correlation coefficients of the variables in input's rows,
    clamped to [-1, 1] (a complex one's real and imaginary parts apart)."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    std = (d.real if d.is_complex() else d).sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    if c.is_complex():
        return _f["complex"](c.real.clamp(-1, 1), c.imag.clamp(-1, 1))
    return c.clamp(-1, 1)


def _wrap(dim, nd):
    n = max(nd, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def _empty_integral(y, dim):
    return _f["zeros"]([s for d, s in enumerate(y.shape) if d != dim], dtype=y.dtype)


def _spacing(x, y, dim, fn):
    """x's differences along dim, x viewed to broadcast against y's."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{fn}: There must be one `x` value for each sample point")
        shape = [1] * y.dim()
        shape[dim] = x.shape[0]
        x = x.reshape(shape)
    elif x.dim() < y.dim():
        x = x.reshape([1] * (y.dim() - x.dim()) + list(x.shape))
    n = x.shape[dim]
    return x.narrow(dim, 1, n - 1) - x.narrow(dim, 0, n - 1)


def _sides(y, dim):
    n = y.shape[dim]
    return y.narrow(dim, 0, n - 1), y.narrow(dim, 1, n - 1)


def _check_dx(dx, fn):
    if isinstance(dx, bool) or not isinstance(dx, numbers.Real):
        raise RuntimeError(f"{fn}: Currently, we only support dx as a real number.")


@composite(method=False)
def trapezoid(y: Tensor, x: Optional[Union[Tensor, float]] = None, *,
              dx: Optional[float] = None, dim: int = -1) -> Tensor:
    """The integral of y along dim by the trapezoidal rule, over the sample
    points x or at a constant spacing dx (1 by default)."""
    dim = _wrap(dim, y.dim())
    if y.shape[dim] == 0:
        return _empty_integral(y, dim)
    if isinstance(x, Tensor):
        if y.dtype == _C.bool or x.dtype == _C.bool:
            raise RuntimeError("trapezoid: received a bool input for `x` or `y`, but bool is "
                               "not supported")
        left, right = _sides(y, dim)
        return (_spacing(x, y, dim, "trapezoid") * (left + right)).sum(dim) / 2.0
    step = 1 if dx is None and x is None else dx if dx is not None else x
    if y.dtype == _C.bool:
        raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
    _check_dx(step, "trapezoid")
    return (y.sum(dim) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * step


@composite(method=False)
def trapz(y: Tensor, x: Optional[Tensor] = None, *, dx: Optional[float] = None,
          dim: int = -1) -> Tensor:
    """trapezoid under its older name."""
    return trapezoid(y, x, dx=dx, dim=dim)


@composite(method=False)
def cumulative_trapezoid(y: Tensor, x: Optional[Union[Tensor, float]] = None, *,
                         dx: Optional[float] = None, dim: int = -1) -> Tensor:
    """The running integral of y along dim by the trapezoidal rule (one
    fewer element than y along dim)."""
    dim = _wrap(dim, y.dim())
    left, right = _sides(y, dim) if y.shape[dim] > 0 else (y, y)
    if isinstance(x, Tensor):
        if y.dtype == _C.bool or x.dtype == _C.bool:
            raise RuntimeError("cumulative_trapezoid: received a bool input for `x` or `y`, but "
                               "bool is not supported")
        if y.shape[dim] == 0:
            return y.clone()
        return (_spacing(x, y, dim, "cumulative_trapezoid") * (left + right)).cumsum(dim) / 2.0
    step = 1 if dx is None and x is None else dx if dx is not None else x
    if y.dtype == _C.bool:
        raise RuntimeError("cumulative_trapezoid: received a bool input for `y`, but bool is "
                           "not supported")
    _check_dx(step, "cumulative_trapezoid")
    if y.shape[dim] == 0:
        return y.clone()
    return (step / 2.0 * (left + right)).cumsum(dim)


def _gradient_dims(input, spacing_len, dim, edge_order):
    """The dims gradient works along, after torch's checks in torch's order."""
    listed = dim is not None and not isinstance(dim, numbers.Integral)
    dims = list(dim) if listed else [dim] if dim is not None else list(range(input.dim()))
    if spacing_len is not None and dim is None and spacing_len != input.dim():
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a "
                           f"list of length equal to 'self.dim() = {input.dim()}', since dim "
                           f"argument was not given, but got a list of length {spacing_len}")
    if spacing_len is not None and dim is not None and spacing_len != len(dims):
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's "
                           "spacing and dim arguments to have the same length, but got a "
                           f"spacing argument of length {spacing_len} and a dim argument of "
                           f"length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    wrapped = [_wrap(d, input.dim()) for d in dims]
    if dim is not None:
        for d in wrapped:
            if wrapped.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    for d in wrapped:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    return wrapped


def _slice(x, d, start, stop=None):
    n = x.shape[d]
    start = start % n if start < 0 else start
    stop = n if stop is None else stop % n if stop < 0 else stop
    return x.narrow(d, start, stop - start)


def _gradient_uniform(f, d, h, edge_order):
    """Central differences at spacing h, one-sided ones of order edge_order
    at the ends."""
    center = (_slice(f, d, 2) - _slice(f, d, 0, -2)) / h
    if edge_order == 1:
        first = (_slice(f, d, 1, 2) - _slice(f, d, 0, 1)) / h
        last = (_slice(f, d, -1) - _slice(f, d, -2, -1)) / h
    else:
        first = (-1.5 * _slice(f, d, 0, 1) + 2 * _slice(f, d, 1, 2)
                 - 0.5 * _slice(f, d, 2, 3)) / h
        last = (0.5 * _slice(f, d, -3, -2) - 2 * _slice(f, d, -2, -1)
                + 1.5 * _slice(f, d, -1)) / h
    return _f["cat"]([first, center / 2, last], d)


def _gradient_coordinates(f, d, x, edge_order):
    """Second-order differences over the sample coordinates x (numpy's
    weights for uneven steps)."""
    if x.dim() != 1:
        raise RuntimeError("torch.gradient expected each element of spacing to have one "
                           f"dimension, but got an element with {x.dim()} dimensions!")
    shape = [1] * f.dim()
    shape[d] = -1
    dx = x.diff()
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _slice(f, d, 0, -2) + b * _slice(f, d, 1, -1) + c * _slice(f, d, 2)
    if edge_order == 1:
        first = (_slice(f, d, 1, 2) - _slice(f, d, 0, 1)) / dx[0]
        last = (_slice(f, d, -1) - _slice(f, d, -2, -1)) / dx[-1]
    else:
        h0, h1 = dx[0], dx[1]
        first = (-(2.0 * h0 + h1) / (h0 * (h0 + h1)) * _slice(f, d, 0, 1)
                 + (h0 + h1) / (h0 * h1) * _slice(f, d, 1, 2)
                 + (-h0) / (h1 * (h0 + h1)) * _slice(f, d, 2, 3))
        h0, h1 = dx[-1], dx[-2]
        last = (h0 / (h1 * (h0 + h1)) * _slice(f, d, -3, -2)
                - (h0 + h1) / (h0 * h1) * _slice(f, d, -2, -1)
                + (2 * h0 + h1) / (h0 * (h0 + h1)) * _slice(f, d, -1))
    return _f["cat"]([first, center, last], d)


@composite(method=False)
def gradient(input: Tensor, *, spacing: Union[float, list, tuple] = 1,
             dim: Optional[Union[int, list, tuple]] = None, edge_order: int = 1) -> tuple:
    """Estimates the derivative of input along each of dims by central
    differences (one-sided at the ends, of order edge_order), at a constant
    spacing per dim or over given sample coordinates."""
    if input.dtype == _C.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if spacing is None:
        spacing = 1
    scalar = isinstance(spacing, numbers.Number)
    given = spacing if not scalar else None
    dims = _gradient_dims(input, None if given is None else len(given), dim, edge_order)
    steps = [spacing] * len(dims) if scalar else list(given)
    return tuple(_gradient_coordinates(input, d, h, edge_order) if isinstance(h, Tensor)
                 else _gradient_uniform(input, d, h, edge_order) for d, h in zip(dims, steps))
