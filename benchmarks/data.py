"""Input data shared by the cases: one NumPy array per shape, handed to each
library as its own copy."""
from functools import lru_cache

import numpy as np


@lru_cache(maxsize=None)
def _array(shape, dtype):
    rng = np.random.default_rng(sum(shape) + 7)
    return rng.standard_normal(shape, dtype=np.float64).astype(dtype)


def array(lib, shape, dtype="float32", requires_grad=False):
    """A random array of `shape` as a tensor of `lib` (the same values for every library)."""
    a = _array(tuple(shape), dtype)
    if lib is np:
        return a.copy()
    if requires_grad:
        return lib.tensor(a, requires_grad=True)
    return lib.tensor(a)


def clear():
    _array.cache_clear()
