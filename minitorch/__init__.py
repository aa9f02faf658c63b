"""minitorch: a small torch-style tensor library whose engine is written in C.

    import minitorch as torch
"""
from . import _C
from ._C import (  # noqa: F401  dtypes and their torch aliases
    Size, dtype, bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
    half, float, double, short, int, long,
    get_default_dtype, set_default_dtype, promote_types, can_cast,
    set_num_threads, get_num_threads,
)
from ._tensor import Tensor
from ._tensor_str import set_printoptions, get_printoptions  # noqa: F401

globals().update(_C._functions)
from . import linalg  # noqa: E402,F401
from .functional import einsum, tensordot  # noqa: E402,F401

__version__ = "0.1.0"


def is_tensor(obj) -> bool:
    """Returns True if obj is a minitorch tensor."""
    return isinstance(obj, Tensor)
