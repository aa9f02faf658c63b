"""The levels of the register-blocked product kernel (kernels/gemm/gemm_small.c)
that a child process is put on by its environment, and a script run at one
of them: the tests of the kernels built on it (matmul, the recurrent layers,
Winograd) reach every level on an AVX-512 machine this way, as the level is
picked once per process."""
import os
import subprocess
import sys

from child_env import child_env

HERE = os.path.dirname(os.path.abspath(__file__))

LEVELS = {"best": {}, "avx2": {"MINITORCH_SMALL_GEMM": "avx2"},
          "generic": {"MINITORCH_SMALL_GEMM": "generic"},
          "no-avx512": {"MINITORCH_NO_AVX512": "1"}}


def run_at_level(code, env, *args, timeout=300):
    """Runs code (with args as its argv) in a child whose environment is this
    one's plus env, in this folder, so it can import the test modules; the
    child must succeed and print just "ok"."""
    r = subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=HERE,
                       env=dict(child_env(), **env), capture_output=True, text=True,
                       timeout=timeout)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == "ok"
