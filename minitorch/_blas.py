"""Finds an ILP64 OpenBLAS for minitorch's matmul at run time, without a
dependency of its own, and reports which one it uses.

The search runs once, before the first floating-point product (the C side
calls ``_locate``), and tries in order:

- ``MINITORCH_BLAS``: a library path to use and nothing else, or ``none`` for
  minitorch's own kernel;
- the OpenBLAS NumPy's wheels bundle (``numpy.libs`` on Linux and Windows,
  ``numpy/.dylibs`` on macOS): ``libscipy_openblas64_`` since NumPy 2,
  ``libopenblas64_`` in NumPy 1.x;
- the ``scipy-openblas64`` package, when installed;
- an ILP64 OpenBLAS already loaded in the process (read from
  ``/proc/self/maps`` on Linux, as threadpoolctl finds libraries).

A library qualifies when it exports the ILP64 ``cblas_?gemm`` (with either
symbol spelling). Without one, matmul uses minitorch's own kernel, and
``info()`` and ``minitorch.__config__.show()`` say so. The same library's
LAPACK routines (``dgetrf_64_`` and the others minitorch.linalg runs) are
resolved when it is loaded; ``info()["lapack"]`` names the getrf symbol
found, or is None (minitorch.linalg's factorizations then raise).
"""
import glob
import os
import warnings
from typing import Dict, Iterator, List, Optional, Tuple

ENV = "MINITORCH_BLAS"
_PATTERNS = ("libscipy_openblas64_*", "libopenblas64_*")
_SUFFIXES = (".so", ".dylib", ".dll")

_report: Optional[Dict[str, object]] = None


def _is_library(path: str) -> bool:
    name = os.path.basename(path)
    return any(name.endswith(s) or (s + ".") in name for s in _SUFFIXES)


def _in_folders(folders: List[str]) -> Iterator[str]:
    for folder in folders:
        for pattern in _PATTERNS:
            for path in sorted(glob.glob(os.path.join(folder, pattern))):
                if _is_library(path):
                    yield path


def _numpy_folders() -> List[str]:
    import numpy

    package = os.path.dirname(numpy.__file__)
    return [os.path.join(os.path.dirname(package), "numpy.libs"), os.path.join(package, ".dylibs")]


def _scipy_openblas_folders() -> List[str]:
    try:
        import scipy_openblas64
    except ImportError:
        return []
    return [scipy_openblas64.get_lib_dir()]


def _loaded() -> Iterator[str]:
    try:
        with open("/proc/self/maps") as maps:
            lines = maps.read().splitlines()
    except OSError:
        return
    seen = set()
    for line in lines:
        fields = line.split(None, 5)
        path = fields[5] if len(fields) == 6 else ""
        if "openblas" in os.path.basename(path).lower() and path not in seen:
            seen.add(path)
            yield path


def candidates() -> Iterator[Tuple[str, str]]:
    """(path, where it was found) for every library the search would try, in order."""
    chosen = os.environ.get(ENV)
    if chosen:
        if chosen.lower() != "none":
            yield chosen, ENV
        return
    for path in _in_folders(_numpy_folders()):
        yield path, "numpy"
    for path in _in_folders(_scipy_openblas_folders()):
        yield path, "scipy_openblas64"
    for path in _loaded():
        yield path, "loaded"


def _locate() -> None:
    """Loads the first candidate that qualifies and records the outcome."""
    global _report
    if _report is not None:
        return
    from . import _C

    tried = []
    report: Dict[str, object] = {"found": False, "path": None, "source": None, "symbol": None}
    for path, source in candidates():
        tried.append(path)
        symbol = _C._blas_load(path)
        if symbol is not None:
            report.update(found=True, path=path, source=source, symbol=symbol)
            break
    report["tried"] = tried
    report["lapack"] = _C._lapack_symbol()
    chosen = os.environ.get(ENV)
    if chosen and chosen.lower() != "none" and not report["found"]:
        warnings.warn(
            f"{ENV}={chosen!r} is not a loadable ILP64 OpenBLAS (no cblas_sgemm64_); "
            "matmul uses minitorch's own kernel", RuntimeWarning)
    _report = report


def info() -> Dict[str, object]:
    """Which BLAS matmul uses: ``found``, ``path``, ``source`` (``MINITORCH_BLAS``,
    ``numpy``, ``scipy_openblas64`` or ``loaded``), the gemm ``symbol``, the
    paths ``tried``, and the ``lapack`` getrf symbol (None without LAPACK).
    Runs the search if no product has yet."""
    from . import _C

    _C._blas_locate()
    if _report is None:  # the search failed; the C side dropped its error
        return {"found": False, "path": None, "source": None, "symbol": None, "tried": [],
                "lapack": None}
    return dict(_report)


def describe() -> str:
    """One line for minitorch.__config__.show()."""
    r = info()
    if r.get("found"):
        return f"OpenBLAS (ILP64, {r['symbol']}) from {r['source']}: {r['path']}"
    why = f"{ENV}=none" if (os.environ.get(ENV) or "").lower() == "none" else "none found"
    return f"none ({why}); matmul uses minitorch's own kernel"


def describe_lapack() -> str:
    """One line for minitorch.__config__.show(): the LAPACK minitorch.linalg uses."""
    r = info()
    if r.get("lapack"):
        return f"OpenBLAS's LAPACK (ILP64, {r['lapack']}) from {r['source']}: {r['path']}"
    return "none found; minitorch.linalg's factorizations and solves raise"
