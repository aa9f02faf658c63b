"""Products with one row or one column (mv, addmv, dot, x @ W at batch 1,
F.linear at batch 1) and a few rows against a transposed B (x @ W.t() for a
small batch, nn.Linear's product), which the GEMM driver runs as
matrix-vector products or dot products of W's rows read in place: torch's
values for every layout, both float types, empty and unit dims, at 1 and 2
threads; the whole file runs again in a child without BLAS
(MINITORCH_BLAS=none), where the own matrix-vector kernel does the work."""
import os
import subprocess
import sys

import numpy as np
import pytest

import minitorch
from child_env import child_env

torch = pytest.importorskip("torch")

DTYPES = [torch.float32, torch.float64]
CHILD_FLAG = "MINITORCH_TEST_GEMV_CHILD"


@pytest.fixture(autouse=True)
def restore_threads():
    before = minitorch.get_num_threads()
    yield
    minitorch.set_num_threads(before)


def mt_of(t):
    return minitorch.tensor(t.detach().numpy())


def close(got, want, k):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = want.detach().numpy()
    assert got.shape == want.shape and got.dtype == want.dtype
    tol = (1e-5 if want.dtype == np.float32 else 1e-12) * max(1, k) ** 0.5
    np.testing.assert_allclose(got, want, rtol=tol * 10, atol=tol)


def pair(t, how):
    """t (2-D) in a memory layout, in torch and in minitorch: 'c' contiguous,
    't' stored transposed, 's' every other column of a wider matrix."""
    if how == "c":
        return t.contiguous(), mt_of(t)
    if how == "t":
        return t.t().contiguous().t(), mt_of(t.t().contiguous()).t()
    wide = torch.zeros(t.shape[0], 2 * t.shape[1] + 1, dtype=t.dtype)
    wide[:, 1::2] = t
    return wide[:, 1::2], mt_of(wide)[:, 1::2]


def at_threads(f):
    out = []
    for nt in (1, 2):
        minitorch.set_num_threads(nt)
        out.append(f().numpy())
    if out[0].dtype == np.float64:
        assert out[0].tobytes() == out[1].tobytes()
    else:
        np.testing.assert_allclose(out[0], out[1], rtol=1e-5, atol=1e-5)
    return out[0]


# (m, k, n): one row, one column, both, k = 1, empty dims, and small batches
# (2..17 rows: whole and partial groups of the vectors a pass takes) over k
# with and without a remainder past the vector width, and the sweep's shapes
SHAPES = [(1, 7, 5), (1, 784, 512), (1, 64, 300), (6, 9, 1), (300, 70, 1), (1, 33, 1),
          (1, 1, 1), (1, 1, 9), (8, 1, 1), (5, 1, 7), (2, 9, 3), (3, 16, 17), (4, 33, 20),
          (5, 8, 31), (7, 100, 64), (8, 500, 50), (16, 64, 130), (17, 40, 40), (3, 40, 300),
          (2, 257, 270),
          (0, 5, 1), (1, 0, 6), (1, 5, 0), (4, 0, 1), (3, 0, 4), (0, 6, 5)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("la,lb", [("c", "c"), ("c", "t"), ("t", "c"), ("t", "t"), ("s", "t"),
                                   ("c", "s"), ("s", "s")])
def test_mm_small_rows_every_layout(dtype, m, k, n, la, lb):
    g = torch.Generator().manual_seed(m * 1000 + k * 10 + n)
    ta, ma = pair(torch.randn(m, k, generator=g, dtype=dtype), la)
    tb, mb = pair(torch.randn(k, n, generator=g, dtype=dtype), lb)
    close(at_threads(lambda: minitorch.mm(ma, mb)), ta @ tb, k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,cols", [(512, 784), (1, 1), (3, 40), (1, 50), (70, 1), (0, 4),
                                       (4, 0), (1030, 20), (9, 2100)])
@pytest.mark.parametrize("layout", ["c", "t", "s"])
def test_mv_addmv(dtype, rows, cols, layout):
    g = torch.Generator().manual_seed(rows + cols)
    ta, ma = pair(torch.randn(rows, cols, generator=g, dtype=dtype), layout)
    v = torch.randn(2 * cols, generator=g, dtype=dtype)
    c = torch.randn(rows, generator=g, dtype=dtype)
    tv, mv = v[::2], mt_of(v)[::2]
    close(at_threads(lambda: minitorch.mv(ma, mv)), torch.mv(ta, tv), cols)
    close(at_threads(lambda: minitorch.addmv(mt_of(c), ma, mv, beta=0.5, alpha=2.0)),
          torch.addmv(c, ta, tv, beta=0.5, alpha=2.0), cols)
    # beta 0 ignores the input, NaN included, as torch does
    nan = torch.full((rows,), float("nan"), dtype=dtype)
    close(at_threads(lambda: minitorch.addmv(mt_of(nan), ma, mv, beta=0.0)),
          torch.addmv(nan, ta, tv, beta=0.0), cols)


