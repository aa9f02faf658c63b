"""Products whose B the own kernel packs (x @ W^T: B's columns contiguous),
a block of columns at a time that stays in L2, the blocks split over the
threads; short row blocks (m not a multiple of 4) run through the kernel;
and the rule that sends a few rows to dot products or to one stream over a
large B instead (kernels/gemm/gemm.c). Values against a float64 product,
on each side of every boundary: B one block or several (the last one
narrow, past the last whole 16 columns), m around the dots/pack crossover
(m < 2 + k / 64), every row count of a short block, addmm's bias added by
the kernel, other alpha and beta, a transposed out=; and the same bits on
one thread and two."""
import numpy as np
import pytest

import minitorch as mt


def _check(got, want, k):
    tol = 2e-5 * max(1, k) ** 0.5
    scale = max(1.0, float(np.abs(want).max()))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=10 * tol, atol=tol * scale)


def _operands(m, k, n, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(dtype)
    w = rng.standard_normal((n, k)).astype(dtype)
    return a, w


# (k, n): one block (k * n * 4 <= 256 KB), several (last one narrow), a
# power-of-two width whose packed rows are padded, short k
KN = [(64, 4096), (64, 500), (784, 512), (500, 500), (1024, 1030), (130, 33), (256, 1024)]


@pytest.mark.parametrize("k,n", KN)
@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 6, 7, 9, 12, 13, 16, 17, 19, 64])
def test_x_at_w_t_float32(m, k, n):
    a, w = _operands(m, k, n, np.float32, m * 1000 + k + n)
    want = a.astype(np.float64) @ w.astype(np.float64).T
    _check((mt.tensor(a) @ mt.tensor(w).t()).numpy(), want, k)


@pytest.mark.parametrize("k,n", [(64, 4096), (784, 512), (1024, 1030)])
@pytest.mark.parametrize("m", [3, 8, 13])
def test_x_at_w_t_float64(m, k, n):
    a, w = _operands(m, k, n, np.float64, m + k + n)
    want = a @ w.T
    got = (mt.tensor(a) @ mt.tensor(w).t()).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-11 * k)


@pytest.mark.parametrize("k,n", [(64, 4096), (784, 512), (1024, 1030), (130, 33)])
@pytest.mark.parametrize("m", [5, 16, 33])
def test_addmm_bias_alpha_beta_and_transposed_out(m, k, n):
    a, w = _operands(m, k, n, np.float32, 7 * m + k)
    rng = np.random.default_rng(m)
    bias = rng.standard_normal(n).astype(np.float32)
    c0 = rng.standard_normal((m, n)).astype(np.float32)
    prod = a.astype(np.float64) @ w.astype(np.float64).T
    ma, mw = mt.tensor(a), mt.tensor(w).t()
    _check(mt.addmm(mt.tensor(bias), ma, mw).numpy(), prod + bias, k)
    _check(mt.addmm(mt.tensor(c0), ma, mw, beta=2.0, alpha=0.5).numpy(),
           2.0 * c0 + 0.5 * prod, k)
    out = mt.empty(n, m).t()
    mt.mm(ma, mw, out=out)
    _check(out.numpy(), prod, k)
    lin = mt.nn.functional.linear(ma, mt.tensor(w), mt.tensor(bias))
    _check(lin.numpy(), prod + bias, k)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_products_with_packed_b(dtype):
    rng = np.random.default_rng(3)
    a = rng.integers(-50, 50, (7, 90)).astype(dtype)
    w = rng.integers(-50, 50, (130, 90)).astype(dtype)
    got = (mt.tensor(a) @ mt.tensor(w).t()).numpy()
    np.testing.assert_array_equal(got, a @ w.T)


@pytest.mark.parametrize("k,n", [(1024, 1024), (2048, 512), (784, 512), (64, 4096)])
@pytest.mark.parametrize("m", [2, 3])
def test_few_rows_against_contiguous_b(m, k, n):
    rng = np.random.default_rng(k + m)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    _check((mt.tensor(a) @ mt.tensor(b)).numpy(), a.astype(np.float64) @ b, k)


@pytest.mark.parametrize("m,k,n", [(4, 64, 4096), (13, 784, 512), (64, 1024, 1030),
                                   (256, 500, 500), (3, 130, 33)])
def test_column_blocks_over_threads_change_no_bit(m, k, n):
    a, w = _operands(m, k, n, np.float32, m * k)
    bias = mt.tensor(np.random.default_rng(1).standard_normal(n).astype(np.float32))
    ma, mw = mt.tensor(a), mt.tensor(w).t()
    before = mt.get_num_threads()
    got = []
    try:
        for threads in (1, 2):
            mt.set_num_threads(threads)
            got.append([(ma @ mw).numpy(), mt.addmm(bias, ma, mw).numpy()])
    finally:
        mt.set_num_threads(before)
    for x, y in zip(*got):
        np.testing.assert_array_equal(x, y)
    _check(got[0][0], a.astype(np.float64) @ w.astype(np.float64).T, k)
