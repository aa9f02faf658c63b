"""Products of a row-contiguous B on the register-blocked kernel (kernels/gemm/
gemm.c, gemm_small.c) around the rules that decide how it reads B: fewer rows
than columns split over two threads by columns of B (a single block of rows
was not split at all), more by rows; below PACK_MIN_M (128) rows B is read in
place, in depth chunks where its rows are a power of two of cache lines apart
and longer than L2 holds of a column strip (n = 1024: 4 KB rows, k past 512;
n = 2048: k past 256), from 128 rows packed; two and three rows run the
kernel's wide blocks, as wide as leaves a register for each vector of B.
Against torch to rounding, float32 and float64, A read in place or stored
transposed, with a bias the kernel adds (addmm), other alpha and beta, and
an out= C; bitwise the same at 1 and 2 threads, and at every kernel level
(a fresh process per level) against torch."""
import textwrap

import numpy as np
import pytest

import minitorch as mt
from kernel_levels import LEVELS, run_at_level

torch = pytest.importorskip("torch")

DTYPES = {np.float32: torch.float32, np.float64: torch.float64}
# (m, k, n): rows either side of one block (8) and of PACK_MIN_M, depths
# either side of the chunked ones, widths with and without a remainder past
# the last 16 columns, and fewer or more rows than columns.
SHAPES = [(2, 500, 500), (3, 500, 500), (3, 64, 4096), (2, 1024, 1024), (3, 300, 112),
          (4, 1024, 1024), (5, 64, 4096), (8, 513, 1024), (9, 513, 1024), (9, 512, 1024),
          (16, 1024, 1024), (16, 1100, 1030), (17, 1024, 1024), (33, 300, 2048),
          (64, 784, 512), (127, 1024, 1024), (128, 1024, 1024), (129, 64, 4096),
          (130, 500, 500), (200, 257, 48), (300, 100, 40)]


@pytest.fixture(autouse=True)
def restore_threads():
    before = mt.get_num_threads()
    yield
    mt.set_num_threads(before)


def both_threads(f):
    """f() at 1 and at 2 threads, asserted bitwise equal; the 2-thread one."""
    out = []
    for nt in (1, 2):
        mt.set_num_threads(nt)
        out.append(f().numpy())
    assert out[0].tobytes() == out[1].tobytes()
    return out[1]


def check(got, want, k):
    want = want.numpy()
    assert got.shape == want.shape and got.dtype == want.dtype
    tol = (2e-5 if want.dtype == np.float32 else 1e-13) * max(1, k) ** 0.5
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=tol * 10, atol=tol * scale)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_products_split_and_chunked(m, k, n, dtype):
    g = np.random.default_rng(m * 7919 + k * 31 + n)
    a = g.standard_normal((m, k)).astype(dtype)
    b = g.standard_normal((k, n)).astype(dtype)
    at = np.ascontiguousarray(a.T)
    ta, tb, ma, mb = torch.from_numpy(a), torch.from_numpy(b), mt.tensor(a), mt.tensor(b)
    tat, mat = torch.from_numpy(at).t(), mt.tensor(at).t()
    check(both_threads(lambda: ma @ mb), ta @ tb, k)
    check(both_threads(lambda: mat @ mb), tat @ tb, k)
    bias = g.standard_normal(n).astype(dtype)
    tbias, mbias = torch.from_numpy(bias), mt.tensor(bias)
    check(both_threads(lambda: mt.addmm(mbias, ma, mb)), torch.addmm(tbias, ta, tb), k)
    c0 = g.standard_normal((m, n)).astype(dtype)
    check(both_threads(lambda: mt.addmm(mt.tensor(c0), ma, mb, beta=0.5, alpha=-2.0)),
          torch.addmm(torch.from_numpy(c0), ta, tb, beta=0.5, alpha=-2.0), k)

    def into():
        out = mt.zeros(n, m, dtype=ma.dtype).t()
        mt.mm(ma, mb, out=out)
        return out
    check(both_threads(into), ta @ tb, k)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_special_values_stay_in_their_column(dtype):
    """An inf or NaN in B reaches only its own column of C, whichever depth
    chunk or thread's columns it falls in."""
    m, k, n = 16, 1024, 1024
    a = np.ones((m, k), dtype)
    b = np.ones((k, n), dtype)
    b[700, 3] = np.inf
    b[5, 1000] = np.nan
    got = both_threads(lambda: mt.tensor(a) @ mt.tensor(b))
    want = (torch.from_numpy(a) @ torch.from_numpy(b)).numpy()
    np.testing.assert_array_equal(got, want)


CHILD = textwrap.dedent("""
    import numpy as np, torch, minitorch as mt
    from test_kernels_gemm_split_depth import SHAPES

    rng = np.random.default_rng(11)
    for dtype in (np.float32, np.float64):
        for m, k, n in SHAPES:
            a = rng.standard_normal((m, k)).astype(dtype)
            b = rng.standard_normal((k, n)).astype(dtype)
            want = (torch.from_numpy(a) @ torch.from_numpy(b)).numpy()
            got = (mt.tensor(a) @ mt.tensor(b)).numpy()
            tol = (2e-5 if dtype == np.float32 else 1e-13) * k ** 0.5
            np.testing.assert_allclose(got, want, rtol=tol * 10,
                                       atol=tol * max(1.0, float(np.abs(want).max())))
    print("ok")
""")


@pytest.mark.parametrize("level", ["avx2", "generic", "no-avx512"])
def test_every_level(level):
    run_at_level(CHILD, LEVELS[level])


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("k", [64, 255, 256, 449, 450, 500, 784])
@pytest.mark.parametrize("m", [4, 8, 9, 15, 16, 17])
def test_rows_against_a_transposed_weight(m, k, dtype):
    """A @ W^T around the rule between dot products of W's rows read in place
    and the kernel on W^T packed (on the AVX-512 level dots for m < 2 + k /
    32: m = 16 from k = 449), and nn.Linear's bias."""
    g = np.random.default_rng(m * 131 + k)
    a = g.standard_normal((m, k)).astype(dtype)
    w = g.standard_normal((300, k)).astype(dtype)
    bias = g.standard_normal(300).astype(dtype)
    ta, tw, tbias = torch.from_numpy(a), torch.from_numpy(w), torch.from_numpy(bias)
    ma, mw, mbias = mt.tensor(a), mt.tensor(w), mt.tensor(bias)
    check(both_threads(lambda: ma @ mw.t()), ta @ tw.t(), k)
    check(both_threads(lambda: mt.nn.functional.linear(ma, mw, mbias)),
          torch.nn.functional.linear(ta, tw, tbias), k)
