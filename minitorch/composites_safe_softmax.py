"""torch._safe_softmax: softmax whose slices holding only -inf come out as
zeros rather than NaN (attention over a fully masked row). Written over
masked_fill and softmax, so its gradient is softmax's, zero on such slices."""
from typing import Any, Optional

from ._tensor import Tensor
from .overrides import composite

__all__ = ["_safe_softmax"]


@composite(method=False)
def _safe_softmax(input: Tensor, dim: int, dtype: Optional[Any] = None) -> Tensor:
    """softmax(input, dim, dtype) with every slice along dim that holds only
    -inf set to zeros."""
    if input.numel() == 0 or input.dim() == 0:
        return input.softmax(dim, dtype=dtype)
    empty = (input == float("-inf")).all(dim, keepdim=True)
    if not bool(empty.any()):
        return input.softmax(dim, dtype=dtype)
    # masking the input first keeps NaN out of the gradient of those slices
    return input.masked_fill(empty, 0.0).softmax(dim, dtype=dtype).masked_fill(empty, 0.0)
