"""nn.functional.bilinear, written with einsum (nn.functional.linear is a row)."""
from __future__ import annotations

from typing import Optional

import minitorch
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor

__all__ = ["bilinear"]


@_overridable
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor,
             bias: Optional[Tensor] = None) -> Tensor:
    """Applies a bilinear transformation: y = x1^T A x2 + b."""
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError("bilinear(): input batch dimensions do not match: got "
                           f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    out = minitorch.einsum("bi,oij,bj->bo", x1, weight, x2)
    if bias is not None:
        out = out + bias
    return out.reshape(*lead, weight.shape[0])

publish(globals())
