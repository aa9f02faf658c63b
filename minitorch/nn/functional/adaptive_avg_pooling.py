"""nn.functional.adaptive_avg_pool2d over its C row (csrc/ops/nn.def): a
sequence output_size is read here, as torch reads it in Python (None keeps
the input's size; the input needs a dim more than the sequence has), and the
row checks the rest."""
from __future__ import annotations

import minitorch
from ... import _C
from ...overrides import overridable as _overridable
from .adaptive_max_pooling import with_default
from .namespace import publish

Tensor = minitorch.Tensor

__all__ = ["adaptive_avg_pool2d"]

_row = _C._nn_functions["adaptive_avg_pool2d"]


@_overridable
def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Applies 2-d average pooling with windows chosen so the output has
    output_size (None in it keeps that input size)."""
    return _row(input, with_default(input, output_size))


publish(globals())
