"""Locates the OpenBLAS that NumPy's wheels bundle, so minitorch's matmul can
use it through dlopen without a dependency of its own."""
import glob
import os
from typing import Optional


def library_path() -> Optional[str]:
    """Path of NumPy's bundled OpenBLAS (ILP64 ``scipy_openblas64_``), or None."""
    import numpy

    root = os.path.dirname(os.path.dirname(numpy.__file__))
    for pattern in ("numpy.libs/libscipy_openblas64_*.so*", "numpy/.dylibs/libscipy_openblas64_*"):
        found = sorted(glob.glob(os.path.join(root, pattern)))
        if found:
            return found[0]
    return None
