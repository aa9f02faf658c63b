"""lgamma, digamma, polygamma, erfinv, i0, igamma and igammac against torch
over wide random inputs (negatives, poles, large values, NaN and the
infinities), integer and bool promotion, the in-place and out= forms,
grad_fn names, gradients by gradcheck and gradgradcheck, and torch's
errors."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

EDGES = [0.0, -0.0, 1.0, 2.0, -1.0, -2.0, -2.5, 0.5, 1e-300, 1e-8, -1e-8, 171.0, 200.0,
         700.0, 713.0, 1e5, 1e300, -1e300, float("inf"), -float("inf"), float("nan")]
TOL = {"float32": (1e-5, 1e-5), "float64": (1e-9, 1e-12)}


def wide(seed, n=3000):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) * 10).tolist() + (rng.uniform(-1, 1, n) * 1e3).tolist() + EDGES


def close(got, want, dtype):
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    rtol, atol = TOL.get(dtype, (0, 0))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=atol, equal_nan=True)


UNARY = {
    "lgamma": lambda m, x: m.lgamma(x),
    "digamma": lambda m, x: m.digamma(x),
    "i0": lambda m, x: m.i0(x),
    "polygamma0": lambda m, x: m.polygamma(0, x),
    "polygamma1": lambda m, x: m.polygamma(1, x),
    "polygamma2": lambda m, x: m.polygamma(2, x),
    "polygamma3": lambda m, x: m.polygamma(3, x),
    "polygamma4": lambda m, x: m.polygamma(4, x),
}


@pytest.mark.parametrize("name", list(UNARY))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_values_over_a_wide_range(name, dtype):
    values = wide(len(name))
    if dtype == "float32":
        # torch's float kernels lose their last digits at large arguments
        values = [v for v in values if abs(v) < 1e4 or v != v]
    fn = UNARY[name]
    got = fn(mt, mt.tensor(values, dtype=getattr(mt, dtype)))
    want = fn(torch, torch.tensor(values, dtype=getattr(torch, dtype)))
    if name.startswith("polygamma") and name != "polygamma0":
        # near the poles at the negative integers the values are huge and
        # torch's own error grows with them: compare relatively there
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=TOL[dtype][0] * 10,
                                   atol=TOL[dtype][1], equal_nan=True)
    else:
        close(got, want, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erfinv_values(dtype):
    rng = np.random.default_rng(3)
    values = rng.uniform(-1, 1, 5000).tolist() + [1.0, -1.0, 0.0, -0.0, 1 - 1e-16, -1 + 1e-16,
                                                   0.9999999, 1e-300, 1.5, -3.0, float("nan"),
                                                   float("inf")]
    got = mt.erfinv(mt.tensor(values, dtype=getattr(mt, dtype)))
    want = torch.erfinv(torch.tensor(values, dtype=getattr(torch, dtype)))
    close(got, want, dtype)
    assert np.signbit(got.numpy()[5003])


@pytest.mark.parametrize("name", ["igamma", "igammac"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_incomplete_gamma_values(name, dtype):
    rng = np.random.default_rng(5)
    a = np.abs(rng.standard_normal(4000) * 10).tolist()
    x = np.abs(rng.standard_normal(4000) * 10).tolist()
    edge = [0.0, 1e-3, 0.5, 1.0, 30.0, 100.0, float("inf"), float("nan"), -1.0]
    a += [u for u in edge for _ in edge]
    x += [v for _ in edge for v in edge]
    got = getattr(mt, name)(mt.tensor(a, dtype=getattr(mt, dtype)),
                            mt.tensor(x, dtype=getattr(mt, dtype)))
    want = getattr(torch, name)(torch.tensor(a, dtype=getattr(torch, dtype)),
                                torch.tensor(x, dtype=getattr(torch, dtype)))
    # torch's own values differ from exact ones by ~1e-9 for a near 20
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=max(TOL[dtype][0], 1e-8),
                               atol=max(TOL[dtype][1], 1e-10), equal_nan=True)


def test_incomplete_gamma_dtypes_and_errors():
    i = mt.tensor([1, 2])
    with pytest.raises(NotImplementedError, match="\"igamma_cpu\" not implemented for 'Long'"):
        mt.igamma(i, i)
    r = mt.igammac(mt.tensor([1.0]), mt.tensor([2.0], dtype=mt.float64))
    assert r.dtype == mt.float64
    out = mt.empty(0)
    assert mt.igamma(mt.tensor([1.0, 2.0]), mt.tensor([0.5, 3.0]), out=out) is out
    np.testing.assert_allclose(out.numpy(), torch.igamma(torch.tensor([1.0, 2.0]),
                                                         torch.tensor([0.5, 3.0])).numpy())
    y = mt.tensor([1.0, 2.0])
    y.igammac_(mt.tensor([0.5, 3.0]))
    np.testing.assert_allclose(y.numpy(), torch.igammac(torch.tensor([1.0, 2.0]),
                                                        torch.tensor([0.5, 3.0])).numpy())


def test_incomplete_gamma_gradients():
    a = mt.tensor([0.5, 2.0, 3.5], dtype=mt.float64)
    x = mt.tensor([0.7, 2.5, 1.0], dtype=mt.float64, requires_grad=True)
    for name in ("igamma", "igammac"):
        r = getattr(mt, name)(a, x)
        assert type(r.grad_fn).__name__ == name.capitalize() + "Backward0"
        assert gradcheck(lambda x, f=getattr(mt, name): f(a, x), (x,))
        assert gradgradcheck(lambda x, f=getattr(mt, name): f(a, x), (x,))
        ta, tx = torch.tensor(a.tolist(), dtype=torch.float64), \
            torch.tensor(x.tolist(), dtype=torch.float64, requires_grad=True)
        want, = torch.autograd.grad(getattr(torch, name)(ta, tx).sum(), tx)
        got, = mt.autograd.grad(r.sum(), x)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    a.requires_grad_()
    with pytest.raises(NotImplementedError,
                       match="the derivative for 'igamma: input' is not implemented."):
        mt.igamma(a, x).sum().backward()


@pytest.mark.parametrize("name", ["lgamma", "digamma", "erfinv", "i0"])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64"])
def test_integers_promote_to_the_default_float(name, dtype):
    values = [True, False] if dtype == "bool" else [0, 1, 2, 5]
    got = getattr(mt, name)(mt.tensor(values, dtype=getattr(mt, dtype)))
    want = getattr(torch, name)(torch.tensor(values, dtype=getattr(torch, dtype)))
    close(got, want, "float32")
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        getattr(mt.tensor(values, dtype=getattr(mt, dtype)), name + "_")()


def test_polygamma_forms_and_errors():
    x = mt.tensor([0.3, 1.5, -2.5, 7.0], dtype=mt.float64)
    tx = torch.tensor(x.tolist(), dtype=torch.float64)
    close(x.polygamma(2), tx.polygamma(2), "float64")
    y = x.clone()
    assert y.polygamma_(3) is y
    close(y, tx.clone().polygamma_(3), "float64")
    out = mt.empty(4, dtype=mt.float64)
    mt.polygamma(1, x, out=out)
    close(out, torch.polygamma(1, tx), "float64")
    close(mt.polygamma(2, mt.tensor([1, 2, 3])), torch.polygamma(2, torch.tensor([1, 2, 3])),
          "float32")
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n."):
        mt.polygamma(-1, x)


@pytest.mark.parametrize("name, fn, domain", [
    ("LgammaBackward0", lambda x: mt.lgamma(x), (0.3, 4.0)),
    ("DigammaBackward0", lambda x: mt.digamma(x), (0.3, 4.0)),
    ("PolygammaBackward0", lambda x: mt.polygamma(2, x), (0.3, 4.0)),
    ("PolygammaBackward0", lambda x: x.polygamma(1), (0.3, 4.0)),
    ("ErfinvBackward0", lambda x: mt.erfinv(x), (-0.9, 0.9)),
    ("I0Backward0", lambda x: mt.i0(x), (-4.0, 4.0)),
])
def test_gradients(name, fn, domain):
    rng = np.random.default_rng(7)
    x = mt.tensor(rng.uniform(*domain, (2, 3)), dtype=mt.float64, requires_grad=True)
    assert type(fn(x).grad_fn).__name__ == name
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_gradients_match_torchs():
    values = [0.25, 1.5, 3.0, -0.5, -2.25]
    # digamma's is trigamma, where torch's series stops ~5e-10 short
    for name, rtol in (("lgamma", 1e-10), ("digamma", 1e-8), ("i0", 1e-10)):
        x = mt.tensor(values, dtype=mt.float64, requires_grad=True)
        t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        got, = mt.autograd.grad(getattr(mt, name)(x).sum(), x)
        want, = torch.autograd.grad(getattr(torch, name)(t).sum(), t)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol)
    x = mt.tensor([0.0, 0.5, -0.75], dtype=mt.float64, requires_grad=True)
    t = torch.tensor([0.0, 0.5, -0.75], dtype=torch.float64, requires_grad=True)
    got, = mt.autograd.grad(mt.erfinv(x).sum(), x)
    want, = torch.autograd.grad(torch.erfinv(t).sum(), t)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_at_large_a(name):
    # past a = 1e6 the series and the continued fraction are slow and lose
    # their prefactor's digits: torch and minitorch switch to Temme's expansion
    a, x = [], []
    for big in (1e5, 2e6, 1e8, 1e10, 1e15, 1e300):
        for r in (0.5, 0.99, 1.0, 1.0 + 1 / big ** 0.5, 1.001, 1.5):
            a.append(big)
            x.append(big * r)
    got = getattr(mt, name)(mt.tensor(a, dtype=mt.float64), mt.tensor(x, dtype=mt.float64))
    want = getattr(torch, name)(torch.tensor(a, dtype=torch.float64),
                                torch.tensor(x, dtype=torch.float64))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-8, atol=1e-12)
