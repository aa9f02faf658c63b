"""Checks the fft test files share: the same bits on 1 and 2 threads, and a
file's tests rerun on the 8-lane loops in a fresh process."""
import os
import subprocess
import sys

import numpy as np
import pytest

import minitorch as mt


def assert_same_bits_on_1_and_2_threads(call):
    """call() (a minitorch tensor) gives identical bits on 1 and 2 threads."""
    before = mt.get_num_threads()
    got = []
    try:
        for threads in (1, 2):
            mt.set_num_threads(threads)
            got.append(call().numpy())
    finally:
        mt.set_num_threads(before)
    np.testing.assert_array_equal(got[0], got[1])


def rerun_on_eight_lane_loops(test_file):
    """test_file's other tests pass on the 8-lane loops, which a fresh process
    takes under MINITORCH_NO_AVX512 (the choice is made once per process)."""
    if os.environ.get("MINITORCH_NO_AVX512"):
        pytest.skip("already on the 8-lane loops")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root, MINITORCH_NO_AVX512="1")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        os.path.abspath(test_file), "-k", "not eight_lane"],
                       cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:]
    assert " passed" in r.stdout and "failed" not in r.stdout
