"""The GEMM driver's ways of running a product (one call, rows or columns
split over our threads, batch items split over our threads, batch dims
folded into rows, operands read transposed in place or packed) all give
torch's values and gradients, and the same bits at 1 and 2 threads."""
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


def mt_dtype(d):
    return {torch.float32: minitorch.float32, torch.float64: minitorch.float64}[d]


def close(got, want, k):
    got = np.asarray(got.detach().numpy() if hasattr(got, "detach") else got)
    want = want.detach().numpy()
    assert got.shape == want.shape
    tol = (1e-5 if want.dtype == np.float32 else 1e-12) * max(1, k) ** 0.5
    np.testing.assert_allclose(got, want, rtol=tol * 10, atol=tol)


def layout(t, how):
    """t's values in another memory layout: 'c' contiguous, 't' stored
    transposed (last two dims), 's' a strided slice of a wider tensor."""
    if how == "c" or t.dim() < 2:
        return t.contiguous()
    if how == "t":
        return t.transpose(-1, -2).contiguous().transpose(-1, -2)
    wide = torch.zeros(*t.shape[:-1], 2 * t.shape[-1] + 1, dtype=t.dtype)
    wide[..., 1::2] = t
    return wide[..., 1::2]


def mt_layout(t, how):
    """The same layout built in minitorch (views of minitorch tensors)."""
    if how == "c" or t.dim() < 2:
        return mt_of(t)
    if how == "t":
        return mt_of(t.transpose(-1, -2).contiguous()).transpose(-1, -2)
    wide = torch.zeros(*t.shape[:-1], 2 * t.shape[-1] + 1, dtype=t.dtype)
    wide[..., 1::2] = t
    return mt_of(wide)[..., 1::2]


def at_threads(f):
    """f() at 1 and at 2 of our threads; both results, as numpy."""
    out = []
    for nt in (1, 2):
        minitorch.set_num_threads(nt)
        r = f()
        out.append([x.detach().numpy() for x in (r if isinstance(r, tuple) else (r,))])
    return out


def same_bits(pair):
    """Bitwise equal at 1 and 2 threads, as before this driver, except in
    float32: OpenBLAS's sgemm picks another inner kernel for a part of C
    than for the whole, so its float32 bits depend on the split (they did
    before too); there the two agree to rounding."""
    for a, b in zip(*pair):
        assert a.shape == b.shape
        if a.dtype == np.float32:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-4)
        else:
            assert a.tobytes() == b.tobytes()


MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((1, 7), (7, 1)),
    ((5, 1), (1, 6)),
    ((1, 300), (300, 200)),
    ((200, 300), (300, 1)),
    ((97, 130), (130, 65)),
    ((256, 64), (64, 512)),
    ((64, 512), (512, 64)),
    ((33, 200), (200, 1000)),
    ((1000, 70), (70, 33)),
    ((0, 5), (5, 4)),
    ((4, 0), (0, 6)),
    ((4, 5), (5, 0)),
    ((3, 40, 64), (64, 80)),          # batch folded into rows
    ((2, 3, 50, 64), (64, 90)),       # two batch dims folded
    ((5, 60, 70), (5, 70, 80)),       # bmm-like
    ((3, 60, 70), (70, 80)),
    ((60, 70), (3, 70, 80)),          # broadcast A
    ((2, 1, 50, 64), (1, 4, 64, 50)),  # broadcast both batch dims
    ((2, 4, 64, 32), (2, 4, 32, 64)),  # attention q k^T
    ((1, 64, 64), (1, 64, 64)),       # batch of 1
    ((16, 64, 64), (16, 64, 64)),
    ((7, 1, 70), (7, 70, 1)),
    ((4, 50, 1), (4, 1, 60)),         # k = 1
    ((0, 5, 6), (0, 6, 7)),
    ((80,), (80, 90)),
    ((3, 90, 80), (80,)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
@pytest.mark.parametrize("la,lb", [("c", "c"), ("t", "c"), ("c", "t"), ("t", "t"),
                                   ("s", "c"), ("c", "s")])
def test_matmul_values_and_threads(dtype, sa, sb, la, lb):
    g = torch.Generator().manual_seed(hash((sa, sb, la, lb)) % 2**31)
    a = torch.randn(*sa, generator=g, dtype=dtype)
    b = torch.randn(*sb, generator=g, dtype=dtype)
    want = torch.matmul(layout(a, la), layout(b, lb))
    ma, mb = mt_layout(a, la), mt_layout(b, lb)
    pair = at_threads(lambda: minitorch.matmul(ma, mb))
    close(pair[0][0], want, sa[-1])
    same_bits(pair)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb", [s for s in MATMUL_SHAPES if len(s[0]) > 1 and len(s[1]) > 1
                                   and 0 not in s[0] + s[1]])
