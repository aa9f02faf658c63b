"""Linear algebra over LAPACK: svd, eigh, solve, cholesky and qr at 64 and 512
and on a batch of 32x32 matrices, minitorch vs NumPy (its own LAPACK, the
same OpenBLAS) and PyTorch, float32."""
import numpy as np

from data import array
from harness import trio

GROUP = "linalg"
SIZES = (("64x64", (64, 64)), ("512x512", (512, 512)), ("batch 64 of 32x32", (64, 32, 32)))


def _matrix(lib, shape, kind):
    """A well-conditioned general (kind 'general') or symmetric positive-definite
    ('spd') matrix of the given shape, the same values in every library."""
    a = array(lib, shape)
    n = shape[-1]
    if lib is np:
        eye = np.eye(n, dtype=np.float32)
        return a @ np.swapaxes(a, -1, -2) + n * eye if kind == "spd" else a + n * eye
    eye = lib.eye(n)
    return a @ a.mT + n * eye if kind == "spd" else a + n * eye


def _case(stmt, shape, kind, rhs=False):
    def setup(lib):
        ns = {"lib": lib, "a": _matrix(lib, shape, kind)}
        if rhs:
            ns["b"] = array(lib, shape[:-1] + (8,))
        return stmt, ns
    return setup


# (name, torch-style statement, NumPy statement, matrix kind, needs a right-hand side)
OPS = (
    ("svd", "lib.linalg.svd(a, full_matrices=False)", "lib.linalg.svd(a, full_matrices=False)",
     "general", False),
    ("eigh", "lib.linalg.eigh(a)", "lib.linalg.eigh(a)", "spd", False),
    ("solve", "lib.linalg.solve(a, b)", "lib.linalg.solve(a, b)", "general", True),
    ("cholesky", "lib.linalg.cholesky(a)", "lib.linalg.cholesky(a)", "spd", False),
    ("qr", "lib.linalg.qr(a)", "lib.linalg.qr(a)", "general", False),
)


def cases():
    out = []
    for name, stmt, np_stmt, kind, rhs in OPS:
        for label, shape in SIZES:
            out.append(trio(GROUP, "%s float32 %s" % (name, label), _case(stmt, shape, kind, rhs),
                            _case(np_stmt, shape, kind, rhs), target=1.0,
                            notes=["NumPy: numpy.linalg over its bundled OpenBLAS"]))
    return out
