"""Membership tests built on the C searchsorted."""
from . import _C
from ._tensor import Tensor
from .composites import _op

__all__ = ["isin"]

_f = _C._functions


@_op("elements", "test_elements", method=False)
def isin(elements, test_elements, *, assume_unique: bool = False,
         invert: bool = False) -> Tensor:
    """Tests if each element of elements is in test_elements. Returns a
    boolean tensor of the same shape as elements that is True for elements in
    test_elements and False otherwise."""
    if not isinstance(elements, Tensor):
        elements = _f["tensor"](elements)
    if not isinstance(test_elements, Tensor):
        test_elements = _f["tensor"](test_elements)
    # NaN matches nothing, and left in it would break the binary search's order
    pool = test_elements.reshape(-1).sort()[0]
    pool = pool.masked_select(pool == pool)
    if pool.numel() == 0:
        found = _f["zeros"](list(elements.shape), dtype=_C.bool)
    else:
        at = _f["searchsorted"](pool, elements).clamp(max=pool.numel() - 1)
        found = pool.take(at) == elements
    return ~found if invert else found
