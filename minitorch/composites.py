"""Functions (and the Tensor methods torch has for them) written in Python
over differentiable ops: small conveniences whose gradients follow from the
ops they are built of. Each dispatches __torch_function__ as a C op does."""
import itertools
import warnings
from typing import Any, Optional, Sequence, Tuple, Union

from . import _C
from ._tensor import Tensor
from .broadcasting import broadcast_shapes
from ._out_param import write_out
from .overrides import composite

__all__ = ["ravel", "broadcast_to", "trace", "nansum", "nanmean", "take_along_dim",
           "atleast_1d", "atleast_2d", "atleast_3d", "meshgrid", "diff", "fliplr", "flipud",
           "logit", "cdist", "quantile", "nanquantile", "combinations"]

_f = _C._functions
_REAL_FLOATS = (_C.float16, _C.bfloat16, _C.float32, _C.float64)
# the dtypes torch holds and moves but computes little on
_UNSIGNED = (_C.uint16, _C.uint32, _C.uint64)


def _no_kernel(kernel: str, dtype: Any) -> NotImplementedError:
    """torch's refusal of a dtype its kernel's dispatch has no entry for."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype._scalar_name}'")


def _require_real_float(kernel: str, input: Tensor) -> None:
    """Refuses, as torch's kernels dispatched over the floating types only
    do, integer, bool and complex input."""
    if input.dtype not in _REAL_FLOATS:
        raise _no_kernel(kernel, input.dtype)


@composite()
def ravel(input: Tensor) -> Tensor:
    """input flattened (a view when possible)."""
    return input.reshape(-1)


@composite()
def broadcast_to(input: Tensor, size: Sequence[int]) -> Tensor:
    """input expanded to size."""
    return input.expand(size)


@composite()
def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix."""
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    # torch's trace has no kernel for them, though its sum has
    if input.dtype == _C.bool or input.dtype in _UNSIGNED:
        raise _no_kernel("trace", input.dtype)
    return input.diagonal().sum()


@composite()
def nansum(input: Tensor, dim: Union[int, Sequence[int], None] = None, keepdim: bool = False,
           *, dtype: Optional[_C.dtype] = None, out: Optional[Tensor] = None) -> Tensor:
    """sum with NaN counted as zero."""
    if input.is_complex():
        raise RuntimeError("nansum on CPU does not support complex inputs")
    clean = _f["where"](input.isnan(), 0.0, input) if input.is_floating_point() else input
    summed = clean.sum(dim, keepdim, dtype=dtype) if dim is not None else clean.sum(dtype=dtype)
    return write_out(out, summed)


@composite()
def nanmean(input: Tensor, dim: Union[int, Sequence[int], None] = None, keepdim: bool = False,
            *, dtype: Optional[_C.dtype] = None, out: Optional[Tensor] = None) -> Tensor:
    """mean over the elements that are not NaN."""
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {input.dtype._scalar_name}")
    kept = (~input.isnan()).sum(dim, keepdim) if dim is not None else (~input.isnan()).sum()
    return write_out(out, nansum(input, dim, keepdim, dtype=dtype) / kept)


@composite()
def take_along_dim(input: Tensor, indices: Tensor, dim: Optional[int] = None, *,
                   out: Optional[Tensor] = None) -> Tensor:
    """input's values at indices along dim (of the flattened input without dim).
    Along a dim, torch takes the indices modulo its size (negative ones count
    from the end, none is out of range); the flattened form checks them."""
    if dim is None:
        return write_out(out, input.reshape(-1).gather(0, indices.reshape(-1)))
    if input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.dim()} dimensions for input, "
                           f"and {indices.dim()} dimensions for indices")
    if indices.dtype != _C.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype._scalar_name}")
    d = dim % input.dim()
    if input.shape[d]:
        indices = indices.remainder(input.shape[d])
    shape_in, shape_ix = list(input.shape), list(indices.shape)
    shape_in[d] = shape_ix[d] = 1
    common = list(broadcast_shapes(shape_in, shape_ix))
    want_in, want_ix = list(common), list(common)
    want_in[d], want_ix[d] = input.shape[d], indices.shape[d]
    return write_out(out, input.expand(want_in).gather(d, indices.expand(want_ix)))


