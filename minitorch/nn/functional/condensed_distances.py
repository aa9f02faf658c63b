"""nn.functional.pdist (re-exported by nn.functional): the p-norm distances
between every pair of rows, upper triangle only, row-major."""
from __future__ import annotations

import minitorch
from ...composites import _no_kernel
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor

__all__ = ["pdist"]


@_overridable
def pdist(input: Tensor, p: float = 2) -> Tensor:
    """||input[i] - input[j]||_p for i < j, a tensor of N * (N - 1) / 2 elements."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if input.dtype in (minitorch.float16, minitorch.bfloat16):
        raise _no_kernel("pdist", input.dtype)
    n = input.shape[0]
    first, second = minitorch.triu_indices(n, n, 1)
    diff = input[first] - input[second]
    if input.shape[1] == 0:
        # points of no coordinates are all at distance 0, whatever p
        return diff.sum(-1)
    return diff.norm(p, dim=-1)


publish(globals())
