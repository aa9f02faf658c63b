"""Sparse COO coordinates and values as plain tensors: coalescing, the
bounds check, and adding values into a dense tensor at coordinates. Knows
nothing of the sparse tensor class."""
import math

from .._tensor import Tensor


def _mt():
    import minitorch
    return minitorch


def _size_list(size) -> str:
    return "[" + ", ".join(str(s) for s in size) + "]"


def _coalesced(indices: Tensor, values: Tensor, size):
    """Sorted unique coordinates and their summed values. As torch, the
    coordinates are not checked against size: each becomes its row-major
    position in the box its own minima and maxima span."""
    mt = _mt()
    sdim, nnz = indices.shape
    if nnz == 0:
        return indices, values
    low = indices.amin(1)
    extents = indices.amax(1).sub(low).add(1).tolist()
    if math.prod(extents) >= 2 ** 62:
        raise RuntimeError("coalesce: the coordinates span more than 2**62 positions")
    shifted = indices - low.unsqueeze(1)
    lin = mt.zeros(nnz, dtype=mt.int64)
    for d in range(sdim):
        lin = lin * extents[d] + shifted[d]
    unique, inverse = mt.unique(lin, sorted=True, return_inverse=True)
    summed = mt.zeros((unique.shape[0],) + tuple(values.shape[1:]), dtype=values.dtype)
    summed.index_add_(0, inverse, values)
    rows = []
    rest = unique
    for d in reversed(range(sdim)):
        rows.append(rest.remainder(extents[d]))
        rest = rest.div(extents[d], rounding_mode="floor")
    rows.reverse()
    new_indices = mt.stack(rows) + low.unsqueeze(1) if rows else \
        mt.zeros((0, unique.shape[0]), dtype=mt.int64)
    return new_indices, summed


def _check_bounds(indices: Tensor, size) -> None:
    """torch's invariant checks on coordinates (check_invariants=True)."""
    if indices.numel() == 0:
        return
    low = indices.amin(1).tolist()
    high = indices.amax(1).tolist()
    for d, (lo, hi) in enumerate(zip(low, high)):
        if lo < 0:
            raise RuntimeError(f"found negative index {lo} for dim {d}")
        if hi >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                               f"{size[d]} but found index {hi}")


def _accumulate(dense: Tensor, indices: Tensor, values: Tensor) -> None:
    """dense[coordinates] += values, one value at a time in order (as torch's
    dense + sparse adds them); out-of-range coordinates raise."""
    if values.shape[0] == 0:
        return
    sdim = indices.shape[0]
    if sdim == 0:
        dense.add_(values.sum(0))
        return
    values = values.to(dense.dtype)
    sizes = tuple(dense.shape[:sdim])
    inside = bool(indices.amin() >= 0) and all(
        m < n for m, n in zip(indices.amax(1).tolist(), sizes))
    if not (inside and dense.is_contiguous()):
        # index_put_ names a stray coordinate in its error
        dense.index_put_(tuple(indices.unbind(0)), values, accumulate=True)
        return
    # the sparse dims folded into one: index_add_ adds row by row, in order
    lin = indices[0]
    for d in range(1, sdim):
        lin = lin * sizes[d] + indices[d]
    dense.view((math.prod(sizes),) + tuple(dense.shape[sdim:])).index_add_(0, lin, values)