@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcast_vector_and_out_strides(dtype):
    g = torch.Generator().manual_seed(9)
    a = torch.randn(20, 30, generator=g, dtype=dtype)
    # a vector with stride 0 (expanded), which BLAS cannot read
    close(minitorch.mv(mt_of(a), minitorch.tensor([1.5], dtype=mt_of(a).dtype).expand(30)),
          torch.mv(a, torch.tensor([1.5], dtype=dtype).expand(30)), 30)
    # a row against W^T, written into a strided out
    w = torch.randn(40, 30, generator=g, dtype=dtype)
    x = torch.randn(1, 30, generator=g, dtype=dtype)
    out = minitorch.zeros(40, 3, dtype=mt_of(a).dtype)
    minitorch.mm(mt_of(x), mt_of(w).t(), out=out[:, 1:2].t())
    close(out[:, 1], (x @ w.t())[0], 30)
    # dot products: vecdot-like rows of a batch, and a single dot
    p, q = torch.randn(5, 30, generator=g, dtype=dtype), torch.randn(5, 30, generator=g,
                                                                     dtype=dtype)
    close(minitorch.matmul(mt_of(p).unsqueeze(1), mt_of(q).unsqueeze(2)),
          p.unsqueeze(1) @ q.unsqueeze(2), 30)
    close(minitorch.dot(mt_of(p[0]), mt_of(q[0])), torch.dot(p[0], q[0]), 30)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [1, 2, 3, 4, 5, 8, 16, 17])
@pytest.mark.parametrize("fin,fout", [(784, 512), (512, 10), (33, 7)])
def test_linear_small_batch_values_and_gradients(dtype, batch, fin, fout):
    g = torch.Generator().manual_seed(batch + fin)
    x = torch.randn(batch, fin, generator=g, dtype=dtype, requires_grad=True)
    w = torch.randn(fout, fin, generator=g, dtype=dtype, requires_grad=True)
    b = torch.randn(fout, generator=g, dtype=dtype, requires_grad=True)
    out = torch.nn.functional.linear(x, w, b)
    go = torch.randn(out.shape, generator=g, dtype=dtype)
    out.backward(go)
    mx, mw, mb = (mt_of(t).requires_grad_() for t in (x, w, b))
    got = minitorch.nn.functional.linear(mx, mw, mb)
    got.backward(mt_of(go))
    close(got.detach(), out, fin)
    close(mx.grad, x.grad, fout)
    close(mw.grad, w.grad, batch)
    close(mb.grad, b.grad, batch)
    # the 1-D input of a batch-1 layer
    close(minitorch.nn.functional.linear(mt_of(x[0]), mt_of(w), mt_of(b)),
          torch.nn.functional.linear(x[0], w, b), fin)


@pytest.mark.skipif(os.environ.get(CHILD_FLAG) == "1", reason="already the child")
def test_everything_again_without_blas():
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                        os.path.abspath(__file__)],
                       cwd=os.path.dirname(os.path.abspath(__file__)),
                       env=dict(child_env(), MINITORCH_BLAS="none", **{CHILD_FLAG: "1"}),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


@pytest.mark.parametrize("m,k,n", [(64, 24, 40), (64, 8, 9), (40, 1000, 512), (100, 17, 33),
                                   (24, 784, 512), (64, 64, 1000), (20, 128, 2048)])
def test_rows_past_the_dot_products_pack_the_transposed_b(m, k, n):
    """More rows than the dot products take: W^T packed (in 16-element
    stretches of W's rows, an 8-row one at the end of an odd k) for the
    register-blocked kernel."""
    g = torch.Generator().manual_seed(k + n)
    a = torch.randn(m, k, generator=g)
    w = torch.randn(n, k, generator=g)
    close(at_threads(lambda: mt_of(a) @ mt_of(w).t()), a @ w.t(), k)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m", [1, 2, 3, 4, 8, 12])
@pytest.mark.parametrize("k", [17, 20, 23, 31, 33, 40, 500])
def test_last_partial_chunk_counts_each_term_once(dtype, m, k):
    # The last chunk of a dot is loaded ending at the row's end, overlapping
    # the chunk before it: an infinity inside that overlap must be counted
    # once (a sum of +inf), never met by a masked-out zero (inf * 0 = nan).
    # A's rows start one element into a wider matrix, so they are read from
    # the aligned copy; W's rows are read in place.
    g = torch.Generator().manual_seed(k * 31 + m)
    wide = torch.rand(m, k + 1, generator=g, dtype=dtype) + 0.5
    wide[:, k - 9] = float("inf")
    w = torch.rand(70, k, generator=g, dtype=dtype) + 0.5
    a = wide[:, 1:]
    ma, mw = mt_of(wide)[:, 1:], mt_of(w)
    got = at_threads(lambda: ma @ mw.t())
    assert np.isposinf(got).all()
    a[:, k - 10] = 1.0  # a is a view of wide: now every term is finite
    close(mt_of(wide)[:, 1:] @ mw.t(), a @ w.t(), k)