def _atleast(nd, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(_atleast(nd, tuple(tensors[0])))
    out = []
    for t in tensors:
        if t.dim() < nd:
            # [n] -> [1, n] -> [1, n, 1], as torch pads a vector
            shape = {0: [1] * nd, 1: [1, t.numel()] if nd == 2 else [1, t.numel(), 1]}.get(
                t.dim(), [*t.shape, 1])
            t = t.reshape(shape)
        out.append(t)
    return out[0] if len(out) == 1 else tuple(out)


@composite(method=False)
def atleast_1d(*tensors: Any) -> Any:
    """Each tensor seen with at least one dim."""
    return _atleast(1, tensors)


@composite(method=False)
def atleast_2d(*tensors: Any) -> Any:
    """Each tensor seen with at least two dims."""
    return _atleast(2, tensors)


@composite(method=False)
def atleast_3d(*tensors: Any) -> Any:
    """Each tensor seen with at least three dims."""
    return _atleast(3, tensors)


@composite(method=False)
def meshgrid(*tensors: Any, indexing: Optional[str] = None) -> Tuple[Tensor, ...]:
    """Coordinate grids from 1-D tensors ('ij': first tensor along dim 0)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
    flat = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(flat) >= 2
    if swap:
        flat[0], flat[1] = flat[1], flat[0]
    sizes = [t.numel() for t in flat]
    grids = []
    for k, t in enumerate(flat):
        shape = [1] * len(flat)
        shape[k] = sizes[k]
        grids.append(t.reshape(shape).expand(sizes))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@composite()
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Optional[Tensor] = None,
         append: Optional[Tensor] = None, *, out: Optional[Tensor] = None) -> Tensor:
    """The n-th forward difference along dim."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    parts = [p for p in (prepend, input, append) if p is not None]
    x = _f["cat"](parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[dim]
        if length == 0:
            break
        hi, lo = x.narrow(dim, 1, length - 1), x.narrow(dim, 0, length - 1)
        x = _f["logical_xor"](hi, lo) if x.dtype == _C.bool else hi - lo
    return write_out(out, x)


@composite()
def fliplr(input: Tensor) -> Tensor:
    """input with its columns (dim 1) reversed."""
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


@composite()
def flipud(input: Tensor) -> Tensor:
    """input with its rows (dim 0) reversed."""
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


@composite()
def logit(input: Tensor, eps: Optional[float] = None, *,
          out: Optional[Tensor] = None) -> Tensor:
    """log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given."""
    if input.is_complex():
        raise NotImplementedError(f"\"logit_cpu\" not implemented for "
                                  f"'{input.dtype._scalar_name}'")
    p = input if input.is_floating_point() else input.to(_C.get_default_dtype())
    p = p if eps is None else p.clamp(eps, 1 - eps)
    return write_out(out, (p / (1 - p)).log())


@composite(method=False)
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The p-norm distance between each row of x1 and each row of x2 (batched)."""
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    for arg, x in (("X1", x1), ("X2", x2)):
        if not x.is_floating_point():
            raise RuntimeError(f"cdist only supports floating-point dtypes, {arg} got: "
                               f"{x.dtype._scalar_name}")
    euclid_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary"
        and (x1.shape[-2] > 25 or x2.shape[-2] > 25)))
    if euclid_mm:
        # torch computes these through matmul, which takes every float type
        # but refuses mixed ones in its words
        if x2.dtype != x1.dtype:
            x1.matmul(x2.mT)
    else:
        # torch's kernel has float and double entries and reads x2 as x1's type
        if x1.dtype in (_C.float16, _C.bfloat16):
            raise _no_kernel("cdist", x1.dtype)
        if x2.dtype != x1.dtype:
            raise RuntimeError(f"expected scalar type {x1.dtype._scalar_name} but found "
                               f"{x2.dtype._scalar_name}")
    return (x1.unsqueeze(-2) - x2.unsqueeze(-3)).norm(p, -1)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    """torch's quantile_compute: the sorted line gathered at rank q * (n - 1)
    (n counting only the values that are not NaN when ignore_nan; otherwise a
    line with NaN gives NaN), interpolated between its neighbours."""
    if not isinstance(q, Tensor) and not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if isinstance(q, Tensor) and q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input.dtype not in (_C.float32, _C.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if not isinstance(q, Tensor):
        q = _f["tensor"](float(q), dtype=input.dtype)
    if q.dtype != input.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    # the result's shape without q's dim: input's without dim (all ones with
    # keepdim, or nothing, when dim is None)
    if dim is not None:
        input.transpose(dim, dim)  # raises torch's IndexError for a dim out of range
        dim = dim % input.dim() if input.dim() else 0
        shape = list(input.shape)
        if input.dim():
            if keepdim:
                shape[dim] = 1
            else:
                del shape[dim]
    else:
        shape = [1] * input.dim() if keepdim else []
    if not bool(((q >= 0) & (q <= 1)).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is None:
        line = input.reshape(-1)
    elif input.dim() == 0:
        line = input.reshape(1)
    else:
        line = input.unsqueeze(-1).transpose(dim, -1)
    srt = line.sort().values.reshape(shape + [line.shape[-1]])
    qs = q.reshape(-1)
    if ignore_nan:
        ranks = qs * ((~srt.isnan()).sum(-1, True) - 1)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:
        last = srt.shape[-1] - 1
        ranks = (qs * last).masked_fill(srt.isnan().any(-1, True), last)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.long()
    values = srt.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = _f["full_like"](ranks, 0.5) if interpolation == "midpoint" else ranks - below
        above = srt.gather(-1, ranks.ceil().long())
        values = values.lerp(above, weights)
    if q.dim() == 0:
        return values.squeeze(-1)
    return values.unsqueeze(0).transpose(0, -1).squeeze(-1)


@composite()
def quantile(input: Tensor, q: Union[float, Tensor], dim: Optional[int] = None,
             keepdim: bool = False, *, interpolation: str = "linear",
             out: Optional[Tensor] = None) -> Tensor:
    """The q-th quantiles of each row of input along dim (of all elements when dim is None)."""
    return write_out(out, _quantile(input, q, dim, keepdim, interpolation, False))


@composite()
def nanquantile(input: Tensor, q: Union[float, Tensor], dim: Optional[int] = None,
                keepdim: bool = False, *, interpolation: str = "linear",
                out: Optional[Tensor] = None) -> Tensor:
    """quantile over the values that are not NaN; a row of only NaN gives NaN."""
    return write_out(out, _quantile(input, q, dim, keepdim, interpolation, True))


# other: Any, as overridable's check of a Tensor parameter would count self in
# the position its message names
@composite(function=False)
def type_as(self, other: Any) -> Tensor:
    """self converted to other's dtype."""
    return self.to(other.dtype)


@composite(function=False)
def nelement(self) -> int:
    """The number of elements of self (numel's legacy name)."""
    return self.numel()


@composite(function=False)
def cpu(self, memory_format: Any = None) -> Tensor:
    """self: minitorch tensors live on the CPU."""
    return self


@composite(function=False)
def cuda(self, device: Any = None, non_blocking: bool = False,
         memory_format: Any = None) -> Tensor:
    """Raises AssertionError: minitorch runs on the CPU only."""
    raise AssertionError("Torch not compiled with CUDA enabled")


@composite(method=False)
def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-r combinations of the elements of the 1-D input, one per row
    (as itertools.combinations, or combinations_with_replacement)."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _f["empty"]([0], dtype=input.dtype)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    rows = [i for row in pick(range(input.shape[0]), r) for i in row]
    index = _f["tensor"](rows, dtype=_C.int64)
    return input.index_select(0, index).reshape(-1, r)
