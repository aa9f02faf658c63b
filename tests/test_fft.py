"""minitorch.fft against torch.fft: values over lengths (powers of two, the
mixed radices 3 and 5, primes through Bluestein), dtypes, norms, n/s larger
and smaller than the input, dims, batched and non-contiguous inputs; the
gradients of the transform rows against torch's; the frequency helpers and
shifts; out=; and torch's errors."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

LENGTHS = [1, 2, 3, 5, 7, 8, 12, 17, 60, 64, 1000, 1024]
NORMS = [None, "backward", "forward", "ortho"]
C2C = ["fft", "ifft"]
R2C = ["rfft", "ihfft"]
C2R = ["irfft", "hfft"]
ND = ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "rfftn", "ihfft2", "ihfftn", "irfft2",
      "irfftn", "hfft2", "hfftn"]
REAL_INPUT = set(R2C) | {"rfft2", "rfftn", "ihfft2", "ihfftn"}


def data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if dtype in ("complex64", "complex128"):
        x = x + 1j * rng.standard_normal(shape)
    if dtype == "int64":
        return rng.integers(-5, 6, shape)
    return x.astype(dtype)


def tol(a):
    single = a.dtype in (np.float32, np.complex64)
    return (2e-5, 2e-5) if single else (1e-10, 1e-10)


def check(fn, x, **kw):
    """fn of torch.fft and minitorch.fft on the same values agree in values,
    dtype and shape."""
    xm, xt = mt.tensor(x), torch.tensor(x)
    got = getattr(mt.fft, fn)(xm, **kw)
    want = getattr(torch.fft, fn)(xt, **kw).resolve_conj()
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape)
    g, w = got.resolve_conj().numpy(), want.numpy()
    rtol, atol = tol(g)
    scale = max(1.0, float(np.abs(w).max())) if w.size else 1.0
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol * scale)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("fn", C2C)
@pytest.mark.parametrize("dtype", ["complex128", "complex64", "float64", "float32"])
def test_c2c_lengths(fn, n, dtype):
    check(fn, data((3, n), dtype))


# even lengths take the half-length transform unless half has a prime above 5 (34, 14)
@pytest.mark.parametrize("n", LENGTHS + [14, 34, 2 * 3 * 5 * 4])
@pytest.mark.parametrize("fn", R2C)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_r2c_lengths(fn, n, dtype):
    check(fn, data((2, n), dtype))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 9, 12, 17, 60, 63, 64, 1000, 1001])
@pytest.mark.parametrize("fn", C2R)
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_c2r_lengths(fn, n, dtype):
    check(fn, data((2, n // 2 + 1), dtype), n=n)


@pytest.mark.parametrize("fn", C2C + R2C + C2R)
@pytest.mark.parametrize("norm", NORMS)
def test_norms(fn, norm):
    dtype = "float64" if fn in REAL_INPUT else "complex128"
    check(fn, data((4, 9), dtype), norm=norm)


@pytest.mark.parametrize("fn", C2C + R2C + C2R)
@pytest.mark.parametrize("n", [1, 4, 7, 16, 31])
def test_n_trims_or_pads(fn, n):
    dtype = "float64" if fn in REAL_INPUT else "complex128"
    check(fn, data((3, 10), dtype), n=n)
    check(fn, data((10, 3), dtype), n=n, dim=0)


@pytest.mark.parametrize("fn", C2C + R2C + C2R)
@pytest.mark.parametrize("dim", [0, 1, -1, -3])
def test_dims_batched(fn, dim):
    dtype = "float64" if fn in REAL_INPUT else "complex128"
    check(fn, data((5, 6, 7), dtype), dim=dim)


@pytest.mark.parametrize("fn", C2C + R2C + C2R + ND)
def test_non_contiguous(fn):
    dtype = "float64" if fn in REAL_INPUT else "complex128"
    x = data((6, 10, 4), dtype)
    xm, xt = mt.tensor(x).transpose(0, 2)[:, ::2], torch.tensor(x).transpose(0, 2)[:, ::2]
    assert not xm.is_contiguous()
    got = getattr(mt.fft, fn)(xm).resolve_conj().numpy()
    want = getattr(torch.fft, fn)(xt).resolve_conj().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("fn", C2C + R2C + ["fft2", "fftn", "rfft2", "rfftn", "ihfftn"])
@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_integer_and_float32_inputs(fn, dtype):
    check(fn, data((4, 6), dtype))


@pytest.mark.parametrize("fn", ND)
@pytest.mark.parametrize("kw", [{}, {"s": (3, 8)}, {"s": (-1, 5)}, {"dim": (0, 2)},
                                {"s": (4, 6), "dim": (2, 0)}, {"norm": "ortho"},
                                {"norm": "forward", "s": (7, 9)}])
@pytest.mark.parametrize("dtype", ["double", "single"])
def test_multi_dim(fn, kw, dtype):
    if fn.endswith("2") and "dim" not in kw:
        kw = dict(kw)
    real = fn in REAL_INPUT
    dt = ("float64" if dtype == "double" else "float32") if real else (
        "complex128" if dtype == "double" else "complex64")
    check(fn, data((5, 6, 7), dt), **kw)


@pytest.mark.parametrize("fn", ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"])
@pytest.mark.parametrize("s", [None, (4,), (3, 4, 5)])
def test_n_dim_default_dims(fn, s):
    dtype = "float64" if fn in REAL_INPUT else "complex128"
    check(fn, data((3, 4, 6), dtype), s=s)


@pytest.mark.parametrize("n", [4096, 4099, 2 ** 14])
def test_large_lengths(n):
    check("fft", data((n,), "complex128"))
    check("rfft", data((n,), "float32"))
    check("irfft", data((n // 2 + 1,), "complex128"), n=n)


def test_roundtrips():
    x = mt.tensor(data((3, 17), "float64"))
    np.testing.assert_allclose(mt.fft.irfft(mt.fft.rfft(x), n=17).numpy(), x.numpy(), atol=1e-12)
    np.testing.assert_allclose(mt.fft.ifft(mt.fft.fft(x)).real.numpy(), x.numpy(), atol=1e-12)
    roundtrip = mt.fft.ihfft(mt.fft.hfft(mt.fft.ihfft(x), n=17))
    np.testing.assert_allclose(roundtrip.resolve_conj().numpy(),
                               mt.fft.ihfft(x).resolve_conj().numpy(), atol=1e-12)


def test_zero_dim_and_empty_dims():
    check("fftn", np.array(2.5))
    check("fftn", data((3, 4), "float64"), dim=())
    # torch's MKL refuses an empty batch; minitorch returns the empty spectrum
    r = mt.fft.fft(mt.tensor(data((0, 4), "complex128")))
    assert tuple(r.shape) == (0, 4) and r.dtype == mt.complex128


@pytest.mark.parametrize("fn", C2C + R2C + C2R + ND)
@pytest.mark.parametrize("norm", ["backward", "ortho"])
def test_gradients_match_torch(fn, norm):
    real = fn in REAL_INPUT
    x = data((4, 5), "float64" if real else "complex128", seed=1)
    xm = mt.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    om = getattr(mt.fft, fn)(xm, norm=norm)
    ot = getattr(torch.fft, fn)(xt, norm=norm)
    w = data(tuple(ot.shape), "complex128" if ot.is_complex() else "float64", seed=2)
    lm = (om * mt.tensor(w)).real.sum() if om.is_complex() else (om * mt.tensor(w)).sum()
    lt = (ot * torch.tensor(w)).real.sum() if ot.is_complex() else (ot * torch.tensor(w)).sum()
    lm.backward()
    lt.backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.resolve_conj().numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("fn", ["fft", "rfft", "irfft", "hfft", "ihfft"])
def test_real_input_gradients_with_n(fn):
    x = data((3, 6), "float64", seed=3)
    if fn in ("irfft", "hfft"):
        x = data((3, 6), "complex128", seed=3)
    for n in (3, 8, 11):
        xm, xt = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        getattr(mt.fft, fn)(xm, n=n).abs().sum().backward()
        getattr(torch.fft, fn)(xt, n=n).abs().sum().backward()
        np.testing.assert_allclose(xm.grad.numpy(), xt.grad.resolve_conj().numpy(), rtol=1e-9, atol=1e-9)


def test_grad_fn_names():
    x = mt.ones(4, requires_grad=True)
    assert type(mt.fft.fft(x).grad_fn).__name__ == "FftR2CBackward0"
    assert type(mt.fft.fft(x + 0j).grad_fn).__name__ == "FftC2CBackward0"
    assert type(mt.fft.irfft(x + 0j).grad_fn).__name__ == "FftC2RBackward0"


def test_double_backward():
    x = data((5,), "float64", seed=4)
    xm, xt = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (gm,) = mt.autograd.grad((mt.fft.rfft(xm).abs() ** 2).sum(), xm, create_graph=True)
    (gt,) = torch.autograd.grad((torch.fft.rfft(xt).abs() ** 2).sum(), xt, create_graph=True)
    np.testing.assert_allclose(gm.detach().numpy(), gt.detach().numpy(), rtol=1e-10)
    (hm,) = mt.autograd.grad(gm.sum(), xm)
    (ht,) = torch.autograd.grad(gt.sum(), xt)
    np.testing.assert_allclose(hm.numpy(), ht.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("d", [1.0, 0.25])
def test_frequencies(n, d):
    for fn in ("fftfreq", "rfftfreq"):
        if fn == "rfftfreq" and n == 0:
            continue
        got, want = getattr(mt.fft, fn)(n, d), getattr(torch.fft, fn)(n, d)
        assert got.dtype == mt.float32
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    got = mt.fft.fftfreq(n, d, dtype=mt.float64)
    assert got.dtype == mt.float64
    np.testing.assert_allclose(got.numpy(), torch.fft.fftfreq(n, d, dtype=torch.float64).numpy())
    assert mt.fft.rfftfreq(4, requires_grad=True).requires_grad


@pytest.mark.parametrize("shape", [(5,), (6,), (4, 7), (3, 4, 5)])
@pytest.mark.parametrize("dim", [None, 0, -1, (0, -1)])
def test_shifts(shape, dim):
    if isinstance(dim, tuple) and len(shape) == 1:
        dim = (0,)
    x = np.arange(int(np.prod(shape))).reshape(shape)
    for fn in ("fftshift", "ifftshift"):
        got = getattr(mt.fft, fn)(mt.tensor(x), dim=dim)
        want = getattr(torch.fft, fn)(torch.tensor(x), dim=dim)
        assert got.tolist() == want.tolist()
    back = mt.fft.ifftshift(mt.fft.fftshift(mt.tensor(x), dim=dim), dim=dim)
    assert back.tolist() == x.tolist()


def test_out():
    x = data((3, 8), "complex128")
    out = mt.empty(0, dtype=mt.complex128)
    r = mt.fft.fft(mt.tensor(x), out=out)
    assert r is out
    np.testing.assert_allclose(out.numpy(), np.fft.fft(x), atol=1e-12)
    out = mt.empty(0, dtype=mt.float64)
    mt.fft.irfft(mt.tensor(x), out=out)
    np.testing.assert_allclose(out.numpy(), np.fft.irfft(x), atol=1e-12)
    freq = mt.empty(0, dtype=mt.float64)
    mt.fft.fftfreq(4, out=freq)
    assert freq.tolist() == [0.0, 0.25, -0.5, -0.25]


def test_matches_numpy():
    x = data((4, 12), "complex128")
    np.testing.assert_allclose(mt.fft.fft2(mt.tensor(x)).numpy(), np.fft.fft2(x), atol=1e-12)
    np.testing.assert_allclose(mt.fft.hfft(mt.tensor(x)).numpy(), np.fft.hfft(x), atol=1e-11)


def raises_like(fn_m, fn_t):
    with pytest.raises(Exception) as em:
        fn_m(mt)
    with pytest.raises(Exception) as et:
        fn_t(torch)
    assert type(em.value).__name__ == type(et.value).__name__
    assert str(em.value) == str(et.value)


@pytest.mark.parametrize("case", [
    lambda t: t.fft.fft(t.ones(4), norm="foo"),
    lambda t: t.fft.fft(t.ones(4), n=0),
    lambda t: t.fft.fft(t.ones(4), n=-2),
    lambda t: t.fft.fft(t.ones(0)),
    lambda t: t.fft.fft(t.ones(4, 5), dim=3),
    lambda t: t.fft.fft(t.tensor(1.0)),
    lambda t: t.fft.fftn(t.ones(4, 5), s=(2, 3), dim=(0,)),
    lambda t: t.fft.fftn(t.ones(4, 5), dim=(0, 0)),
    lambda t: t.fft.fftn(t.ones(4, 5), s=(2, 3, 4)),
    lambda t: t.fft.rfft(t.ones(4, dtype=t.complex64)),
    lambda t: t.fft.ihfft(t.ones(4, dtype=t.complex128)),
    lambda t: t.fft.rfftn(t.ones(4, 4, dtype=t.complex64)),
    lambda t: t.fft.rfft2(t.ones(4, 4, dtype=t.complex64)),
    lambda t: t.fft.ihfftn(t.ones(4, 4, dtype=t.complex64)),
    lambda t: t.fft.fft(t.ones(4, dtype=t.float16)),
    lambda t: t.fft.irfft(t.ones(1)),
    lambda t: t.fft.hfft(t.ones(3), n=0),
    lambda t: t.fft.rfft2(t.ones(3)),
    lambda t: t.fft.fftshift(t.ones(3), dim=5),
    lambda t: t.fft.fftfreq(5, dtype=t.int64),
    lambda t: t.fft.fft(t.ones(3), out=t.empty(3)),
])
def test_errors(case):
    raises_like(case, case)


# forward-mode AD through the transforms' complex values gives torch's tangents
@pytest.mark.parametrize("fn", ["fft", "ifft", "rfft", "irfft", "fft2", "ihfftn", "hfft"])
def test_forward_ad_through_complex_values(fn):
    x, t = data((4, 6), "float64", seed=5), data((4, 6), "float64", seed=6)
    tangents = []
    for lib in (mt, torch):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            out = getattr(lib.fft, fn)(fw.make_dual(lib.tensor(x), lib.tensor(t)))
            tangents.append(fw.unpack_dual(out).tangent)
    got, want = tangents
    assert str(got.dtype)[len("minitorch."):] == str(want.dtype)[len("torch."):]
    np.testing.assert_allclose(np.array(got.resolve_conj().numpy()),
                               want.resolve_conj().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn", ["fftn", "ifftn", "rfftn", "ihfftn", "irfftn", "hfftn"])
def test_nd_transforms_take_an_int_for_s_and_dim(fn):
    # s and dim are int[1] arguments in torch: a lone int stands for a one-element list
    x = data((4, 6), "float64")
    for s, dim in [(5, 0), (3, 1), (4, None)]:
        got = getattr(mt.fft, fn)(mt.tensor(x), s=s, dim=dim)
        want = getattr(torch.fft, fn)(torch.tensor(x), s=s, dim=dim)
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(np.asarray(got.tolist()), want.resolve_conj().numpy(), rtol=1e-12,
                                   atol=1e-12)


@pytest.mark.parametrize("fn", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("out_shape", [(), (0,), (2, 3), (5, 1), (5,)])
def test_freq_out_follows_arange_out(fn, out_shape):
    # torch fills out through arange: same numel keeps out's shape, else 1-D with
    # arange's warning when out held elements
    import warnings
    got_out, want_out = mt.empty(out_shape, dtype=mt.float64), torch.empty(out_shape,
                                                                            dtype=torch.float64)
    with warnings.catch_warnings(record=True) as wm:
        warnings.simplefilter("always")
        got = getattr(mt.fft, fn)(5, 0.5, out=got_out)
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        want = getattr(torch.fft, fn)(5, 0.5, out=want_out)
    assert got is got_out and tuple(got.shape) == tuple(want.shape)
    assert got.flatten().tolist() == want.flatten().tolist()
    msgs = [str(w.message).split(" (Triggered")[0] for w in wt]
    assert [str(w.message) for w in wm] == msgs
