"""Search and count functions built on the C searchsorted and index_add_,
unique_consecutive on comparisons of neighbours, and argwhere /
nonzero_static on nonzero."""
import math
from typing import Any, Optional

from . import _C
from ._tensor import Tensor
from ._out_param import write_out
from .composites import _UNSIGNED, _no_kernel
from .overrides import composite

__all__ = ["isin", "bincount", "histc", "unique_consecutive", "argwhere", "nonzero_static"]

_f = _C._functions


@composite(method=False)
def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False, out: Optional[Tensor] = None) -> Tensor:
    """Tests if each element of elements is in test_elements. Returns a
    boolean tensor of the same shape as elements that is True for elements in
    test_elements and False otherwise."""
    if not isinstance(elements, Tensor):
        elements = _f["tensor"](elements)
    if not isinstance(test_elements, Tensor):
        test_elements = _f["tensor"](test_elements)
    if elements.dtype in _UNSIGNED:
        # torch's isin has no kernel for them, though its sort has
        raise _no_kernel("isin_default_cpu", elements.dtype)
    for t in (elements, test_elements):
        if t.dtype == _C.bool or t.is_complex():
            raise RuntimeError(f"Unsupported input type encountered for isin(): "
                               f"{t.dtype._scalar_name}")
    # NaN matches nothing, and left in it would break the binary search's order
    pool = test_elements.reshape(-1).sort()[0]
    pool = pool.masked_select(pool == pool)
    if pool.numel() == 0:
        found = _f["zeros"](list(elements.shape), dtype=_C.bool)
    else:
        at = _f["searchsorted"](pool, elements).clamp(max=pool.numel() - 1)
        found = pool.take(at) == elements
    return write_out(out, ~found if invert else found)


@composite()
def bincount(input: Tensor, weights: Optional[Tensor] = None, minlength: int = 0) -> Tensor:
    """Count the frequency of each value in an array of non-negative ints."""
    if input.dtype == _C.bool or input.dtype in _UNSIGNED or input.is_floating_point():
        raise _no_kernel("bincount_cpu", input.dtype)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.dim() != 1 or (input.numel() and input.min().item() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    size = max(minlength, input.max().item() + 1 if input.numel() else 0)
    if weights is None:
        counts, adds = _f["zeros"]([size], dtype=_C.int64), _f["ones_like"](input, dtype=_C.int64)
    else:
        dtype = _C.float32 if weights.dtype == _C.float32 else _C.float64
        counts, adds = _f["zeros"]([size], dtype=dtype), weights.to(dtype)
    return counts.index_add_(0, input.to(_C.int64), adds)


@composite()
def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0, *,
          out: Optional[Tensor] = None) -> Tensor:
    """Computes the histogram of a tensor. The elements are sorted into equal
    width bins between min and max. If min and max are both zero, the minimum
    and maximum values of the data are used."""
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and (input.is_complex() or input.dtype in _UNSIGNED):
        # torch takes the data's extent with aminmax, which has no entry for these
        raise _no_kernel("aminmax_cpu", input.dtype)
    if lo == hi and input.numel():
        lo, hi = input.min().item(), input.max().item()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not input.is_floating_point():
        # torch's bool and unsigned input fail in the linspace of its edges first
        edges_fail = input.dtype == _C.bool or input.dtype in _UNSIGNED
        raise _no_kernel("linspace_cpu" if edges_fail else "histogram_cpu", input.dtype)
    x = input.reshape(-1)
    inside = (x >= lo) & (x <= hi)
    # computed in input's dtype as torch does, so edge elements land in the same bin
    pos = ((x - lo) / (hi - lo) * bins).to(_C.int64).clamp(max=bins - 1)
    counts = _f["zeros"]([bins], dtype=input.dtype)
    ones = _f["ones_like"](x).masked_select(inside)
    return write_out(out, counts.index_add_(0, pos.masked_select(inside), ones))


@composite(python_method=True)
def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: Optional[int] = None) -> Any:
    """Keeps the first of each run of equal consecutive elements (or slices
    along dim); optionally also returns each input's run index (inverse) and
    the run lengths (counts)."""
    if dim is None:
        flat = input.reshape(-1)
        rows = flat
        inverse_shape = input.shape
    else:
        if input.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        input.size(dim)  # torch's IndexError for a dim out of range
        dim = dim % input.ndim
        if input.numel() == 0 and input.size(dim) != 0:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, "
                               "so unique cannot be applied")
        flat = input.movedim(dim, 0)
        rows = flat.reshape(flat.size(0), math.prod(flat.shape[1:]))
        inverse_shape = (input.size(dim),)
    n = rows.size(0)
    starts = _f["ones"](n, dtype=_C.bool)
    if n > 1:
        differ = rows[1:] != rows[:-1]
        starts[1:] = differ if differ.ndim == 1 else differ.any(1)
    output = flat[starts]
    if dim is not None:
        output = output.movedim(0, dim)
    elif input.ndim == 0:
        output = output.reshape(-1)
    result = [output]
    if return_inverse:
        result.append((starts.cumsum(0) - 1).reshape(inverse_shape))
    if return_counts:
        firsts = starts.nonzero().reshape(-1)
        ends = _f["cat"]([firsts[1:], _f["tensor"]([n], dtype=_C.int64)])
        result.append(ends - firsts)
    return result[0] if len(result) == 1 else tuple(result)


@composite()
def argwhere(input: Tensor) -> Tensor:
    """Returns a tensor containing the indices of all non-zero elements of
    input, one row per element."""
    return input.nonzero()


@composite()
def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """nonzero with an output of exactly size rows: the first size positions,
    or all of them followed by rows of fill_value."""
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = input.nonzero()
    if found.shape[0] >= size:
        return found[:size].clone()
    pad = _f["full"]([size - found.shape[0], found.shape[1]], fill_value, dtype=_C.int64)
    return _f["cat"]([found, pad])
