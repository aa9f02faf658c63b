"""minitorch.signal.windows against torch.signal.windows: values for
symmetric and periodic windows of several lengths and dtypes, each
window's parameters, requires_grad, and torch's ValueErrors."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

WINDOWS = {"bartlett": {}, "blackman": {}, "cosine": {}, "exponential": {"tau": 0.7},
           "gaussian": {"std": 1.3}, "general_cosine": {"a": [0.46, 0.23, 0.31]},
           "general_hamming": {"alpha": 0.6}, "hamming": {}, "hann": {},
           "kaiser": {"beta": 5.0}, "nuttall": {}}


def same(got, want, tol):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(WINDOWS))
@pytest.mark.parametrize("M", [0, 1, 2, 5, 10, 33])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values(name, M, sym, dtype):
    kw = WINDOWS[name]
    got = getattr(mt.signal.windows, name)(M, sym=sym, dtype=getattr(mt, dtype), **kw)
    want = getattr(torch.signal.windows, name)(M, sym=sym, dtype=getattr(torch, dtype), **kw)
    same(got, want, 1e-12 if dtype == "float64" else 1e-6)


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_default_dtype_and_requires_grad(name):
    kw = WINDOWS[name]
    got = getattr(mt.signal.windows, name)(7, requires_grad=True, **kw)
    want = getattr(torch.signal.windows, name)(7, requires_grad=True, **kw)
    same(got, want, 1e-6)
    assert got.requires_grad == want.requires_grad
    assert (got.grad_fn is None) == (want.grad_fn is None)


def test_exponential_center():
    same(mt.signal.windows.exponential(9, center=2.5, sym=False),
         torch.signal.windows.exponential(9, center=2.5, sym=False), 1e-6)


@pytest.mark.parametrize("call,message", [
    (lambda ns: ns.hann(-1), "general_cosine requires non-negative window length, got M=-1"),
    (lambda ns: ns.kaiser(-1), "kaiser requires non-negative window length, got M=-1"),
    (lambda ns: ns.cosine(3, dtype=ns._int64), "cosine expects float32 or float64 dtypes, got: "),
    (lambda ns: ns.exponential(3, tau=0), "Tau must be positive, got: 0 instead."),
    (lambda ns: ns.exponential(3, center=1.0), "Center must be None for symmetric windows"),
    (lambda ns: ns.gaussian(3, std=-1.0), "Standard deviation must be positive, got: -1.0"),
    (lambda ns: ns.kaiser(3, beta=-1.0), "beta must be non-negative, got: -1.0 instead."),
    (lambda ns: ns.general_cosine(3, a=[]), "Coefficients cannot be empty"),
])
def test_errors(call, message):
    class NS:
        pass
    for lib in (mt, torch):
        ns = NS()
        for n in WINDOWS:
            setattr(ns, n, getattr(lib.signal.windows, n))
        ns._int64 = lib.int64
        with pytest.raises(ValueError) as e:
            call(ns)
        assert message in str(e.value)
    with pytest.raises(TypeError, match="Coefficients must be a list/tuple"):
        mt.signal.windows.general_cosine(3, a=1.0)
