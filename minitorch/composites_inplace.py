"""The in-place Tensor methods torch has for ops whose row has no in-place
form (the comparisons, the logical binaries, tril/triu, cumsum/cumprod,
logit, which torch also has as torch.logit_):
each computes the op and writes the result into self, whose dtype it keeps
(a comparison's bool result becomes 0 and 1 of self's dtype), as torch's
in-place forms do. Gradients flow through the write (copy_)."""
from typing import Any, Optional

from . import _C
from ._tensor import Tensor
from .composites import logit
from .overrides import composite

__all__ = ["logit_"]

_f = _C._functions


def _into(self: Tensor, result: Tensor) -> Tensor:
    return self.copy_(result)


def saved_source(self: Tensor) -> Tensor:
    """self, or a copy of it when autograd will save it: the write into self
    must not change what the op's backward reads."""
    return self.clone() if self.requires_grad else self


@composite(function=False)
def eq_(self, other: Any) -> Tensor:
    """In place eq: self holds 1 where self == other, 0 elsewhere."""
    return _into(self, _f["eq"](self, other))


@composite(function=False)
def ne_(self, other: Any) -> Tensor:
    """In place ne: self holds 1 where self != other, 0 elsewhere."""
    return _into(self, _f["ne"](self, other))


@composite(function=False)
def lt_(self, other: Any) -> Tensor:
    """In place lt: self holds 1 where self < other, 0 elsewhere."""
    return _into(self, _f["lt"](self, other))


@composite(function=False)
def le_(self, other: Any) -> Tensor:
    """In place le: self holds 1 where self <= other, 0 elsewhere."""
    return _into(self, _f["le"](self, other))


@composite(function=False)
def gt_(self, other: Any) -> Tensor:
    """In place gt: self holds 1 where self > other, 0 elsewhere."""
    return _into(self, _f["gt"](self, other))


@composite(function=False)
def ge_(self, other: Any) -> Tensor:
    """In place ge: self holds 1 where self >= other, 0 elsewhere."""
    return _into(self, _f["ge"](self, other))


@composite(function=False)
def logical_and_(self, other: Any) -> Tensor:
    """In place logical_and."""
    return _into(self, _f["logical_and"](self, other))


@composite(function=False)
def logical_or_(self, other: Any) -> Tensor:
    """In place logical_or."""
    return _into(self, _f["logical_or"](self, other))


@composite(function=False)
def logical_xor_(self, other: Any) -> Tensor:
    """In place logical_xor."""
    return _into(self, _f["logical_xor"](self, other))


@composite(function=False)
def tril_(self, diagonal: int = 0) -> Tensor:
    """In place tril: zeroes the elements above the diagonal-th diagonal."""
    return _into(self, _f["tril"](self, diagonal))


@composite(function=False)
def triu_(self, diagonal: int = 0) -> Tensor:
    """In place triu: zeroes the elements below the diagonal-th diagonal."""
    return _into(self, _f["triu"](self, diagonal))


@composite(function=False)
def cumsum_(self, dim: int, *, dtype: Optional[_C.dtype] = None) -> Tensor:
    """In place cumsum along dim."""
    return _into(self, _f["cumsum"](self, dim, dtype=dtype))


@composite(function=False)
def cumprod_(self, dim: int, *, dtype: Optional[_C.dtype] = None) -> Tensor:
    """In place cumprod along dim."""
    return _into(self, _f["cumprod"](saved_source(self), dim, dtype=dtype))


@composite()
def logit_(input: Tensor, eps: Optional[float] = None) -> Tensor:
    """In place logit."""
    # complex input meets logit's own refusal
    if not input.is_floating_point() and not input.is_complex():
        raise RuntimeError(f"result type {_C.get_default_dtype()._scalar_name} can't be "
                           "cast to the desired output type "
                           f"{input.dtype._scalar_name}")
    return input.copy_(logit(saved_source(input), eps))
