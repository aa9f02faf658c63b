"""minitorch.fft: torch.fft's functions over the three transform rows of
csrc/ops/fft.def (_fft_c2c, _fft_r2c, _fft_c2r), which carry the gradients.
This module does what torch's SpectralOps does before them: the n/s/dim/norm
arguments, promotion of integer and real inputs, zero-padding or trimming
each transformed dim to its signal length, and out=."""
import warnings
from typing import Optional, Sequence

from . import _C
from ._out_param import write_out as _write_out
from ._tensor import Tensor
from .overrides import overridable as _overridable

_mt = _C._functions

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2


def _norm_mode(norm, forward: bool) -> int:
    """aten's fft_norm_mode: which scaling a transform in this direction takes."""
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(name: str, x: Tensor, require_complex: bool = False) -> Tensor:
    """torch's promote_tensor_fft: integers and bools to the default dtype,
    reals to complex where the transform needs it."""
    if x.is_complex():
        return x
    # float32 and float64, the common case, skip the imports
    if not (x.dtype.is_floating_point and x.dtype.itemsize > 2):
        from . import get_default_dtype, float16, bfloat16
        if x.dtype in (float16, bfloat16):
            raise RuntimeError(f"Unsupported dtype {_type_name(x.dtype)}")
        if not x.is_floating_point():
            x = x.to(get_default_dtype())
    if require_complex:
        x = _mt["complex"](x, _mt["zeros_like"](x))
    return x


def _type_name(dtype) -> str:
    return dtype._scalar_name


def _wrap(dim: int, ndim: int) -> int:
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {dim})")
    return dim % ndim


def _check_n(n: int) -> None:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _resize(x: Tensor, dims: Sequence[int], sizes: Sequence[int]) -> Tensor:
    """x trimmed or zero-padded at the end of each dim to its size."""
    shape = x.shape
    if all(shape[d] == n for d, n in zip(dims, sizes)):
        return x
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if n < have:
            x = x.narrow(d, 0, n)
        elif n > have:
            shape = list(x.shape)
            shape[d] = n - have
            x = _mt["cat"]([x, x.new_zeros(shape)], d)
    return x


def _finish(name: str, out: Optional[Tensor], result: Tensor) -> Tensor:
    if out is None:
        return result
    if result.is_complex() and not out.is_complex():
        raise RuntimeError(f"{name} expects a complex output tensor, but got "
                           f"{_type_name(out.dtype)}")
    return _write_out(out, result)


def _one_dim(name: str, x: Tensor, n, dim: int):
    d = _wrap(dim, x.dim())
    size = x.shape[d] if n is None else n
    _check_n(size)
    return d, size


def _shape_and_dims(x: Tensor, s, dim):
    """torch's canonicalize_fft_shape_and_dim_args: the transformed dims
    (wrapped, unique) and each one's signal length (-1 keeps the input's)."""
    nd = x.dim()
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        dims = [_wrap(d, nd) for d in dims]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = [s] if isinstance(s, int) else list(s)
        if dim is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > nd:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {nd} "
                               f"dimensions.")
        if dim is None:
            dims = list(range(nd - len(s), nd))
        sizes = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    else:
        if dim is None:
            dims = list(range(nd))
        sizes = [x.shape[d] for d in dims]
    for n in sizes:
        _check_n(n)
    return dims, sizes


def _c2c_or_r2c(name, x, dims, sizes, norm, forward, out):
    x = _promote(name, x)
    x = _resize(x, dims, sizes)
    mode = _norm_mode(norm, forward)
    if not dims:
        result = x if x.is_complex() else _promote(name, x, require_complex=True)
        return _finish(name, out, result.clone())
    if x.is_complex():
        return _finish(name, out, _mt["_fft_c2c"](x, dims, mode, forward))
    r = _mt["_fft_r2c"](x, dims, mode, False)
    if forward:
        return _finish(name, out, r)
    # torch's one-dimensional ifft of a real signal is a conjugate view; its
    # n-dimensional ones transform a complex copy, so their results are not
    return _finish(name, out, r.conj() if name == "ifft" else r.conj().resolve_conj())


