"""The thread pool behind large kernels: every thread count, concurrent
callers and forked children get the same answers as one thread."""
import os
import threading

import numpy as np
import pytest

import minitorch as mt
from minitorch.testing import assert_close


@pytest.fixture
def restore_threads():
    old = mt.get_num_threads()
    yield
    mt.set_num_threads(old)


def big_inputs():
    rng = np.random.default_rng(7)
    a = rng.standard_normal(3_000_001).astype(np.float32)
    b = rng.standard_normal((1500, 1024)).astype(np.float32)
    return a, b


@pytest.mark.parametrize("threads", [1, 2, 3, 5])
def test_large_kernels_agree_for_every_thread_count(restore_threads, threads):
    a, b = big_inputs()
    mt.set_num_threads(threads)
    x, y = mt.from_numpy(a), mt.from_numpy(b)
    np.testing.assert_array_equal((x + x).numpy(), a + a)
    np.testing.assert_allclose(x.exp().numpy(), np.exp(a), rtol=1e-6)
    assert_close(x.sum(), mt.tensor(float(a.astype(np.float64).sum())), rtol=1e-5, atol=1e-3)
    assert_close(y.sum(-1), mt.from_numpy(b.astype(np.float64).sum(-1).astype(np.float32)),
                 rtol=1e-5, atol=1e-4)
    assert_close(y.mean(0), mt.from_numpy(b.astype(np.float64).mean(0).astype(np.float32)))


def test_thread_count_must_be_positive(restore_threads):
    with pytest.raises(RuntimeError, match="Number of threads must be positive, got 0"):
        mt.set_num_threads(0)


def test_concurrent_python_threads_get_their_own_answers(restore_threads):
    mt.set_num_threads(2)
    a, _ = big_inputs()
    expected = {k: a * k for k in range(1, 7)}
    got, errors = {}, []

    def work(k):
        try:
            x = mt.from_numpy(a)
            for _ in range(5):
                got[k] = (x * float(k)).numpy()
        except Exception as e:  # noqa: BLE001  reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in expected]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for k, v in expected.items():
        np.testing.assert_array_equal(got[k], v)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_runs_parallel_kernels(restore_threads):
    mt.set_num_threads(2)
    a, b = big_inputs()
    x = mt.from_numpy(a)
    (x + x).sum()  # the parent's pool exists before the fork
    pid = os.fork()
    if pid == 0:
        ok = np.array_equal((x + x).numpy(), a + a) and np.allclose(
            mt.from_numpy(b).sum(-1).numpy(), b.sum(-1), rtol=1e-4, atol=1e-3)
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,cols", [((50, 300), 100), ((7, 5000), 4999), ((4000, 3), 3),
                                        ((2, 3, 70000), 70000)])
def test_row_sums_of_strided_rows(dtype, shape, cols):
    """Each output sums one contiguous run; the runs need not be adjacent."""
    rng = np.random.default_rng(1)
    base = rng.standard_normal(shape).astype(dtype)
    view = base[..., :cols]
    x = mt.from_numpy(base)[..., :cols]
    want = view.astype(np.float64)
    # float32 sums of 10^5 values carry about 1e-4 of rounding, as torch's do
    tol = dict(rtol=1e-5, atol=1e-4) if dtype == np.float32 else {}
    assert_close(x.sum(-1), mt.from_numpy(want.sum(-1).astype(dtype)), **tol)
    assert_close(x.mean(-1), mt.from_numpy(want.mean(-1).astype(dtype)), **tol)
    assert_close(x.sum(-1, keepdim=True), mt.from_numpy(want.sum(-1, keepdims=True).astype(dtype)),
                 **tol)
