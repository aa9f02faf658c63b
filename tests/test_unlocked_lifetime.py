"""Kernels that release the GIL keep the memory they use alive.

While a big kernel runs without the GIL, another thread replaces the data of
its operands (x.data = ...) in a loop, dropping the only reference to the
storage the kernel is reading or writing. The kernel must finish on the
memory it started with: no crash, no ASan report (tools/asan_run.sh runs
this file), and each result computed from one consistent input.
"""
import sys
import threading
import time

import pytest

import minitorch as mt

ROUNDS = 12


def race(shared, call, replacements):
    """Runs call() ROUNDS times while a thread assigns each of replacements()
    in turn to shared[name].data. Returns the results and the count of
    replacements made."""
    stop, started = threading.Event(), threading.Event()
    made = [0]

    def replace():
        started.set()
        while not stop.is_set():
            for name, make in replacements.items():
                shared[name].data = make(made[0])
                made[0] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    t = threading.Thread(target=replace)
    t.start()
    started.wait()
    results = []
    deadline = time.monotonic() + 20
    try:
        # on a busy machine the thread may need more rounds to get in
        while len(results) < ROUNDS or (made[0] == 0 and time.monotonic() < deadline):
            try:
                results.append(call())
            except RuntimeError as e:  # a shape the replacement changed
                assert "size" in str(e) or "shape" in str(e), e
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(old)
    return results, made[0]


N = 1 << 21


def const(n):
    """A fresh float tensor of n equal values, different per round."""
    return lambda i: mt.full((n,), float(i % 7 + 1))


@pytest.mark.parametrize("op", [mt.sin, mt.exp, mt.neg])
def test_unary_reads_the_storage_it_started_with(op):
    x = mt.full((N,), 1.0)
    results, made = race({"x": x}, lambda: op(x), {"x": const(N)})
    assert made > 0
    for r in results:
        # one input value throughout: the kernel never saw a new storage half-way
        assert r.min().item() == r.max().item()


def test_binary_and_out_target():
    x, y, o = mt.full((N,), 1.0), mt.full((N,), 2.0), mt.empty(N)
    results, made = race({"x": x, "y": y}, lambda: mt.add(x, y), {"x": const(N)})
    assert made > 0
    for r in results:
        assert r.min().item() == r.max().item()
    # the out= tensor's storage too may be replaced while the kernel writes
    # it (its values are then the replacement's: only memory safety to check)
    results, made = race({"x": x, "o": o}, lambda: mt.add(x, y, out=o),
                         {"x": const(N), "o": lambda i: mt.empty(N)})
    assert made > 0 and len(results) >= ROUNDS


def test_sizes_changing_under_reductions():
    x = mt.ones(N)
    sizes = [N, N // 2, 3 * N // 4]
    rep = {"x": lambda i: mt.ones(sizes[i % 3])}
    for call in (lambda: x.sum(), lambda: x.cumsum(0), lambda: x.cummax(0)[0],
                 lambda: x.sort()[0], lambda: x.max()):
        results, made = race({"x": x}, call, rep)
        assert made > 0 and results
    r = x.sum().item()
    assert r == x.numel()


def test_matmul_and_nn_kernels():
    F = mt.nn.functional
    a, b = mt.ones(384, 384), mt.ones(384, 384)
    results, made = race({"a": a, "b": b}, lambda: a @ b,
                         {"a": lambda i: mt.full((384, 384), float(i % 3 + 1)),
                          "b": lambda i: mt.ones(384, 384)})
    assert made > 0
    for r in results:
        assert r.min().item() == r.max().item()
    img, w, bias = mt.ones(4, 8, 64, 64), mt.ones(8, 8, 3, 3), mt.ones(8)
    rep = {"img": lambda i: mt.ones(4, 8, 64, 64), "w": lambda i: mt.ones(8, 8, 3, 3),
           "bias": lambda i: mt.full((8,), 2.0)}
    for call in (lambda: F.conv2d(img, w, bias), lambda: F.max_pool2d(img, 2),
                 lambda: F.avg_pool2d(img, 2), lambda: F.adaptive_avg_pool2d(img, 5)):
        results, made = race({"img": img, "w": w, "bias": bias}, call, rep)
        assert made > 0 and results

