"""The run-time search for an ILP64 OpenBLAS behind matmul (minitorch._blas):
what it finds, the MINITORCH_BLAS knob, and that products are right with and
without a library. Each case runs in a fresh interpreter, since the search
runs once per process."""
import glob
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import minitorch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(minitorch.__file__)))


def numpy_openblas():
    package = os.path.dirname(np.__file__)
    found = []
    for folder in (os.path.join(os.path.dirname(package), "numpy.libs"),
                   os.path.join(package, ".dylibs")):
        for pattern in ("libscipy_openblas64_*", "libopenblas64_*"):
            found += sorted(glob.glob(os.path.join(folder, pattern)))
    return found[0] if found else None


# Large enough to take the BLAS path when there is one, checked against NumPy.
PRODUCTS = """
import minitorch as mt, numpy as np
r = np.random.default_rng(0)
for d in (np.float32, np.float64):
    a, c = r.standard_normal((300, 250)).astype(d), r.standard_normal((250, 170)).astype(d)
    t = mt.from_numpy(np.ascontiguousarray(c.T)).t()
    tol = 1e-4 if d == np.float32 else 1e-10
    np.testing.assert_allclose((mt.from_numpy(a) @ t).numpy(), a @ c, rtol=tol, atol=tol)
"""


def run(code, blas=None):
    """Runs code, then the products, in a new interpreter; returns (_blas.info(),
    __config__.show(), stderr)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("MINITORCH_BLAS", None)
    if blas is not None:
        env["MINITORCH_BLAS"] = blas
    script = (code + PRODUCTS + "import json, minitorch._blas as b\n"
              "print(json.dumps(b.info())); print(json.dumps(mt.__config__.show()))\n")
    p = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                       cwd=ROOT)
    assert p.returncode == 0, p.stderr
    info, show = p.stdout.strip().splitlines()[-2:]
    return json.loads(info), json.loads(show), p.stderr


needs_openblas = pytest.mark.skipif(numpy_openblas() is None,
                                    reason="this NumPy bundles no ILP64 OpenBLAS")


@needs_openblas
def test_finds_numpys_openblas():
    info, show, _ = run("")
    assert info["found"] and info["source"] == "numpy"
    assert os.path.samefile(info["path"], numpy_openblas())
    assert info["symbol"] in ("scipy_cblas_sgemm64_", "cblas_sgemm64_")
    assert info["tried"] == [info["path"]]
    assert f"BLAS: OpenBLAS (ILP64, {info['symbol']}) from numpy: {info['path']}" in show
    assert info["lapack"] in ("scipy_dgetrf_64_", "dgetrf_64_")
    assert f"LAPACK: OpenBLAS's LAPACK (ILP64, {info['lapack']}) from numpy: {info['path']}" \
        in show


def test_none_uses_own_kernel():
    info, show, err = run("", blas="none")
    assert info == {"found": False, "path": None, "source": None, "symbol": None, "tried": [],
                    "lapack": None}
    assert "BLAS: none (MINITORCH_BLAS=none); matmul uses minitorch's own kernel" in show
    assert "LAPACK: none found; minitorch.linalg's factorizations and solves raise" in show
    assert "Warning" not in err


@needs_openblas
def test_explicit_path():
    info, _, err = run("", blas=numpy_openblas())
    assert info["found"] and info["source"] == "MINITORCH_BLAS"
    assert info["path"] == numpy_openblas()
    assert "Warning" not in err


@pytest.mark.parametrize("path", ["/nonexistent/libopenblas64_.so", "c_library"])
def test_unusable_path_warns_and_falls_back(path):
    if path == "c_library":  # loads, but exports no gemm
        path = minitorch._C.__file__
    info, show, err = run("", blas=path)
    assert not info["found"] and info["tried"] == [path]
    assert f"RuntimeWarning: MINITORCH_BLAS={path!r} is not a loadable ILP64 OpenBLAS" in err
    assert "none found); matmul uses minitorch's own kernel" in show


@needs_openblas
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_finds_an_already_loaded_library():
    """With NumPy's folders hidden, the library NumPy loaded is found in the
    process's mappings, as threadpoolctl finds it."""
    info, _, _ = run("import minitorch._blas as b; b._numpy_folders = lambda: []\n")
    assert info["found"] and info["source"] in ("loaded", "scipy_openblas64")
    if info["source"] == "loaded":
        assert os.path.samefile(info["path"], numpy_openblas())


def test_info_in_process_matches_a_product():
    """info() runs the search itself, and what it reports is what matmul uses:
    a product right after it is still right."""
    info = minitorch._blas.info()
    assert set(info) == {"found", "path", "source", "symbol", "tried", "lapack"}
    a = np.random.default_rng(1).standard_normal((200, 200))
    np.testing.assert_allclose((minitorch.from_numpy(a) @ minitorch.from_numpy(a)).numpy(),
                               a @ a, rtol=1e-10, atol=1e-10)


def test_linalg_without_lapack_raises_clearly():
    env = dict(os.environ, PYTHONPATH=ROOT, MINITORCH_BLAS="none")
    script = ("import minitorch as mt\n"
              "try:\n    mt.linalg.inv(mt.eye(3))\n"
              "except RuntimeError as e:\n    print(e)\n")
    p = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                       cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "found no LAPACK" in p.stdout and "minitorch.__config__.show()" in p.stdout
