"""out= for functions written in Python, as csrc/ops/out_param.c does it for
op rows: out must have the result's dtype; one of another shape is resized
(with torch's deprecation warning unless it was empty) and given the values."""
import warnings
from typing import Sequence

from ._legacy_tensor_types import _CPP_NAMES
from ._tensor import Tensor


def write_out(out: Tensor, result: Tensor) -> Tensor:
    """result's values written into out, which is returned."""
    if out.dtype != result.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_CPP_NAMES[result.dtype]}, but "
                           f"got {_CPP_NAMES[out.dtype]} instead")
    if tuple(out.shape) != tuple(result.shape):
        if out.numel():
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                "with t.resize_(0).", UserWarning, stacklevel=3)
        out.resize_(tuple(result.shape))
    return out.copy_(result)


def write_out_list(name: str, out: Sequence[Tensor], results: Sequence[Tensor]) -> None:
    """Each result written into its out tensor; the lists must be as long."""
    if len(out) != len(results):
        raise RuntimeError(f"{name} expected an out= argument of size {len(results)}, got size "
                           f"{len(out)}")
    for o, r in zip(out, results):
        write_out(o, r)
