"""nn.functional.dropout: the scaled Bernoulli mask from the global Generator."""
from __future__ import annotations

import minitorch
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor

__all__ = ["dropout"]


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


@_overridable
def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Randomly zeroes elements of the input with probability p (from the global
    Generator) and scales the rest by 1/(1-p) during training."""
    _check_p(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        out = input * 0.0
        return input.copy_(out) if inplace else out
    # the scaled mask is built outside autograd, so forward and backward are one
    # multiply each; dividing by 1 - p rounds as torch's does
    with minitorch.no_grad():
        keep = minitorch.empty_like(input).bernoulli_(1.0 - p).div_(1.0 - p)
    return input.mul_(keep) if inplace else input * keep

publish(globals())
