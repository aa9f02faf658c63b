"""torch.segment_reduce: data reduced over consecutive segments along axis,
their lengths given (or their offsets), one row of lengths per index of the
dims before axis. initial joins each segment's reduction and is the result of
an empty one (else sum 0, prod 1, max -inf, min inf, mean NaN). Written
segment by segment over sum, prod, amax and amin, so its gradients are
theirs (a maximum's gradient shared among the tied elements, as torch's)."""
import itertools
import math
from typing import Optional

from . import _C
from ._tensor import Tensor
from .overrides import composite

__all__ = ["segment_reduce"]

_f = _C._functions
_EMPTY = {"sum": 0.0, "prod": 1.0, "max": -math.inf, "min": math.inf, "mean": math.nan}
_NAMES = {"amax": "max", "amin": "min"}


def _reduced(seg: Tensor, reduce: str, initial: Optional[float]) -> Tensor:
    """One segment (its elements along dim 0) reduced."""
    count = seg.shape[0]
    if count == 0:
        return seg.new_full(tuple(seg.shape[1:]), _EMPTY[reduce] if initial is None else initial)
    if reduce == "max":
        out = seg.amax(0)
        return out if initial is None else out.clamp(min=initial)
    if reduce == "min":
        out = seg.amin(0)
        return out if initial is None else out.clamp(max=initial)
    if reduce == "prod":
        out = seg.prod(0)
        return out if initial is None else out * initial
    out = seg.sum(0)
    if initial is not None:
        out = out + initial
    return out / count if reduce == "mean" else out


@composite(method=False)
def segment_reduce(data: Tensor, reduce: str, *, lengths: Optional[Tensor] = None,
                   indices: Optional[Tensor] = None, offsets: Optional[Tensor] = None,
                   axis: int = 0, unsafe: bool = False,
                   initial: Optional[float] = None) -> Tensor:
    """data reduced ("sum", "prod", "mean", "max", "min") over the segments
    along axis that lengths (or offsets) give."""
    reduce = _NAMES.get(reduce, reduce)
    if reduce not in _EMPTY:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    ndim = data.dim()
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {axis})")
    axis %= max(ndim, 1)
    if not data.is_floating_point():
        raise NotImplementedError(f"\"_segment_reduce_cpu\" not implemented for "
                                  f"'{data.dtype._scalar_name}'")
    if lengths is None:
        lengths = offsets.narrow(-1, 1, offsets.shape[-1] - 1) - \
            offsets.narrow(-1, 0, offsets.shape[-1] - 1)
    if bool((lengths < 0).any()):
        raise RuntimeError("lengths contains negative value!")
    if not unsafe and not bool((lengths.sum(-1) == data.shape[axis]).all()):
        raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                           "data.size(lengths.dim()-1) when !unsafe.")
    lead = tuple(data.shape[:axis])
    rows = []
    for index in itertools.product(*(range(n) for n in lead)):
        line, start, segments = data[index], 0, []
        for count in lengths[index].tolist():
            segments.append(_reduced(line.narrow(0, start, count), reduce, initial))
            start += count
        rows.append(_f["stack"](segments, 0))
    rest = tuple(data.shape[axis + 1:])
    return _f["stack"](rows, 0).reshape(*lead, lengths.shape[-1], *rest)