def test_matmul_gradients(dtype, sa, sb):
    g = torch.Generator().manual_seed(1)
    a = torch.randn(*sa, generator=g, dtype=dtype, requires_grad=True)
    b = torch.randn(*sb, generator=g, dtype=dtype, requires_grad=True)
    out = torch.matmul(a, b)
    go = torch.randn(out.shape, generator=g, dtype=dtype)
    out.backward(go)

    def run():
        ma = mt_of(a).requires_grad_()
        mb = mt_of(b).requires_grad_()
        minitorch.matmul(ma, mb).backward(mt_of(go))
        return ma.grad, mb.grad

    pair = at_threads(run)
    k = max(out.numel() // max(1, a.shape[-2]), a.shape[-1])
    close(pair[0][0], a.grad, k)
    close(pair[0][1], b.grad, k)
    same_bits(pair)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("xs,out_f,bias", [
    ((1024, 128), 384, True), ((1024, 128), 512, False), ((300, 512), 128, True),
    ((4, 64, 96), 160, True), ((2, 3, 40, 50), 70, False), ((1, 128), 64, True),
    ((64, 1), 32, True), ((5, 70), 1, True), ((70,), 90, True), ((0, 30), 20, True)])
def test_linear_values_gradients_threads(dtype, xs, out_f, bias):
    g = torch.Generator().manual_seed(2)
    x = torch.randn(*xs, generator=g, dtype=dtype, requires_grad=True)
    w = torch.randn(out_f, xs[-1], generator=g, dtype=dtype, requires_grad=True)
    b = torch.randn(out_f, generator=g, dtype=dtype, requires_grad=True) if bias else None
    out = torch.nn.functional.linear(x, w, b)
    go = torch.randn(out.shape, generator=g, dtype=dtype)
    out.backward(go)

    def run():
        mx, mw = mt_of(x).requires_grad_(), mt_of(w).requires_grad_()
        mb = mt_of(b).requires_grad_() if bias else None
        r = minitorch.nn.functional.linear(mx, mw, mb)
        r.backward(mt_of(go))
        return (r, mx.grad, mw.grad) + ((mb.grad,) if bias else ())

    pair = at_threads(run)
    rows = max(1, x.numel() // xs[-1])
    close(pair[0][0], out, xs[-1])
    close(pair[0][1], x.grad, out_f)
    close(pair[0][2], w.grad, rows)
    if bias:
        close(pair[0][3], b.grad, rows)
    same_bits(pair)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (3, 1, 5), (70, 90, 110), (256, 64, 300),
                                   (40, 300, 2), (1, 500, 500)])
@pytest.mark.parametrize("la,lb", [("c", "c"), ("t", "t"), ("s", "t")])
def test_addmm(dtype, m, k, n, la, lb):
    g = torch.Generator().manual_seed(3)
    c = torch.randn(m, n, generator=g, dtype=dtype, requires_grad=True)
    a = torch.randn(m, k, generator=g, dtype=dtype, requires_grad=True)
    b = torch.randn(k, n, generator=g, dtype=dtype, requires_grad=True)
    out = torch.addmm(c, layout(a, la), layout(b, lb), beta=0.5, alpha=-1.5)
    go = torch.randn(out.shape, generator=g, dtype=dtype)
    out.backward(go)

    def run():
        mc = mt_of(c).requires_grad_()
        ma = mt_layout(a.detach(), la).requires_grad_()
        mb = mt_layout(b.detach(), lb).requires_grad_()
        r = minitorch.addmm(mc, ma, mb, beta=0.5, alpha=-1.5)
        r.backward(mt_of(go))
        return r, mc.grad, ma.grad, mb.grad

    pair = at_threads(run)
    close(pair[0][0], out, k)
    close(pair[0][1], c.grad, 1)
    close(pair[0][2], a.grad, n)
    close(pair[0][3], b.grad, m)
    same_bits(pair)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bt,m,k,n", [(1, 64, 64, 64), (2, 64, 32, 64), (3, 80, 70, 90),
                                      (5, 100, 100, 100), (16, 64, 64, 64), (64, 64, 32, 64),
                                      (7, 1, 50, 60), (4, 50, 1, 60), (3, 40, 50, 1),
                                      (0, 4, 5, 6), (4, 0, 5, 6), (4, 5, 0, 6)])