@_overridable
def fft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None, *,
        out: Optional[Tensor] = None) -> Tensor:
    """The one-dimensional discrete Fourier transform of input along dim."""
    input = _promote("fft", input)
    d, size = _one_dim("fft", input, n, dim)
    return _c2c_or_r2c("fft", input, [d], [size], norm, True, out)


@_overridable
def ifft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None, *,
         out: Optional[Tensor] = None) -> Tensor:
    """The one-dimensional inverse discrete Fourier transform of input along dim."""
    input = _promote("ifft", input)
    d, size = _one_dim("ifft", input, n, dim)
    return _c2c_or_r2c("ifft", input, [d], [size], norm, False, out)


@_overridable
def fftn(input: Tensor, s=None, dim=None, norm: Optional[str] = None, *,
         out: Optional[Tensor] = None) -> Tensor:
    """The N-dimensional discrete Fourier transform of input over dim (all dims by default)."""
    dims, sizes = _shape_and_dims(input, s, dim)
    return _c2c_or_r2c("fftn", input, dims, sizes, norm, True, out)


@_overridable
def ifftn(input: Tensor, s=None, dim=None, norm: Optional[str] = None, *,
          out: Optional[Tensor] = None) -> Tensor:
    """The N-dimensional inverse discrete Fourier transform of input over dim."""
    dims, sizes = _shape_and_dims(input, s, dim)
    return _c2c_or_r2c("ifftn", input, dims, sizes, norm, False, out)


@_overridable
def fft2(input: Tensor, s=None, dim=(-2, -1), norm: Optional[str] = None, *,
         out: Optional[Tensor] = None) -> Tensor:
    """The two-dimensional discrete Fourier transform of input over dim."""
    dims, sizes = _shape_and_dims(input, s, dim)
    return _c2c_or_r2c("fft2", input, dims, sizes, norm, True, out)


@_overridable
def ifft2(input: Tensor, s=None, dim=(-2, -1), norm: Optional[str] = None, *,
          out: Optional[Tensor] = None) -> Tensor:
    """The two-dimensional inverse discrete Fourier transform of input over dim."""
    dims, sizes = _shape_and_dims(input, s, dim)
    return _c2c_or_r2c("ifft2", input, dims, sizes, norm, False, out)


def _check_real(name: str, x: Tensor) -> None:
    """The r2c transforms' refusal of complex input, which torch makes before
    any other check."""
    if x.is_complex():
        if name in ("ihfft2", "ihfftn"):
            raise RuntimeError(f"Only supports floating-point dtypes, but found: "
                               f"{_type_name(x.dtype)}")
        kind = "real-valued" if name in ("rfft2", "rfftn") else "real"
        raise RuntimeError(f"{name.replace('rfft2', 'rfftn')} expects a {kind} input tensor, "
                           f"but got {_type_name(x.dtype)}")


def _r2c(name, x, dims, sizes, norm, forward, out):
    """rfft(n) (forward) and ihfft(n) (conjugated inverse): the half spectrum
    of a real signal."""
    _check_real(name, x)
    x = _promote(name, x)
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")
    x = _resize(x, dims, sizes)
    mode = _norm_mode(norm, forward)
    if forward:
        return _finish(name, out, _mt["_fft_r2c"](x, dims, mode, True))
    r = _mt["_fft_r2c"](x, dims[-1:], mode, True).conj()
    if len(dims) > 1:
        r = _mt["_fft_c2c"](r, dims[:-1], mode, False)
    return _finish(name, out, r)


@_overridable
def rfft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None, *,
         out: Optional[Tensor] = None) -> Tensor:
    """The discrete Fourier transform of real input along dim: its non-negative frequencies."""
    _check_real("rfft", input)
    input = _promote("rfft", input)
    d, size = _one_dim("rfft", input, n, dim)
    return _r2c("rfft", input, [d], [size], norm, True, out)


@_overridable
def ihfft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None, *,
          out: Optional[Tensor] = None) -> Tensor:
    """The inverse of hfft: the non-negative frequencies of the inverse transform of real input."""
    _check_real("ihfft", input)
    input = _promote("ihfft", input)
    d, size = _one_dim("ihfft", input, n, dim)
    return _r2c("ihfft", input, [d], [size], norm, False, out)


