"""Complex tensors: elementwise mul, exp and abs, the sum of all elements, and
mm (cgemm/zgemm), each at two sizes in complex64 and complex128, minitorch vs
NumPy and PyTorch."""
from functools import lru_cache

import numpy as np

from harness import trio

GROUP = "complex"
DTYPES = ("complex64", "complex128")
ELEMENTWISE_SIZES = (("64K", (256, 256)), ("1M", (1024, 1024)))
MM_SIZES = (("64", 64), ("256", 256))


@lru_cache(maxsize=None)
def _values(shape, dtype, seed):
    rng = np.random.default_rng(seed + sum(shape))
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _array(lib, shape, dtype, seed=0):
    a = _values(tuple(shape), dtype, seed)
    return a.copy() if lib is np else lib.tensor(a)


def _case(stmt, shapes, dtype):
    def setup(lib):
        ns = {"lib": lib}
        for k, (name, shape) in enumerate(shapes):
            ns[name] = _array(lib, shape, dtype, k)
        return stmt, ns
    return setup


# (name, torch-style statement, NumPy statement, operands)
def _ops():
    for label, shape in ELEMENTWISE_SIZES:
        two = (("x", shape), ("y", shape))
        yield "mul %s" % label, "x * y", "x * y", two
        yield "exp %s" % label, "lib.exp(x)", "lib.exp(x)", two[:1]
        yield "abs %s" % label, "lib.abs(x)", "lib.abs(x)", two[:1]
        yield "sum %s" % label, "x.sum()", "x.sum()", two[:1]
    for label, n in MM_SIZES:
        yield "mm %s" % label, "lib.mm(x, y)", "x @ y", (("x", (n, n)), ("y", (n, n)))


def cases():
    out = []
    for dtype in DTYPES:
        for name, stmt, np_stmt, shapes in _ops():
            out.append(trio(GROUP, "%s %s" % (name, dtype), _case(stmt, shapes, dtype),
                            _case(np_stmt, shapes, dtype), target=1.0))
    return out
