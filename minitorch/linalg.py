"""minitorch.linalg: the matrix products under torch.linalg's names."""
from . import _C

_mt = _C._functions

matmul = _mt["matmul"]


def multi_dot(tensors):
    """Efficiently multiplies two or more matrices, left to right."""
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    result = tensors[0]
    for t in tensors[1:]:
        result = _mt["matmul"](result, t)
    return result