@_overridable
def rfftn(input: Tensor, s=None, dim=None, norm: Optional[str] = None, *,
          out: Optional[Tensor] = None) -> Tensor:
    """The N-dimensional transform of real input, halved along the last transformed dim."""
    _check_real("rfftn", input)
    dims, sizes = _shape_and_dims(input, s, dim)
    return _r2c("rfftn", input, dims, sizes, norm, True, out)


@_overridable
def rfft2(input: Tensor, s=None, dim=(-2, -1), norm: Optional[str] = None, *,
          out: Optional[Tensor] = None) -> Tensor:
    """The two-dimensional transform of real input, halved along the last dim of dim."""
    _check_real("rfft2", input)
    dims, sizes = _shape_and_dims(input, s, dim)
    return _r2c("rfft2", input, dims, sizes, norm, True, out)


@_overridable
def ihfftn(input: Tensor, s=None, dim=None, norm: Optional[str] = None, *,
           out: Optional[Tensor] = None) -> Tensor:
    """The N-dimensional inverse of hfftn: a half spectrum from real input."""
    dims, sizes = _shape_and_dims(input, s, dim)
    return _r2c("ihfftn", input, dims, sizes, norm, False, out)


@_overridable
def ihfft2(input: Tensor, s=None, dim=(-2, -1), norm: Optional[str] = None, *,
           out: Optional[Tensor] = None) -> Tensor:
    """The two-dimensional inverse of hfft2."""
    dims, sizes = _shape_and_dims(input, s, dim)
    return _r2c("ihfft2", input, dims, sizes, norm, False, out)


def _c2r_shape(name, x, s, dim):
    """torch's canonicalize_fft_c2r_shape_and_dim_args: the last dim's output
    length defaults to 2 * (size - 1), and its input is cut to half of it."""
    dims, sizes = _shape_and_dims(x, s, dim)
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")
    given = s is not None and (s if isinstance(s, int) else list(s)[-1]) != -1
    last = sizes[-1] if given else 2 * (x.shape[dims[-1]] - 1)
    _check_n(last)
    sizes[-1] = last // 2 + 1
    return dims, sizes, last


def _c2r_one_dim(name, x, n, dim):
    """irfft's and hfft's dim and output length n (2 * (size - 1) by
    default), checked as torch's one-dimensional path does: the dtype first,
    then n itself, so an empty input reports -2."""
    x = _promote(name, x, require_complex=True)
    d = _wrap(dim, x.dim())
    last = 2 * (x.shape[d] - 1) if n is None else n
    _check_n(last)
    return [d], [last // 2 + 1], last


def _c2r(name, x, dims, sizes, last, norm, forward, out):
    """irfft(n) (inverse) and hfft(n) (forward, of the conjugate): a real signal
    from its half spectrum."""
    x = _resize(_promote(name, x, require_complex=True), dims, sizes)
    mode = _norm_mode(norm, forward)
    if forward:
        if len(dims) > 1:
            x = _mt["_fft_c2c"](x, dims[:-1], mode, True)
        return _finish(name, out, _mt["_fft_c2r"](x.conj(), dims[-1:], mode, last))
    return _finish(name, out, _mt["_fft_c2r"](x, dims, mode, last))


@_overridable
def irfft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None, *,
          out: Optional[Tensor] = None) -> Tensor:
    """The inverse of rfft: the real signal of n points (2 * (size - 1) by default) along dim."""
    dims, sizes, last = _c2r_one_dim("irfft", input, n, dim)
    return _c2r("irfft", input, dims, sizes, last, norm, False, out)


@_overridable
def hfft(input: Tensor, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None, *,
         out: Optional[Tensor] = None) -> Tensor:
    """The transform of a Hermitian-symmetric signal given by its first half: a real spectrum."""
    dims, sizes, last = _c2r_one_dim("hfft", input, n, dim)
    return _c2r("hfft", input, dims, sizes, last, norm, True, out)


@_overridable
def irfftn(input: Tensor, s=None, dim=None, norm: Optional[str] = None, *,
           out: Optional[Tensor] = None) -> Tensor:
    """The inverse of rfftn."""
    dims, sizes, last = _c2r_shape("irfftn", input, s, dim)
    return _c2r("irfftn", input, dims, sizes, last, norm, False, out)


