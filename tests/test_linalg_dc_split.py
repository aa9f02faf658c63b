"""linalg.eigh and linalg.svd from the size where the first divide-and-conquer
split of the tridiagonal and bidiagonal solvers is ours
(csrc/kernels/lapack/tridiag_eigen.c, bidiag_svd.c: the halves solved on two
threads, merged by LAPACK's laed1 and lasd1), against torch: sizes on both
sides of the split's threshold and odd ones, spectra with repeated values
(the merge deflates them), a torn matrix whose coupling is zero (diagonal
input) and one or two threads."""
import numpy as np
import pytest

import minitorch as mt
from linalg_pairs import to_np
from test_linalg_eigh_svd_blocked import _check_eigh, _check_svd, _pair, _sym

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("n", [255, 256, 257, 301])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eigh_split_sizes(n, dtype):
    _check_eigh(*_pair(_sym((n, n), n), dtype), dtype)


@pytest.mark.parametrize("shape", [(255, 255), (256, 256), (257, 257), (300, 256), (256, 300),
                                   (401, 300)])
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_svd_split_shapes(shape, full, dtype):
    a = np.random.default_rng(sum(shape)).standard_normal(shape)
    _check_svd(*_pair(a, dtype), dtype, full)


def _orthogonal(n, seed):
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, n)))
    return q


def _check_factors(vals, vecs, a, eps, n):
    np.testing.assert_allclose(a @ vecs, vecs * vals, rtol=0, atol=50 * n * eps * np.abs(vals).max())
    np.testing.assert_allclose(vecs.T @ vecs, np.eye(n), rtol=0, atol=50 * n * eps)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eigh_repeated_values(dtype):
    # four distinct values, each 75 times: most of the merge deflates
    n = 300
    q = _orthogonal(n, 1)
    spectrum = np.repeat([-2.0, 0.5, 1.0, 3.0], n // 4)
    a = (q * spectrum) @ q.T
    a = (a + a.T) / 2
    L, V = mt.linalg.eigh(mt.tensor(a, dtype=getattr(mt, dtype)))
    w, v = to_np(L).astype(np.float64), to_np(V).astype(np.float64)
    eps = np.finfo(dtype).eps
    wt = torch.linalg.eigvalsh(torch.tensor(a, dtype=getattr(torch, dtype))).double().numpy()
    np.testing.assert_allclose(w, wt, rtol=0, atol=50 * n * eps * 3)
    _check_factors(w, v, a.astype(dtype).astype(np.float64), eps, n)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_svd_repeated_values(dtype):
    n = 300
    spectrum = np.repeat([4.0, 2.0, 1.0], n // 3)
    a = (_orthogonal(n, 2) * spectrum) @ _orthogonal(n, 3).T
    U, S, Vh = mt.linalg.svd(mt.tensor(a, dtype=getattr(mt, dtype)))
    u, s, vh = (to_np(x).astype(np.float64) for x in (U, S, Vh))
    eps = np.finfo(dtype).eps
    st = torch.linalg.svdvals(torch.tensor(a, dtype=getattr(torch, dtype))).double().numpy()
    np.testing.assert_allclose(s, st, rtol=0, atol=50 * n * eps * 4)
    a = a.astype(dtype).astype(np.float64)
    np.testing.assert_allclose((u * s) @ vh, a, rtol=0, atol=50 * n * eps * 4)
    for q in (u.T @ u, vh @ vh.T):
        np.testing.assert_allclose(q, np.eye(n), rtol=0, atol=50 * n * eps)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_diagonal_input(dtype):
    # the reductions leave a zero coupling where the solvers tear the matrix
    n = 300
    diag = np.random.default_rng(4).standard_normal(n)
    a = np.diag(diag)
    L, V = mt.linalg.eigh(mt.tensor(a, dtype=getattr(mt, dtype)))
    np.testing.assert_allclose(to_np(L), np.sort(diag).astype(dtype), rtol=0, atol=1e-6)
    np.testing.assert_allclose(np.abs(to_np(V)), np.abs(np.eye(n)[:, np.argsort(diag)]), atol=1e-6)
    S = mt.linalg.svdvals(mt.tensor(a, dtype=getattr(mt, dtype)))
    U, S2, Vh = mt.linalg.svd(mt.tensor(a, dtype=getattr(mt, dtype)))
    expect = np.sort(np.abs(diag))[::-1].astype(dtype)
    np.testing.assert_allclose(to_np(S), expect, rtol=0, atol=1e-6)
    np.testing.assert_allclose(to_np(S2), expect, rtol=0, atol=1e-6)
    u, vh = to_np(U).astype(np.float64), to_np(Vh).astype(np.float64)
    np.testing.assert_allclose((u * to_np(S2)) @ vh, a, rtol=0, atol=1e-5)


@pytest.mark.parametrize("threads", [1, 2])
def test_split_thread_counts(threads):
    before = mt.get_num_threads()
    mt.set_num_threads(threads)
    try:
        _check_eigh(*_pair(_sym((300, 300), 5), "float32"), "float32")
        a = np.random.default_rng(6).standard_normal((300, 300))
        _check_svd(*_pair(a, "float32"), "float32", False)
    finally:
        mt.set_num_threads(before)
