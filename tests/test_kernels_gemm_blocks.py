"""The float32 product paths of kernels/gemm around their boundaries, against
torch: one to three rows through the kernel's wide blocks (up to 8 vectors
of 16 columns, so n around 128 and past it, not a multiple of 16); B read in
place with rows 4 KB apart, which the own kernel packs from PACK_MIN_M rows
(m around 32, k past the rows L2 holds at that stride, B a slice of a wider
matrix); A stored transposed around the 64 rows up to which the own kernel
reads it in place; two or three rows against W^T through the two-vector dot
products; and the same bits on one thread and two."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def restore_threads():
    before = mt.get_num_threads()
    yield
    mt.set_num_threads(before)


def _check(got, want, k):
    got = got.numpy()
    want = want.double().numpy() if hasattr(want, "double") else want
    tol = 2e-5 * max(1, k) ** 0.5
    scale = max(1.0, float(np.abs(want).max()))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=10 * tol, atol=tol * scale)


def _pair(shape, seed):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return a, torch.from_numpy(a)


def _both_threads(f):
    got = []
    for threads in (1, 2):
        mt.set_num_threads(threads)
        got.append(f().numpy())
    np.testing.assert_array_equal(got[0], got[1])
    return mt.tensor(got[0])


@pytest.mark.parametrize("n", [16, 100, 127, 128, 129, 144, 300, 500, 4096])
@pytest.mark.parametrize("m", [1, 2, 3, 4])
@pytest.mark.parametrize("k", [5, 64, 500])
def test_few_rows_wide_blocks(m, k, n):
    a, ta = _pair((m, k), m * 7 + k)
    b, tb = _pair((k, n), n)
    _check(_both_threads(lambda: mt.tensor(a) @ mt.tensor(b)), ta @ tb, k)
    at, tat = _pair((k, m), m + n)
    _check(mt.tensor(at).t() @ mt.tensor(b), tat.t() @ tb, k)
    bias, tbias = _pair((n,), 3)
    _check(mt.addmm(mt.tensor(bias), mt.tensor(a), mt.tensor(b)), torch.addmm(tbias, ta, tb), k)


@pytest.mark.parametrize("m", [8, 31, 32, 33, 100])
@pytest.mark.parametrize("k,n,ld", [(1024, 1024, 1024), (600, 1000, 1024), (513, 77, 1024),
                                    (700, 512, 512)])
def test_b_rows_4kb_apart(m, k, n, ld):
    a, ta = _pair((m, k), m + k)
    wide, twide = _pair((k, ld), k + ld)
    mb, tb = mt.tensor(wide)[:, :n], twide[:, :n]
    _check(_both_threads(lambda: mt.tensor(a) @ mb), ta @ tb, k)
    bias, tbias = _pair((n,), n)
    _check(mt.addmm(mt.tensor(bias), mt.tensor(a), mb), torch.addmm(tbias, ta, tb), k)
    c0, tc0 = _pair((m, n), m)
    _check(mt.addmm(mt.tensor(c0), mt.tensor(a), mb, beta=0.5, alpha=2.0),
           torch.addmm(tc0, ta, tb, beta=0.5, alpha=2.0), k)


@pytest.mark.parametrize("m", [63, 64, 65, 200])
@pytest.mark.parametrize("k,n", [(784, 512), (300, 1030), (1024, 64)])
def test_a_stored_transposed(m, k, n):
    at, tat = _pair((k, m), m * k)
    b, tb = _pair((k, n), n)
    _check(_both_threads(lambda: mt.tensor(at).t() @ mt.tensor(b)), tat.t() @ tb, k)
    w, tw = _pair((n, k), n + 1)
    _check(mt.tensor(at).t() @ mt.tensor(w).t(), tat.t() @ tw.t(), k)


@pytest.mark.parametrize("m", [2, 3, 6, 7])
@pytest.mark.parametrize("k,n", [(7, 33), (64, 4096), (500, 500), (784, 512), (1001, 130)])
def test_few_rows_against_w_t(m, k, n):
    x, tx = _pair((m, k), m + k)
    w, tw = _pair((n, k), n + k)
    _check(_both_threads(lambda: mt.tensor(x) @ mt.tensor(w).t()), tx @ tw.t(), k)
    bias, tbias = _pair((n,), n)
    _check(mt.nn.functional.linear(mt.tensor(x), mt.tensor(w), mt.tensor(bias)),
           torch.nn.functional.linear(tx, tw, tbias), k)
    x64, w64 = mt.tensor(x.astype(np.float64)), mt.tensor(w.astype(np.float64))
    got = (x64 @ w64.t()).numpy()
    np.testing.assert_allclose(got, x.astype(np.float64) @ w.astype(np.float64).T,
                               rtol=1e-12, atol=1e-11 * k)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k", [15, 17, 255, 1001])
@pytest.mark.parametrize("n", [31, 130, 256])
@pytest.mark.parametrize("m", list(range(1, 17)))
def test_dots_against_w_t(m, n, k, dtype):
    """Up to 16 rows against W^T (the dots of one, two and four vectors at a
    time, a k short of one register, a masked tail chunk, an odd row count
    of W), x read in place and stored transposed; float64 against NumPy's
    float64 product, float32 against torch's."""
    x = np.random.default_rng(m * 100 + k).standard_normal((m, k)).astype(dtype)
    w = np.random.default_rng(n + k).standard_normal((n, k)).astype(dtype)
    mx, mw = mt.tensor(x), mt.tensor(w)
    xt = mt.tensor(np.ascontiguousarray(x.T))
    want = (torch.from_numpy(x) @ torch.from_numpy(w).t()).numpy()
    if dtype == np.float64:
        want = x @ w.T
    _check(_both_threads(lambda: mx @ mw.t()), want, k)
    # x stored transposed runs BLAS past a few rows, whose bits follow its threads
    _check(xt.t() @ mw.t(), want, k)
    bias = np.random.default_rng(n).standard_normal(n).astype(dtype)
    _check(mt.nn.functional.linear(mx, mw, mt.tensor(bias)), want + bias, k)
    if m < 4:
        _check(_both_threads(lambda: mx @ mt.tensor(np.ascontiguousarray(w.T))), want, k)