@_overridable
def irfft2(input: Tensor, s=None, dim=(-2, -1), norm: Optional[str] = None, *,
           out: Optional[Tensor] = None) -> Tensor:
    """The inverse of rfft2."""
    dims, sizes, last = _c2r_shape("irfft2", input, s, dim)
    return _c2r("irfft2", input, dims, sizes, last, norm, False, out)


@_overridable
def hfftn(input: Tensor, s=None, dim=None, norm: Optional[str] = None, *,
          out: Optional[Tensor] = None) -> Tensor:
    """The N-dimensional hfft: a real spectrum of a Hermitian signal given by its half."""
    dims, sizes, last = _c2r_shape("hfftn", input, s, dim)
    return _c2r("hfftn", input, dims, sizes, last, norm, True, out)


@_overridable
def hfft2(input: Tensor, s=None, dim=(-2, -1), norm: Optional[str] = None, *,
          out: Optional[Tensor] = None) -> Tensor:
    """The two-dimensional hfft."""
    dims, sizes, last = _c2r_shape("hfft2", input, s, dim)
    return _c2r("hfft2", input, dims, sizes, last, norm, True, out)


def _freq_dtype(name, dtype):
    from . import get_default_dtype
    dtype = get_default_dtype() if dtype is None else dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    return dtype


def _freq_out(out: Optional[Tensor], r: Tensor) -> Tensor:
    """out= of the frequency helpers, which torch fills through arange's out:
    an out holding as many elements keeps its shape, any other is resized to
    1-D, with arange's warning when it held elements."""
    if out is None:
        return r
    if out.numel() != r.numel():
        if out.numel():
            warnings.warn(f"The number of elements in the out tensor of shape {list(out.shape)} is "
                          f"{out.numel()} which does not match the computed number of elements "
                          f"{r.numel()}. Note that this may occur as a result of rounding error. "
                          f"The out tensor will be resized to a tensor of shape ({r.numel()},).",
                          UserWarning, stacklevel=4)
        out.resize_(r.shape)
    return _write_out(out, r.reshape(out.shape))


@_overridable
def fftfreq(n: int, d: float = 1.0, *, out: Optional[Tensor] = None, dtype=None, layout=None,
            device=None, requires_grad: bool = False) -> Tensor:
    """The sample frequencies of fft(n points spaced d apart): 0, 1, ..., -(n // 2), ..., -1
    over d * n."""
    dtype = _freq_dtype("fftfreq", dtype if out is None or dtype is not None else out.dtype)
    k = _mt["arange"](n, dtype=dtype, device=device)
    if n:
        k = _mt["cat"]([k[:(n - 1) // 2 + 1], k[(n - 1) // 2 + 1:] - n])
    r = k.mul_(1.0 / (n * d)) if n else k
    r = _freq_out(out, r)
    return r.requires_grad_(requires_grad) if requires_grad else r


@_overridable
def rfftfreq(n: int, d: float = 1.0, *, out: Optional[Tensor] = None, dtype=None, layout=None,
             device=None, requires_grad: bool = False) -> Tensor:
    """The sample frequencies of rfft(n points spaced d apart): 0 .. n // 2 over d * n."""
    dtype = _freq_dtype("rfftfreq", dtype if out is None or dtype is not None else out.dtype)
    k = _mt["arange"](n // 2 + 1, dtype=dtype, device=device)
    r = _freq_out(out, k.mul_(1.0 / (n * d)))
    return r.requires_grad_(requires_grad) if requires_grad else r


def _shift(x: Tensor, dim, inverse: bool) -> Tensor:
    dims = list(range(x.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [_wrap(d, x.dim()) for d in dims]
    shifts = [(x.shape[d] + inverse) // 2 for d in dims]
    return x.roll(shifts, dims) if dims else x.clone()


@_overridable
def fftshift(input: Tensor, dim=None) -> Tensor:
    """input rolled so the zero frequency sits at the centre of each dim of dim (all by
    default)."""
    return _shift(input, dim, False)


@_overridable
def ifftshift(input: Tensor, dim=None) -> Tensor:
    """The inverse of fftshift."""
    return _shift(input, dim, True)
