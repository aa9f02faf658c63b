"""A tensor's bytes as the checkpoint formats store them (little-endian, bf16
and complex32 as their bit patterns), both ways, without an intermediate copy: `raw_bytes`
views a contiguous tensor's memory, `empty_raw` makes a tensor and a
writable byte view of its memory to read a file into, `mapped_raw` makes a
tensor over bytes of a memory-mapped file."""
from typing import Tuple

import numpy as np

from .. import _C
from .native import _DTYPE_NAMES, _DTYPES, AS_BITS
from .._tensor import Tensor


def _host(t: Tensor) -> np.ndarray:
    return (t.view(AS_BITS[t.dtype]) if t.dtype in AS_BITS else t).numpy()


def raw_bytes(t: Tensor) -> memoryview:
    """The bytes of t's elements in row-major order: a writable view of t's
    memory when t is contiguous, else of a contiguous copy (a conjugate
    view's values, resolved)."""
    arr = np.ascontiguousarray(_host(t.detach().resolve_conj()))
    return memoryview(arr.reshape(-1).view(np.uint8))


def empty_raw(shape, dtype) -> Tuple[Tensor, memoryview]:
    """A new uninitialised tensor and a writable view of its bytes."""
    t = _C._functions["empty"](shape, dtype=dtype)
    return t, memoryview(_host(t).reshape(-1).view(np.uint8))


def check_bool(raw: memoryview) -> bool:
    """Whether the bytes of a bool tensor are all 0 or 1."""
    return int(np.frombuffer(raw, np.uint8).max(initial=0)) <= 1


def mapped_raw(data: np.ndarray, dtype) -> Tuple[Tensor, memoryview]:
    """A 1-D tensor over the bytes `data` (a slice of a memory map; copied
    only when misaligned for the dtype) and a view of its bytes."""
    np_dtype = np.dtype(_DTYPES[_DTYPE_NAMES[dtype]][1])
    if data.ctypes.data % np_dtype.itemsize:
        data = data.copy()
    t = _C._functions["from_numpy"](data.view(np_dtype))
    if dtype in AS_BITS:
        t = t.view(dtype)
    return t, memoryview(data)
