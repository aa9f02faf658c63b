"""What every masked op shares: the mask broadcast to the input, the value
masked-out elements take so that they do not change a reduction (its
identity), and the dims a reduction runs over, checked as torch.masked
checks them."""
import numbers

import minitorch as mt

# the dtypes a masked sum or prod promotes to int64 when no dtype is given
SMALL_INTEGRAL = (mt.bool, mt.uint8, mt.int8, mt.int16, mt.int32)


def canonical_dims(dim, ndim):
    """dim as a sorted tuple of non-negative dims: all of them for None and
    for () (torch's reductions still read () as "every dim"); a 0-d input
    takes 0 and -1 as its one dim."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims = []
    for d in (dim,) if isinstance(dim, numbers.Integral) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-ndim}, {ndim - 1}], but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def input_mask(input, mask):
    """mask as a bool tensor of input's shape; a mask of fewer dims is
    broadcast, one of more dims is refused."""
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                             "higher than of the input)")
        mask = mt.broadcast_to(mask.clone(), input.shape)
    return mask.to(dtype=mt.bool)


def identity(op, input, ord=None):
    """The 0-d tensor (input's dtype) that leaves op's reduction unchanged,
    or None where none is defined (mean, var, std)."""
    dtype = input.dtype
    if op in ("sum", "cumsum"):
        return mt.tensor(0, dtype=dtype)
    if op in ("prod", "cumprod"):
        return mt.tensor(1, dtype=dtype)
    if op in ("amax", "argmax", "logaddexp", "logsumexp", "amin", "argmin"):
        low = op not in ("amin", "argmin")
        if dtype.is_floating_point:
            return mt.tensor(-mt.inf if low else mt.inf, dtype=dtype)
        if op == "logsumexp" and dtype.is_complex:
            return mt.tensor(complex(-mt.inf, 0), dtype=dtype)
        if dtype.is_signed or dtype == mt.uint8:
            info = mt.iinfo(dtype)
            return mt.tensor(info.min if low else info.max, dtype=dtype)
    elif op == "norm":
        if ord == float("-inf"):
            if not dtype.is_floating_point:
                raise AssertionError(f"input must be floating point, got {dtype}")
            return mt.tensor(mt.inf, dtype=dtype)
        return mt.tensor(0, dtype=dtype)
    elif op == "median":
        # masked-out elements become NaN, which nanmedian skips
        return mt.tensor(mt.nan, dtype=dtype if dtype.is_floating_point else mt.float32)
    elif op in ("mean", "var", "std"):
        return None
    raise NotImplementedError(f"identity of {op} on {dtype} input")


def masked_input(op, input, mask, ord=None):
    """input with its masked-out elements replaced by op's identity (input
    itself when there is no mask); differentiable in input."""
    if mask is None:
        return input
    return mt.where(input_mask(input, mask), input, identity(op, input, ord))
