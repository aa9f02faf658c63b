"""What the runner does around every impl (csrc/ops/runtime/unlock.h).

It pins the storage of every tensor argument, however many there are, and an
impl leaves the GIL only for a kernel long enough to be worth it: a tiny op
keeps it (dropping and retaking it cost a 1-element sum a sixth of its time),
a long one lets other threads run.
"""
import sys
import threading

import numpy as np
import pytest

import minitorch as mt


@pytest.mark.parametrize("n", [1, 6, 7, 40])
def test_calls_with_many_tensors_pin_them_all(n):
    parts = [np.arange(k, k + 3, dtype=np.float32) for k in range(n)]
    got = mt.cat([mt.tensor(p) for p in parts])
    np.testing.assert_array_equal(got.numpy(), np.concatenate(parts))
    got = mt.stack([mt.tensor(p) for p in parts], dim=1)
    np.testing.assert_array_equal(got.numpy(), np.stack(parts, axis=1))


def test_a_row_with_more_tensor_parameters_than_the_inline_room():
    # addcmul_ and lstm cells take few; _rnn_layer_backward takes nine
    rnn = mt.nn.LSTM(3, 4)
    x = mt.randn(5, 2, 3, requires_grad=True)
    out, _ = rnn(x)
    out.sum().backward()
    assert x.grad.shape == (5, 2, 3)
    assert bool(x.grad.abs().sum() > 0)


@pytest.fixture
def spinner():
    """A thread that counts while it holds the GIL. With a switch interval of
    a quarter second it runs only when the main thread lets the GIL go."""
    ticks, stop, ready = [0], threading.Event(), threading.Event()

    def spin():
        ready.set()
        while not stop.is_set():
            ticks[0] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.25)
    t = threading.Thread(target=spin)
    t.start()
    ready.wait()
    try:
        yield ticks
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(old)


def test_tiny_ops_keep_the_gil(spinner):
    x = mt.ones(1)
    y = mt.ones(3, 4)
    ops = [x.sum, lambda: x + x, x.relu, lambda: y.softmax(1), lambda: y.cumsum(0),
           lambda: y @ y.t(), lambda: y.sort(1)]
    for op in ops:  # the first product loads BLAS, which may let the GIL go
        op()
    before = spinner[0]
    for _ in range(200):
        for op in ops:
            op()
    assert spinner[0] == before


def test_long_kernels_let_other_threads_run(spinner):
    big = mt.ones(1 << 24)
    moved = 0
    for _ in range(50):  # on a busy machine the spinner may need many chances to wake up
        before = spinner[0]
        big.sum()
        moved = spinner[0] - before
        if moved:
            break
    assert moved > 0