@pytest.mark.parametrize("la,lb", [("c", "c"), ("c", "t"), ("t", "s")])
def test_bmm_baddbmm(dtype, bt, m, k, n, la, lb):
    g = torch.Generator().manual_seed(4)
    a = torch.randn(bt, m, k, generator=g, dtype=dtype, requires_grad=True)
    b = torch.randn(bt, k, n, generator=g, dtype=dtype, requires_grad=True)
    c = torch.randn(bt, m, n, generator=g, dtype=dtype, requires_grad=True)
    want = torch.bmm(layout(a, la), layout(b, lb))
    want2 = torch.baddbmm(c, layout(a, la), layout(b, lb), beta=2.0, alpha=0.25)
    ma, mb, mc = mt_layout(a.detach(), la), mt_layout(b.detach(), lb), mt_of(c)
    pair = at_threads(lambda: (minitorch.bmm(ma, mb),
                               minitorch.baddbmm(mc, ma, mb, beta=2.0, alpha=0.25)))
    close(pair[0][0], want, k)
    close(pair[0][1], want2, k)
    same_bits(pair)
    if 0 in (bt, m, n):
        return
    go = torch.randn(want2.shape, generator=g, dtype=dtype)
    want2.backward(go)

    def run():
        xa = mt_layout(a.detach(), la).requires_grad_()
        xb = mt_layout(b.detach(), lb).requires_grad_()
        xc = mt_of(c).requires_grad_()
        minitorch.baddbmm(xc, xa, xb, beta=2.0, alpha=0.25).backward(mt_of(go))
        return xa.grad, xb.grad, xc.grad

    pair = at_threads(run)
    close(pair[0][0], a.grad, n)
    close(pair[0][1], b.grad, m)
    close(pair[0][2], c.grad, 1)
    same_bits(pair)


@pytest.mark.parametrize("dtype", [minitorch.int64, minitorch.int32, minitorch.int16,
                                   minitorch.int8, minitorch.uint8])
def test_integer_products_still_work(dtype):
    rng = np.random.default_rng(5)
    a = rng.integers(-5, 6, size=(6, 40, 30)).astype(np.int64)
    b = rng.integers(-5, 6, size=(30, 20)).astype(np.int64)
    if dtype == minitorch.uint8:
        a, b = np.abs(a), np.abs(b)
    want = torch.from_numpy(a).to(getattr(torch, str(dtype).split(".")[-1])) @ \
        torch.from_numpy(b).to(getattr(torch, str(dtype).split(".")[-1]))
    ma = minitorch.tensor(a).to(dtype)
    mb = minitorch.tensor(b).to(dtype)
    pair = at_threads(lambda: ma @ mb)
    np.testing.assert_array_equal(pair[0][0], want.numpy())
    same_bits(pair)


@pytest.mark.parametrize("dtype", [minitorch.float16, minitorch.bfloat16])
def test_half_products_still_work(dtype):
    g = torch.Generator().manual_seed(6)
    a = torch.randn(4, 50, 60, generator=g)
    b = torch.randn(60, 70, generator=g)
    tdt = getattr(torch, str(dtype).split(".")[-1])
    want = (a.to(tdt) @ b.to(tdt)).float()
    ma = mt_of(a).to(dtype)
    mb = mt_of(b).to(dtype)
    pair = at_threads(lambda: (ma @ mb).float())
    np.testing.assert_allclose(pair[0][0], want.numpy(), rtol=2e-2, atol=2e-1)
    same_bits(pair)


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
def test_folded_batch_matches_unfolded(dtype):
    """(batch, m, k) @ (k, n) folded into one product gives the rows of the
    items multiplied one at a time, to rounding: OpenBLAS picks its inner
    kernel by the size of a call (sgemm always; dgemm too where it has a
    small-matrix kernel, as its SkylakeX build on AVX-512 machines does up to
    10^6 multiply-adds), so a 50-row item and the folded 300 rows may round
    differently."""
    g = torch.Generator().manual_seed(7)
    a = mt_of(torch.randn(6, 50, 80, generator=g)).to(dtype)
    b = mt_of(torch.randn(80, 90, generator=g)).to(dtype)
    whole = (a @ b).numpy()
    rtol, atol = (1e-5, 1e-4) if dtype == minitorch.float32 else (1e-13, 1e-12)
    for i in range(6):
        np.testing.assert_allclose((a[i] @ b).numpy(), whole[i], rtol=rtol, atol=atol)
