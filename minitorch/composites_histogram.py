"""torch.histogram and torch.histogramdd: bin edges from a count (evenly
spaced over range or the data's extent) or given as tensors; each point's
bin found by searchsorted per dimension (the last edge closing the last
bin), and the counts or weights summed into the flat bin with index_add_."""
import math
from typing import Any, List, Optional, Sequence

from . import _C
from ._tensor import Tensor
from .overrides import composite

__all__ = ["histogram", "histogramdd"]

_f = _C._functions


_HistogramResult = _C._return_type("histogram", ("hist", "bin_edges"))
_HistogramDDResult = _C._return_type("histogramdd", ("hist", "bin_edges"))


def _type_name(t: Tensor) -> str:
    return t.dtype._scalar_name


def _fmt(v: float) -> str:
    return f"{v:g}" if math.isfinite(v) else str(v)


def _edges(points: Tensor, bins: Any, bin_range: Optional[Sequence[float]],
           caller: str) -> List[Tensor]:
    """One 1-d edge tensor per column of points (an N x D tensor)."""
    d = points.shape[1]
    if isinstance(bins, Tensor):
        bins = [bins]
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor):
        edges = list(bins)
        for k, e in enumerate(edges):
            if e.dim() != 1:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, "
                                   f"but got {e.dim()} dimensions in the bins tensor for "
                                   f"dimension {k}")
            if e.numel() < 2:
                raise RuntimeError(f"{caller}: bins must be > 0, but got {e.numel() - 1} for "
                                   f"dimension {k}")
            if e.dtype != points.dtype:
                raise RuntimeError("torch.histogramdd: input tensor and bins tensors should "
                                   "have the same dtype, but got input with dtype "
                                   f"{_dtype_word(points)} and bins for dimension {k} with "
                                   f"dtype {_dtype_word(e)}")
        return edges
    counts = [int(bins)] * d if not isinstance(bins, (list, tuple)) else [int(b) for b in bins]
    for k, n in enumerate(counts):
        if n <= 0:
            raise RuntimeError(f"{caller}: bins must be > 0, but got {n} for dimension {k}")
    if bin_range is not None and len(bin_range) != 2 * d:
        raise RuntimeError(f"torch.histogramdd: for a {d}-dimensional histogram range should "
                           f"have {2 * d} elements, but got {len(bin_range)}")
    edges = []
    for k, n in enumerate(counts):
        if bin_range is not None:
            lo, hi = float(bin_range[2 * k]), float(bin_range[2 * k + 1])
        elif points.shape[0]:
            column = points[:, k]
            lo, hi = column.min().item(), column.max().item()
        else:
            lo, hi = 0.0, 1.0
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension {k}'s range [{_fmt(lo)}, "
                               f"{_fmt(hi)}] is not finite")
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                               f"{_fmt(lo)} max {_fmt(hi)} for dimension {k}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(_f["linspace"](lo, hi, n + 1, dtype=points.dtype))
    return edges


_C_TYPE_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half",
                 "bfloat16": "c10::BFloat16"}


def _dtype_word(t: Tensor) -> str:
    name = str(t.dtype).split(".")[-1]
    return _C_TYPE_NAMES.get(name, name)


def _bin_counts(points: Tensor, edges: List[Tensor], weight: Optional[Tensor],
                density: bool) -> Tensor:
    sizes = [e.numel() - 1 for e in edges]
    flat = _f["zeros"]([points.shape[0]], dtype=_C.int64)
    inside = _f["ones"]([points.shape[0]], dtype=_C.bool)
    for k, e in enumerate(edges):
        x = points[:, k].contiguous()
        at = _f["searchsorted"](e, x, right=True) - 1
        # the last edge belongs to the last bin
        at = at.masked_fill(x == e[-1], sizes[k] - 1)
        inside &= (x >= e[0]) & (x <= e[-1]) & (at >= 0) & (at < sizes[k])
        flat = flat * sizes[k] + at.clamp(0, sizes[k] - 1)
    adds = _f["ones"]([points.shape[0]], dtype=points.dtype) if weight is None else \
        weight.reshape(-1).to(points.dtype)
    total = math.prod(sizes)
    hist = _f["zeros"]([total], dtype=points.dtype)
    hist = hist.index_add_(0, flat.masked_select(inside), adds.masked_select(inside))
    hist = hist.reshape(sizes)
    if density:
        hist = hist / hist.sum()
        for k, e in enumerate(edges):
            shape = [1] * len(sizes)
            shape[k] = sizes[k]
            hist = hist / (e[1:] - e[:-1]).reshape(shape)
    return hist


