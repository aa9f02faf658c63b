"""Creating and dropping many tensors and views leaves memory flat.

RSS is read from /proc/self/statm around a loop that runs each operation
N times after a warm-up; leaks of a tensor, a storage or a Python object per
iteration would show as megabytes. The cyclic GC must find nothing: our
objects never form cycles only it can free.
"""
import gc
import os
import pickle

import numpy as np
import pytest

import minitorch as mt

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/statm"),
                                reason="needs /proc/self/statm")

N = int(os.environ.get("MINITORCH_MEMORY_ITERS", "30000"))
PAGE = os.sysconf("SC_PAGE_SIZE")
LIMIT = 4 << 20


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


x = mt.arange(12.0).reshape(3, 4)
y = mt.ones(3, 4)
a = np.arange(6.0).reshape(2, 3)

CASES = {
    "tensor": lambda: mt.tensor([[1.0, 2.0], [3.0, 4.0]]),
    "zeros": lambda: mt.zeros(2, 3),
    "view": lambda: x.view(4, 3),
    "t": lambda: x.t(),
    "select": lambda: x[0],
    "slice": lambda: x[1:, ::2],
    "advanced index": lambda: x[[0, 2]],
    "setitem": lambda: x.__setitem__((0, slice(None)), 1.0),
    "add": lambda: x + y,
    "from_numpy": lambda: mt.from_numpy(a),
    "numpy round trip": lambda: mt.from_numpy(x.numpy()).numpy(),
    "pickle": lambda: pickle.loads(pickle.dumps(x)),
    "dlpack": lambda: mt.from_dlpack(x),
    "error": lambda: _raises(lambda: x[5]),
}


def _raises(fn):
    try:
        fn()
    except IndexError:
        pass


@pytest.mark.parametrize("name", list(CASES))
def test_rss_flat(name):
    fn = CASES[name]
    for _ in range(1000):
        fn()
    gc.collect()
    objects = len(gc.get_objects())
    before = rss()
    for _ in range(N):
        fn()
    grown = rss() - before
    assert gc.collect() == 0
    assert len(gc.get_objects()) - objects < 50
    assert grown < LIMIT, f"{name}: RSS grew {grown / 2**20:.1f} MiB over {N} iterations"
