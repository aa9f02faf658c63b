"""minitorch's products leave the OpenBLAS they borrow (NumPy's) with the thread
count it had: OpenBLAS keeps one process-wide count, so a product that set it
from our pool threads and restored it there could leave NumPy single-threaded
for good. Each case runs in a fresh interpreter so the library's state is its
own."""
import json
import os
import subprocess
import sys

import pytest

import minitorch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(minitorch.__file__)))

# Reads the count through the loaded library's own getter (found in
# /proc/self/maps, as threadpoolctl does), runs products of every kind (one
# large enough for OpenBLAS's own threads) from one and from four Python
# threads at once and at several minitorch thread counts, and reports the count
# before, during the run's gaps and after, next to the products' errors.
SCRIPT = r"""
import ctypes, json, sys, threading
import numpy as np
import minitorch as mt

info = mt._blas.info()
if not info["found"]:
    print(json.dumps({"skip": "no OpenBLAS"})); sys.exit()
lib = ctypes.CDLL(info["path"])
names = [n for n in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_")
         if hasattr(lib, n)]
setters = [n for n in ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_")
           if hasattr(lib, n)]
if not names or not setters:
    print(json.dumps({"skip": "no thread count getter"})); sys.exit()
get = getattr(lib, names[0])
set_ = getattr(lib, setters[0])
set_(int(sys.argv[1]))
before = get()
r = np.random.default_rng(0)
a = r.standard_normal((257, 300)).astype(np.float32)
b = r.standard_normal((300, 190)).astype(np.float32)
ba = r.standard_normal((6, 130, 70))
bb = r.standard_normal((6, 70, 90))
# above the size from which OpenBLAS would start its own threads
la = r.standard_normal((1030, 1001)).astype(np.float32)
lb = r.standard_normal((1001, 1019)).astype(np.float32)
lref = la.astype(np.float64) @ lb.astype(np.float64)
errors = []

def work():
    try:
        for _ in range(3):
            out = (mt.from_numpy(a) @ mt.from_numpy(b)).numpy()
            np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-3)
            out = mt.bmm(mt.from_numpy(ba), mt.from_numpy(bb).transpose(1, 2).contiguous()
                         .transpose(1, 2)).numpy()
            np.testing.assert_allclose(out, ba @ bb, rtol=1e-10, atol=1e-10)
            small = mt.from_numpy(a[:40, :40]) @ mt.from_numpy(b[:40, :40])
            np.testing.assert_allclose(small.numpy(), a[:40, :40] @ b[:40, :40], rtol=1e-4,
                                       atol=1e-4)
        large = (mt.from_numpy(la) @ mt.from_numpy(lb)).numpy()
        np.testing.assert_allclose(large, lref, rtol=1e-4, atol=2e-3)
    except Exception as e:
        errors.append(repr(e))

seen = []
for threads in (1, 2, 3):
    mt.set_num_threads(threads)
    work()
    seen.append(get())
    pool = [threading.Thread(target=work) for _ in range(4)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    seen.append(get())
np_ok = (np.allclose(a @ b, (a.astype(np.float64) @ b.astype(np.float64)), rtol=1e-3, atol=1e-2)
         and np.allclose(la @ lb, lref, rtol=1e-4, atol=2e-3))
print(json.dumps({"before": before, "seen": seen, "after": get(), "errors": errors,
                  "np_ok": bool(np_ok)}))
"""


def run(count):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("MINITORCH_BLAS", None)
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(count)], capture_output=True,
                         text=True, env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("count", [2, 3, 1])
def test_openblas_thread_count_unchanged(count):
    r = run(count)
    if "skip" in r:
        pytest.skip(r["skip"])
    assert r["errors"] == []
    assert r["before"] == count
    assert r["seen"] == [count] * len(r["seen"])
    assert r["after"] == count
    assert r["np_ok"]
