"""The vector erf/gelu kernels and the fused activation backward rows
(_gelu_backward, _silu_backward, _tanh_backward, _sigmoid_backward) against
torch: values with extremes, gradients, every float dtype, odd sizes,
non-contiguous inputs, gradcheck and gradgradcheck in float64."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

F = mt.nn.functional
TF = torch.nn.functional
RNG = np.random.default_rng(1234)

EXTREMES = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30, -1e-30, 1e-45, 1e30, -1e30,
            -5.5, -5.6, -8.5, -9.0, -12.0, -20.0, -30.0, -40.0, 3.9, 4.0, 6.0, -6.1, 0.999,
            1.001, -1.0, 1.0, 88.0, -88.0, 100.0, -100.0]

DTYPES = [  # minitorch, torch, rtol, atol
    (mt.float32, torch.float32, 1.3e-6, 1e-5),
    (mt.float64, torch.float64, 1e-7, 1e-7),
    (mt.bfloat16, torch.bfloat16, 1.6e-2, 1e-5),
    # torch's float16 sigmoid differs from float math rounded once by a few ulp
    (mt.float16, torch.float16, 2e-3, 5e-5),
]

FUNCS = {  # name: (minitorch f, torch f)
    "erf": (mt.erf, torch.erf),
    "gelu": (F.gelu, TF.gelu),
    "gelu_tanh": (lambda a: F.gelu(a, approximate="tanh"),
                  lambda a: TF.gelu(a, approximate="tanh")),
    "silu": (F.silu, TF.silu),
    "tanh": (mt.tanh, torch.tanh),
    "sigmoid": (mt.sigmoid, torch.sigmoid),
}


def values(n):
    x = RNG.standard_normal(n) * 4
    k = min(n, len(EXTREMES))
    x[RNG.choice(n, k, replace=False)] = EXTREMES[:k]
    return x


def torch_ref(name, x, y):
    """torch's result, except gelu(+inf): torch's float32/bfloat16 kernels give
    NaN inside their vector blocks and inf in their scalar tails; minitorch
    gives inf throughout, as torch's float64 kernel."""
    y = y.detach().double().numpy().copy()
    if name == "gelu":
        y[np.asarray(x, dtype=np.float64) == np.inf] = np.inf
    return y


def close(a, b, rtol, atol):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("name", list(FUNCS))
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: str(d[1]))
@pytest.mark.parametrize("n", [1, 3, 17, 1000, 1025, 70000])
def test_forward_and_grad_match_torch(name, dt, n):
    mdt, tdt, rtol, atol = dt
    mf, tf = FUNCS[name]
    x = values(n)
    g = RNG.standard_normal(n)
    tx = torch.tensor(x, dtype=tdt, requires_grad=True)
    mx = mt.tensor(x).to(mdt).requires_grad_(True)
    ty, my = tf(tx), mf(mx)
    assert my.dtype == mdt
    # x as the dtype holds it: a large float64 input may round to inf in float16
    close(my.detach().to(mt.float64).numpy(), torch_ref(name, tx.detach().double().numpy(), ty),
          rtol, atol)
    tg = torch.autograd.grad(ty, tx, torch.tensor(g, dtype=tdt))[0]
    mg = mt.autograd.grad(my, mx, mt.tensor(g).to(mdt))[0]
    assert mg.dtype == mdt
    close(mg.to(mt.float64).numpy(), tg.double().numpy(), rtol * 4, atol * 4)


def test_nan_and_inf_exactly_as_torch():
    x = [np.inf, -np.inf, np.nan, 0.0, -0.0]
    for mdt, tdt, _, _ in DTYPES:
        for name, (mf, tf) in FUNCS.items():
            tx = torch.tensor(x, dtype=tdt, requires_grad=True)
            mx = mt.tensor(x).to(mdt).requires_grad_(True)
            ty, my = tf(tx), mf(mx)
            t_vals = torch_ref(name, x, ty)
            m_vals = my.detach().to(mt.float64).numpy()
            assert np.array_equal(np.isnan(m_vals), np.isnan(t_vals)), (name, mdt)
            assert np.array_equal(m_vals[~np.isnan(m_vals)], t_vals[~np.isnan(t_vals)]), (name, mdt)
            tg = torch.autograd.grad(ty.sum(), tx)[0].double().numpy()
            mg = mt.autograd.grad(my.sum(), mx)[0].to(mt.float64).numpy()
            assert np.array_equal(np.isnan(mg), np.isnan(tg)), (name, mdt)


@pytest.mark.parametrize("dt", [mt.float32, mt.float64])
def test_far_negative_tail_of_gelu_is_exact(dt):
    """gelu and its gradient keep their relative precision where Phi(x) is
    tiny (torch's 1 + erf(x) loses it there, so the reference is mpmath)."""
    mpmath = pytest.importorskip("mpmath")
    tdt = torch.float32 if dt == mt.float32 else torch.float64
    # inputs exact in dt, so the reference sees the same numbers
    x = torch.tensor(-np.linspace(1.0, 12.0, 311), dtype=tdt).double().numpy()
    mx = mt.tensor(x).to(dt)
    phi = [mpmath.ncdf(v) for v in x]
    ref = np.array([float(v * p) for v, p in zip(x, phi)])
    dref = np.array([float(p + v * mpmath.npdf(v)) for v, p in zip(x, phi)])
    rtol = 4e-6 if dt == mt.float32 else 1e-13  # float32: the log-erfc fit, about 50 ulp
    np.testing.assert_allclose(F.gelu(mx).to(mt.float64).numpy(), ref, rtol=rtol, atol=0)
    got = mt._gelu_backward(mt.ones(x.size, dtype=dt), mx).to(mt.float64).numpy()
    keep = np.abs(dref) > 1e-30  # the derivative crosses 0 near x = -0.75 only
    np.testing.assert_allclose(got[keep], dref[keep], rtol=rtol * 4, atol=0)


