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
    # an earlier test's cycles may take more than one collection to free (a
    # tensor traverses its grad_fn only once it alone holds it)
    for _ in range(10):
        if not gc.collect():
            break
    objects = len(gc.get_objects())
    before = rss()
    for _ in range(N):
        fn()
    grown = rss() - before
    assert gc.collect() == 0
    assert len(gc.get_objects()) - objects < 50
    assert grown < LIMIT, f"{name}: RSS grew {grown / 2**20:.1f} MiB over {N} iterations"


# Autograd: graphs must be freed by reference counting alone.
mlp = mt.nn.Sequential(mt.nn.Linear(8, 16), mt.nn.ReLU(), mt.nn.Linear(16, 4))
opt = mt.optim.Adam(mlp.parameters(), lr=1e-3)
batch, labels = mt.randn(32, 8), mt.randint(0, 4, (32,))
leaf = mt.randn(3, requires_grad=True)


class Square(mt.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return 2 * t * g


def _mlp_step():
    opt.zero_grad()
    mt.nn.functional.cross_entropy(mlp(batch), labels).backward()
    opt.step()


def _double_backward():
    (g,) = mt.autograd.grad((leaf.exp() * leaf).sum(), leaf, create_graph=True)
    g.sum().backward()
    leaf.grad = None


def _hooked():
    y = leaf * 2
    y.register_hook(lambda g: g * 3)
    y.retain_grad()
    y.sum().backward()
    leaf.grad = None


AUTOGRAD_CASES = {
    "mlp training step": _mlp_step,
    "double backward": _double_backward,
    "hooks and retain_grad": _hooked,
    "custom Function": lambda: Square.apply(leaf).sum().backward(),
    "graph dropped unused": lambda: (leaf * leaf).exp().sum(),
}


@pytest.mark.parametrize("name", list(AUTOGRAD_CASES))
def test_autograd_rss_flat(name):
    fn = AUTOGRAD_CASES[name]
    for _ in range(300):
        fn()
    gc.collect()
    objects = len(gc.get_objects())
    before = rss()
    for _ in range(max(N // 10, 1000)):
        fn()
    grown = rss() - before
    assert gc.collect() == 0
    assert len(gc.get_objects()) - objects < 50
    assert grown < LIMIT, f"{name}: RSS grew {grown / 2**20:.1f} MiB"


def test_reused_big_blocks_come_back_zeroed():
    """Freed big buffers are kept for reuse; a zero-filled request still gets zeros."""
    for n in (20_000, 300_000, 2_000_000):
        a = mt.full((n,), 7.0)
        b = a * 3  # a second block of the same size in the cache
        del a, b
        z = mt.zeros(n)
        assert not bool(z.any()) and z.shape == (n,)
        o = mt.ones(n) + 1  # a reused block overwritten in full
        assert bool((o == 2).all())