def _check_input(input: Tensor, weight: Optional[Tensor], counted: bool) -> None:
    """counted: bins given as counts, whose edges torch computes in float
    and double only ("histogramdd"); given edges, its binning kernel
    ("histogram_cpu") takes float16 and bfloat16 too."""
    if not input.is_floating_point() or (counted and input.dtype in (_C.float16, _C.bfloat16)):
        kernel = "histogramdd" if counted else "histogram_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_name(input)}'")
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if weight is not None and list(weight.shape) != list(input.shape[:-1]):
        raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the "
                           "same shape as the input tensor excluding its innermost dimension, "
                           f"but got input with shape {list(input.shape)} and weight with "
                           f"shape {list(weight.shape)}")


_HISTOGRAM_FORMS = (
    " * (Tensor input, Tensor bins, *, Tensor weight = None, bool density = False, tuple of "
    "Tensors out = None)\n"
    " * (Tensor input, int bins = 100, *, tuple of floats range = None, Tensor weight = None, "
    "bool density = False, tuple of Tensors out = None)\n")
_HISTOGRAMDD_FORMS = "".join(
    f" * (Tensor input, {kind} bins, tuple of floats range = None, Tensor weight = None, bool "
    "density = False)\n" for kind in ("int", "tuple of ints", "tuple of Tensors"))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_bins(name: str, bins: Any, forms: str, sequences: bool) -> None:
    """bins as torch's argument parser takes it: an int, a tensor (histogram)
    or a sequence of ints or of tensors (histogramdd)."""
    ok = _is_int(bins) or (not sequences and isinstance(bins, Tensor))
    if sequences and isinstance(bins, (list, tuple)):
        ok = all(_is_int(b) for b in bins) or all(isinstance(b, Tensor) for b in bins)
    if not ok:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"{type(bins).__name__}), but expected one of:\n{forms}")


def _into(result: Tensor, out: Optional[Tensor]) -> Tensor:
    if out is None:
        return result
    if list(out.shape) != list(result.shape):
        out.resize_(result.shape)
    return out.copy_(result)


@composite()
def histogram(input: Tensor, bins: Any = 100, *, range: Optional[Sequence[float]] = None,
              weight: Optional[Tensor] = None, density: bool = False,
              out: Optional[Sequence[Tensor]] = None):
    """Computes a histogram of the values in a tensor: bins is a count of
    equal-width bins (over range, or the data's minimum and maximum) or a 1-d
    tensor of bin edges. Returns (hist, bin_edges)."""
    if weight is not None and list(weight.shape) != list(input.shape):
        raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the "
                           "same shape as the input tensor excluding its innermost dimension, "
                           f"but got input with shape {list(input.reshape(-1, 1).shape)} and "
                           f"weight with shape {list(weight.shape)}")
    _check_bins("histogram", bins, _HISTOGRAM_FORMS, False)
    points = input.reshape(-1, 1)
    _check_input(points, None, not isinstance(bins, Tensor))
    edges = _edges(points, bins, range, "torch.histogram()")
    hist = _bin_counts(points, edges, weight, density)
    if out is not None:
        return _HistogramResult((_into(hist, out[0]), _into(edges[0], out[1])))
    return _HistogramResult((hist, edges[0]))


@composite(method=False)
def histogramdd(input: Tensor, bins: Any = 10, *, range: Optional[Sequence[float]] = None,
                weight: Optional[Tensor] = None, density: bool = False):
    """Computes a multi-dimensional histogram of the points in the innermost
    dimension of input: bins is a count, one count per dimension, or one 1-d
    edge tensor per dimension. Returns (hist, bin_edges)."""
    _check_bins("histogramdd", bins, _HISTOGRAMDD_FORMS, True)
    _check_input(input, weight, not isinstance(bins, (list, tuple)) or not bins
                 or not isinstance(bins[0], Tensor))
    points = input.reshape(-1, input.shape[-1])
    d = points.shape[1]
    if isinstance(bins, (list, tuple)) and len(bins) != d:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    edges = _edges(points, bins, range, "torch.histogramdd()")
    hist = _bin_counts(points, edges, weight, density)
    return _HistogramDDResult((hist, edges))
