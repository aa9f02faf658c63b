"""Matrix-vector products (kernels/gemm/gemv.c): a product of one row (x @ W,
x @ W^T, nn.Linear at batch 1) or one column (mv, W @ x), the dot products
of M's rows or the axpys of its columns, split over our threads by output
element. Against torch to rounding for k from 1 to 5000 (powers of two, one
either side, odd), M read in place, transposed or strided and the vector
strided, float32 and float64, with alpha and beta (addmv), and bitwise the
same at 1 and 2 threads: a thread's share is whole output elements, never a
part of one's sum."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

KS = [1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 500,
      511, 512, 513, 784, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 5000]
DTYPES = {np.float32: torch.float32, np.float64: torch.float64}


@pytest.fixture(autouse=True)
def restore_threads():
    before = mt.get_num_threads()
    yield
    mt.set_num_threads(before)


def layouts(a):
    """a (2-D) as torch and minitorch tensors in the same layout: stored as
    is, stored transposed, and every other column of a wider matrix."""
    wide = np.zeros((a.shape[0], 2 * a.shape[1] + 1), a.dtype)
    wide[:, 1::2] = a
    t = np.ascontiguousarray(a.T)
    return {"c": (torch.from_numpy(a), mt.tensor(a)),
            "t": (torch.from_numpy(t).t(), mt.tensor(t).t()),
            "s": (torch.from_numpy(wide)[:, 1::2], mt.tensor(wide)[:, 1::2])}


def vectors(x):
    wide = np.zeros(3 * x.shape[0], x.dtype)
    wide[::3] = x
    return {"c": (torch.from_numpy(x), mt.tensor(x)),
            "s": (torch.from_numpy(wide)[::3], mt.tensor(wide)[::3])}


def check(got, want, k):
    got = got.detach().numpy()
    want = want.detach().numpy()
    assert got.shape == want.shape and got.dtype == want.dtype
    tol = (4e-6 if want.dtype == np.float32 else 1e-14) * max(1, k) ** 0.5
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=tol * 10, atol=tol * scale)


def both_threads(f):
    """f() at 1 and at 2 threads, asserted bitwise equal; the 2-thread one."""
    out = []
    for nt in (1, 2):
        mt.set_num_threads(nt)
        out.append(f().detach().numpy())
    np.testing.assert_array_equal(out[0], out[1])
    assert out[0].tobytes() == out[1].tobytes()
    return mt.tensor(out[1])


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("r", [5, 300, 1100])
def test_one_column_and_one_row(r, k, dtype):
    """M (r x k) @ x and x @ M^T (k x r) and x @ N (N k x r), each layout."""
    if r == 1100 and k > 1100:
        pytest.skip("covered at r = 300")
    g = np.random.default_rng(r * 7919 + k)
    m = g.standard_normal((r, k)).astype(dtype)
    n = g.standard_normal((k, r)).astype(dtype)
    x = g.standard_normal(k).astype(dtype)
    for tm, mm in layouts(m).values():
        for tx, mx in vectors(x).values():
            check(both_threads(lambda: mt.mv(mm, mx)), torch.mv(tm, tx), k)
            check(both_threads(lambda: mx @ mm.t()), tx @ tm.t(), k)
    for tn, mn in layouts(n).values():
        tx, mx = vectors(x)["c"]
        check(both_threads(lambda: mx.unsqueeze(0) @ mn), tx.unsqueeze(0) @ tn, k)
        check(both_threads(lambda: mx @ mn), tx @ tn, k)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("k", [1, 17, 512, 785, 4097])
def test_addmv_linear_and_out(k, dtype):
    """alpha and beta (beta 0 ignores a NaN in the input), a bias added by
    nn.Linear at batch 1, and a strided out=."""
    g = np.random.default_rng(k)
    r = 513
    m = g.standard_normal((r, k)).astype(dtype)
    x = g.standard_normal(k).astype(dtype)
    y = g.standard_normal(r).astype(dtype)
    tm, mm = torch.from_numpy(m), mt.tensor(m)
    tx, mx = torch.from_numpy(x), mt.tensor(x)
    ty, my = torch.from_numpy(y), mt.tensor(y)
    check(both_threads(lambda: mt.addmv(my, mm, mx, beta=0.5, alpha=-2.0)),
          torch.addmv(ty, tm, tx, beta=0.5, alpha=-2.0), k)
    nan = np.full(r, np.nan, dtype)
    check(both_threads(lambda: mt.addmv(mt.tensor(nan), mm, mx, beta=0.0)),
          torch.addmv(torch.from_numpy(nan), tm, tx, beta=0.0), k)
    check(both_threads(lambda: mt.nn.functional.linear(mx.unsqueeze(0), mm, my)),
          torch.nn.functional.linear(tx.unsqueeze(0), tm, ty), k)
    tout = torch.zeros(2 * r, dtype=DTYPES[dtype])[::2]

    def into():
        mout = mt.zeros(2 * r, dtype=mm.dtype)[::2]
        mt.mv(mm, mx, out=mout)
        return mout
    check(both_threads(into), torch.mv(tm, tx, out=tout), k)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_special_values_stay_in_their_element(dtype):
    """An inf or NaN in one row of M reaches only that output element, at any
    split (the masked tail chunk adds exact zeros, never 0 * inf)."""
    r, k = 700, 37
    m = np.ones((r, k), dtype)
    m[3, 5] = np.inf
    m[650, 36] = np.nan
    x = np.ones(k, dtype)
    got = both_threads(lambda: mt.mv(mt.tensor(m), mt.tensor(x))).numpy()
    want = torch.mv(torch.from_numpy(m), torch.from_numpy(x)).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_gradients_of_mv(dtype):
    g = np.random.default_rng(3)
    m = g.standard_normal((300, 129)).astype(dtype)
    x = g.standard_normal(129).astype(dtype)
    tm, tx = (torch.from_numpy(v).requires_grad_() for v in (m, x))
    mm, mx = (mt.tensor(v, requires_grad=True) for v in (m, x))
    torch.mv(tm, tx).sum().backward()
    mt.mv(mm, mx).sum().backward()
    check(mm.grad, tm.grad, 1)
    check(mx.grad, tx.grad, 300)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("m,k,n", [(2, 500, 500), (3, 64, 4100), (2, 1024, 1030), (3, 1100, 1001),
                                   (2, 7, 33)])
def test_few_rows_against_row_contiguous_b(m, k, n, dtype):
    """2 and 3 rows against B read in place, split by columns: B below and
    above a million elements (the kernel, or axpys streaming it), n past a
    whole unit, A stored as is and transposed, with a bias (addmm)."""
    g = np.random.default_rng(m * k + n)
    a = g.standard_normal((m, k)).astype(dtype)
    b = g.standard_normal((k, n)).astype(dtype)
    bias = g.standard_normal(n).astype(dtype)
    tb, mb = torch.from_numpy(b), mt.tensor(b)
    for ta, ma in list(layouts(a).values())[:2]:
        check(both_threads(lambda: ma @ mb), ta @ tb, k)
        check(both_threads(lambda: mt.addmm(mt.tensor(bias), ma, mb)),
              torch.addmm(torch.from_numpy(bias), ta, tb), k)
