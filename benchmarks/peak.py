"""The machine's measured float32 multiply-add peak (peak_flops.c), for the
matmul cases' fraction-of-peak line. None when no C compiler or no AVX2+FMA."""
import ctypes
import os
import subprocess
import sys
import sysconfig
import tempfile
from functools import lru_cache

HERE = os.path.dirname(os.path.abspath(__file__))


def _compile():
    cc = (sysconfig.get_config_var("CC") or "cc").split()
    out = os.path.join(tempfile.mkdtemp(prefix="minitorch-peak-"), "peak_flops.so")
    cmd = cc + ["-O2", "-shared", "-fPIC", "-o", out, os.path.join(HERE, "peak_flops.c"),
                "-lpthread"]
    try:
        subprocess.run(cmd, check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print("peak: could not compile peak_flops.c (%s)" % e, file=sys.stderr)
        return None
    lib = ctypes.CDLL(out)
    lib.peak_gflops.restype = ctypes.c_double
    lib.peak_gflops.argtypes = [ctypes.c_int, ctypes.c_int64]
    return lib


@lru_cache(maxsize=None)
def peak_gflops(threads):
    """Best of five runs of ~50 ms on `threads` threads, or None."""
    lib = _compile()
    if lib is None:
        return None
    best = max(lib.peak_gflops(threads, 10_000_000) for _ in range(5))
    return best or None
