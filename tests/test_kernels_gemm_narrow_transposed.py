"""Two of the GEMM driver's paths: A stored transposed past a few rows is
packed row-major for our kernel (A.t() @ B), and products narrower than a
column unit of the kernel (n < 16: Linear(512 -> 10)) with many rows go to
the dot products in chunks of rows, split over the threads. Both give
torch's values (sums in another order: to rounding) and the same bits at 1
and 2 threads, for odd sizes, operands transposed or strided, alpha/beta
and batches."""
import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

DTYPES = [torch.float32, torch.float64]


@pytest.fixture(autouse=True)
def restore_threads():
    before = minitorch.get_num_threads()
    yield
    minitorch.set_num_threads(before)


def mt_of(t):
    return minitorch.tensor(t.detach().numpy())


def close(got, want, k):
    got = got.numpy()
    want = want.numpy()
    assert got.shape == want.shape
    tol = (1e-5 if want.dtype == np.float32 else 1e-12) * max(1, k) ** 0.5
    np.testing.assert_allclose(got, want, rtol=tol * 10, atol=tol)


def both_threads(fn):
    """fn()'s result at 1 and 2 threads: the same bits, returned once."""
    out = []
    for nt in (1, 2):
        minitorch.set_num_threads(nt)
        out.append(fn().numpy())
    np.testing.assert_array_equal(out[0], out[1])
    return minitorch.tensor(out[0])


def strided(t):
    """t's values as every other column of a wider tensor."""
    wide = torch.zeros(*t.shape[:-1], 2 * t.shape[-1] + 1, dtype=t.dtype)
    wide[..., 1::2] = t
    return wide, (lambda w: w[..., 1::2])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,k,n", [(65, 7, 33), (97, 300, 130), (256, 64, 700),
                                   (300, 513, 47), (1030, 96, 17)])
def test_transposed_a_packed(dtype, m, k, n):
    g = torch.Generator().manual_seed(m * 7 + k + n)
    at = torch.randn(k, m, generator=g, dtype=dtype)
    b = torch.randn(k, n, generator=g, dtype=dtype)
    ma, mb = mt_of(at), mt_of(b)
    got = both_threads(lambda: ma.t() @ mb)
    close(got, at.t() @ b, k)
    # B stored transposed too
    bt = b.t().contiguous()
    mbt = mt_of(bt)
    close(both_threads(lambda: ma.t() @ mbt.t()), at.t() @ bt.t(), k)


@pytest.mark.parametrize("dtype", DTYPES)
def test_transposed_a_addmm_and_batches(dtype):
    g = torch.Generator().manual_seed(5)
    m, k, n = 131, 77, 90
    at = torch.randn(k, m, generator=g, dtype=dtype)
    b = torch.randn(k, n, generator=g, dtype=dtype)
    c = torch.randn(m, n, generator=g, dtype=dtype)
    want = torch.addmm(c, at.t(), b, beta=0.5, alpha=-1.5)
    got = both_threads(lambda: minitorch.addmm(mt_of(c), mt_of(at).t(), mt_of(b), beta=0.5,
                                               alpha=-1.5))
    close(got, want, k)
    # bias added in place of beta 1 (float32's accumulating kernel)
    want = torch.addmm(c, at.t(), b)
    close(both_threads(lambda: minitorch.addmm(mt_of(c), mt_of(at).t(), mt_of(b))), want, k)
    # a batch of transposed As
    ab = torch.randn(3, k, m, generator=g, dtype=dtype)
    bb = torch.randn(3, k, n, generator=g, dtype=dtype)
    want = ab.transpose(1, 2) @ bb
    got = both_threads(lambda: mt_of(ab).transpose(1, 2) @ mt_of(bb))
    close(got, want, k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,k,n", [(17, 512, 10), (64, 33, 15), (65, 512, 10), (200, 64, 3),
                                   (513, 100, 9), (1500, 40, 2)])
def test_narrow_product_many_rows(dtype, m, k, n):
    g = torch.Generator().manual_seed(m + k * 3 + n)
    x = torch.randn(m, k, generator=g, dtype=dtype)
    w = torch.randn(n, k, generator=g, dtype=dtype)
    bias = torch.randn(n, generator=g, dtype=dtype)
    mx, mw, mbias = mt_of(x), mt_of(w), mt_of(bias)
    close(both_threads(lambda: mx @ mw.t()), x @ w.t(), k)
    want = torch.nn.functional.linear(x, w, bias)
    close(both_threads(lambda: minitorch.nn.functional.linear(mx, mw, mbias)), want, k)
    # rows of x strided: packed for the dots, the same values
    wide, view = strided(x)
    mwide = mt_of(wide)
    close(both_threads(lambda: view(mwide) @ mw.t()), view(wide) @ w.t(), k)
    # C not contiguous (out= a transposed buffer) and alpha/beta
    c = torch.randn(n, m, generator=g, dtype=dtype)
    want = torch.addmm(c.t(), x, w.t(), beta=2.0, alpha=0.25)
    got = both_threads(lambda: minitorch.addmm(mt_of(c).t(), mx, mw.t(), beta=2.0, alpha=0.25))
    close(got, want, k)


def test_narrow_product_batched_and_3d():
    g = torch.Generator().manual_seed(11)
    x = torch.randn(4, 70, 256, generator=g)
    w = torch.randn(12, 256, generator=g)
    close(both_threads(lambda: mt_of(x) @ mt_of(w).t()), x @ w.t(), 256)
    xb = torch.randn(3, 90, 64, generator=g)
    wb = torch.randn(3, 5, 64, generator=g)
    close(both_threads(lambda: mt_of(xb) @ mt_of(wb).transpose(1, 2)),
          xb @ wb.transpose(1, 2), 64)