def test_erf_float64_accuracy():
    x = np.concatenate([np.linspace(-7, 7, 20001), [1e-300, -1e-300, 5e-324]])
    got = mt.erf(mt.tensor(x)).numpy()
    ref = torch.erf(torch.tensor(x)).numpy()
    np.testing.assert_allclose(got, ref, rtol=4e-15, atol=0)


@pytest.mark.parametrize("name", list(FUNCS))
def test_non_contiguous_and_transposed(name):
    mf, tf = FUNCS[name]
    x = RNG.standard_normal((13, 37)) * 3
    tx = torch.tensor(x, dtype=torch.float32).t()[::2]
    mx = mt.tensor(x).float().t()[::2]
    close(mf(mx).numpy(), tf(tx).numpy(), 1.3e-6, 1e-5)
    tx.requires_grad_(True)
    mx.requires_grad_(True)
    g = RNG.standard_normal(tuple(tx.shape))
    tg = torch.autograd.grad(tf(tx), tx, torch.tensor(g, dtype=torch.float32).t().contiguous().t())[0]
    mg = mt.autograd.grad(mf(mx), mx, mt.tensor(g).float().t().contiguous().t())[0]
    close(mg.numpy(), tg.numpy(), 1e-5, 1e-5)


ROWS = {  # row: (forward saved-tensor maker, torch aten backward)
    "_gelu_backward": (lambda x: x, lambda g, x: torch.ops.aten.gelu_backward(g, x)),
    "_silu_backward": (lambda x: x, lambda g, x: torch.ops.aten.silu_backward(g, x)),
    "_tanh_backward": (torch.tanh, lambda g, y: torch.ops.aten.tanh_backward(g, y)),
    "_sigmoid_backward": (torch.sigmoid, lambda g, y: torch.ops.aten.sigmoid_backward(g, y)),
}


@pytest.mark.parametrize("row", list(ROWS))
def test_backward_rows_match_aten(row):
    make, aten = ROWS[row]
    x = torch.tensor(RNG.standard_normal((5, 33)))
    v = make(x)
    g = torch.tensor(RNG.standard_normal((5, 33)))
    got = getattr(mt, row)(mt.tensor(g.numpy()), mt.tensor(v.numpy()))
    close(got.numpy(), aten(g, v).numpy(), 1e-12, 1e-12)
    # broadcasting and promotion, as a binary elementwise op
    got = getattr(mt, row)(mt.tensor(g.numpy()).float(), mt.tensor(v[0].numpy()))
    assert got.dtype == mt.float64 and tuple(got.shape) == (5, 33)
    close(got.numpy(), aten(g.float().double(), v[0].expand(5, 33)).numpy(), 1e-12, 1e-12)


def test_gelu_backward_row_tanh_and_errors():
    x = torch.tensor(RNG.standard_normal(40))
    g = torch.tensor(RNG.standard_normal(40))
    got = mt._gelu_backward(mt.tensor(g.numpy()), mt.tensor(x.numpy()), approximate="tanh")
    close(got.numpy(), torch.ops.aten.gelu_backward(g, x, approximate="tanh").numpy(), 1e-12, 1e-12)
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        mt._gelu_backward(mt.ones(3), mt.ones(3), approximate="exact")
    with pytest.raises(RuntimeError):
        mt._tanh_backward(mt.ones(3, dtype=mt.int64), mt.ones(3, dtype=mt.int64))


@pytest.mark.parametrize("name", list(FUNCS))
def test_gradcheck_and_gradgradcheck(name):
    mf, _ = FUNCS[name]
    x = mt.tensor(RNG.standard_normal((3, 4)) * 2).requires_grad_(True)
    assert gradcheck(mf, (x,))
    assert gradgradcheck(mf, (x,))


@pytest.mark.parametrize("row", list(ROWS))
def test_rows_gradcheck_and_gradgradcheck(row):
    g = mt.tensor(RNG.standard_normal((3, 4))).requires_grad_(True)
    v = mt.tensor(RNG.uniform(-0.9, 0.9, (3, 4))).requires_grad_(True)
    f = getattr(mt, row)
    assert gradcheck(f, (g, v))
    assert gradgradcheck(f, (g, v))
    if row == "_gelu_backward":

        def t(a, b):
            return f(a, b, approximate="tanh")

        assert gradcheck(t, (g, v))
        assert gradgradcheck(t, (g, v))


def test_grad_fn_names_match_torch():
    for name, (mf, tf) in FUNCS.items():
        if name == "erf":
            continue
        x = RNG.standard_normal(4)
        mx = mt.tensor(x).requires_grad_(True)
        tx = torch.tensor(x, requires_grad=True)
        (mg,) = mt.autograd.grad(mf(mx).sum(), mx, create_graph=True)
        (tg,) = torch.autograd.grad(tf(tx).sum(), tx, create_graph=True)
        assert type(mg.grad_fn).__name__ == type(tg.grad_fn).__name__, name
