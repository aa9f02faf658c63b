"""minitorch.special against torch.special: every public name, values on
random inputs across the domains (negative, large, near poles, NaN and
infinities, integer and bool inputs, float32 and float64, non-contiguous),
out=, gradients by gradcheck and against torch's, torch's refusals."""
import math

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck

torch = pytest.importorskip("torch")

UNARY = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "digamma", "entr",
         "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0", "i0e",
         "i1", "i1e", "log1p", "log_ndtr", "modified_bessel_i0", "modified_bessel_i1",
         "modified_bessel_k0", "modified_bessel_k1", "ndtr", "ndtri", "psi",
         "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "sinc",
         "spherical_bessel_j0"]
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 2.09, -2.09, 5.0, -5.0, 8.0, -8.0, 9.0,
         -9.0, 10.0, -10.0, 29.9, 30.1, 50.0, -50.0, 100.0, 103.9, -120.0, 700.0, 800.0,
         1e-8, -1e-8, 1e-300, 0.3, 0.7, 0.999, 1e-20, 1 - 1e-12, math.inf, -math.inf,
         math.nan]


def values(seed):
    rng = np.random.default_rng(seed)
    return np.concatenate([EDGES, rng.standard_normal(40) * 3, rng.uniform(0, 1, 20),
                           rng.uniform(-30, 30, 20), rng.uniform(-200, 200, 10)])


def same(got, want, rtol, atol):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol,
                               atol=atol, equal_nan=True)


def test_the_namespace_has_every_public_name_of_torch_special():
    theirs = {n for n in dir(torch.special) if not n.startswith("_")} - {"Tensor", "torch",
                                                                          "common_args",
                                                                          "multi_dim_common"}
    assert theirs <= set(dir(mt.special))
    assert not hasattr(mt, "special_erfcx")  # the rows stay out of the top level


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_unary_values(name, dtype):
    x = values(0)
    t = torch.tensor(x, dtype=getattr(torch, dtype))
    m = mt.tensor(x, dtype=getattr(mt, dtype))
    rtol = 1e-9 if dtype == "float64" else 2e-5
    same(getattr(mt.special, name)(m), getattr(torch.special, name)(t), rtol, 1e-12)


@pytest.mark.parametrize("name", UNARY)
def test_unary_integer_bool_and_strided_inputs(name):
    ints = torch.arange(-6, 7)
    same(getattr(mt.special, name)(mt.arange(-6, 7)), getattr(torch.special, name)(ints),
         2e-6, 1e-7)
    b = torch.tensor([True, False])
    same(getattr(mt.special, name)(mt.tensor([True, False])), getattr(torch.special, name)(b),
         2e-6, 1e-7)
    x = values(1)[:60].reshape(6, 10)
    t, m = torch.tensor(x).t()[::2], mt.tensor(x).t()[::2]
    same(getattr(mt.special, name)(m), getattr(torch.special, name)(t), 1e-9, 1e-12)


@pytest.mark.parametrize("name", UNARY)
def test_unary_out(name):
    x = values(2)[:10]
    out = mt.empty(0, dtype=mt.float64)
    r = getattr(mt.special, name)(mt.tensor(x), out=out)
    assert r is out
    same(out, getattr(torch.special, name)(torch.tensor(x)), 1e-9, 1e-12)


@pytest.mark.parametrize("name", POLYNOMIALS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_polynomial_values(name, dtype):
    rng = np.random.default_rng(3)
    # no NaN x: torch's recurrences then return an uninitialised value
    x = np.concatenate([[0.0, 1.0, -1.0, 0.5, 2.0, -3.0, math.inf, -math.inf],
                        rng.uniform(-1.2, 1.2, 30)])
    for n in [0, 1, 2, 3, 5, 7, 9, 12, 20, -1, 2.7]:
        t, m = torch.tensor(x, dtype=getattr(torch, dtype)), mt.tensor(x, dtype=getattr(mt, dtype))
        rtol = 1e-9 if dtype == "float64" else 1e-4
        same(getattr(mt.special, name)(m, n), getattr(torch.special, name)(t, n), rtol, 1e-6)
    ns = rng.integers(-2, 15, x.size).astype(np.float64)
    same(getattr(mt.special, name)(mt.tensor(x), mt.tensor(ns)),
         getattr(torch.special, name)(torch.tensor(x), torch.tensor(ns)), 1e-9, 1e-9)
    same(getattr(mt.special, name)(0.25, mt.tensor(ns)),
         getattr(torch.special, name)(0.25, torch.tensor(ns)), 1e-9, 1e-9)
    same(getattr(mt.special, name)(mt.tensor([1, 2, 3]), mt.tensor([2, 3, 4])),
         getattr(torch.special, name)(torch.tensor([1, 2, 3]), torch.tensor([2, 3, 4])),
         1e-6, 1e-6)


@pytest.mark.parametrize("name", ["zeta", "xlog1py", "xlogy", "gammainc", "gammaincc"])
def test_binary_values(name):
    rng = np.random.default_rng(4)
    x = np.concatenate([[1.0, 0.5, 2.0, 0.0, 3.0, math.nan], rng.uniform(0.1, 6, 20)])
    y = np.concatenate([[1.0, 2.0, -2.5, 0.0, -1.0, 2.0], rng.uniform(-0.9, 6, 20)])
    same(getattr(mt.special, name)(mt.tensor(x), mt.tensor(y)),
         getattr(torch.special, name)(torch.tensor(x), torch.tensor(y)), 1e-9, 1e-12)
    if name not in ("gammainc", "gammaincc"):
        same(getattr(mt.special, name)(mt.tensor(x), 2.0),
             getattr(torch.special, name)(torch.tensor(x), 2.0), 1e-9, 1e-12)
        same(getattr(mt.special, name)(mt.tensor([2, 3]), 2),
             getattr(torch.special, name)(torch.tensor([2, 3]), 2), 1e-6, 1e-7)


def test_reductions_and_the_composites():
    x = np.random.default_rng(5).standard_normal((3, 4))
    m, t = mt.tensor(x), torch.tensor(x)
    same(mt.special.logsumexp(m, 1), torch.special.logsumexp(t, 1), 1e-12, 1e-12)
    same(mt.special.softmax(m, 0), torch.special.softmax(t, 0), 1e-12, 1e-12)
    same(mt.special.log_softmax(m, 1, dtype=mt.float32),
         torch.special.log_softmax(t, 1, dtype=torch.float32), 1e-6, 1e-6)
    same(mt.special.round(m, decimals=2), torch.special.round(t, decimals=2), 0, 0)
    same(mt.special.polygamma(2, m.abs() + 0.5), torch.special.polygamma(2, t.abs() + 0.5),
         1e-10, 1e-12)
    same(mt.special.multigammaln(m.abs() + 2, 3), torch.special.multigammaln(t.abs() + 2, 3),
         1e-12, 1e-12)
    p = m.sigmoid()
    same(mt.special.logit(p), torch.special.logit(t.sigmoid()), 1e-10, 1e-12)
    same(mt.special.logit(p, eps=0.3), torch.special.logit(t.sigmoid(), eps=0.3), 1e-10, 1e-12)
    out = mt.empty(0, dtype=mt.float64)
    assert mt.special.multigammaln(m.abs() + 2, 2, out=out) is out


GRAD = {"entr": lambda r: r.uniform(0.2, 2, 6), "erfcx": lambda r: r.uniform(-3, 5, 6),
        "i0e": lambda r: r.uniform(-4, 4, 6), "i1": lambda r: r.uniform(-4, 4, 6),
        "i1e": lambda r: r.uniform(-4, 4, 6), "log_ndtr": lambda r: r.uniform(-8, 4, 6),
        "ndtr": lambda r: r.uniform(-3, 3, 6), "ndtri": lambda r: r.uniform(0.05, 0.95, 6)}


@pytest.mark.parametrize("name", sorted(GRAD))
def test_unary_gradients(name):
    x = GRAD[name](np.random.default_rng(6))
    m = mt.tensor(x, requires_grad=True)
    assert gradcheck(getattr(mt.special, name), (m,))
    t = torch.tensor(x, requires_grad=True)
    getattr(mt.special, name)(m).sum().backward()
    getattr(torch.special, name)(t).sum().backward()
    same(m.grad, t.grad, 1e-9, 1e-12)


def test_binary_gradients_and_torch_refusals():
    rng = np.random.default_rng(7)
    x, y = rng.uniform(0.2, 2, 5), rng.uniform(0.2, 2, 5)
    a, b = mt.tensor(x, requires_grad=True), mt.tensor(y, requires_grad=True)
    assert gradcheck(mt.special.xlog1py, (a, b))
    assert gradcheck(lambda q: mt.special.zeta(a.detach() + 1, q), (b,))
    assert gradcheck(lambda q: mt.special.gammainc(a.detach(), q), (b,))
    with pytest.raises(NotImplementedError, match="the derivative for 'zeta' is not implemented"):
        mt.special.zeta(a + 1, b).sum().backward()
    with pytest.raises(NotImplementedError, match="'igamma: input' is not implemented"):
        mt.special.gammainc(a, b).sum().backward()
    ta, tb = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    mt.special.xlog1py(a, b).sum().backward()
    torch.special.xlog1py(ta, tb).sum().backward()
    same(a.grad, ta.grad, 1e-12, 1e-12)
    same(b.grad, tb.grad, 1e-12, 1e-12)


@pytest.mark.parametrize("name", ["bessel_j0", "airy_ai", "modified_bessel_k1"])
def test_bessel_functions_record_no_graph_as_torch(name):
    r = getattr(mt.special, name)(mt.ones(3, requires_grad=True))
    assert r.grad_fn is None and not r.requires_grad
    r = mt.special.chebyshev_polynomial_t(mt.ones(3, requires_grad=True), 3)
    assert r.grad_fn is None


def test_grad_fn_names():
    x = mt.tensor([0.5, 1.5], requires_grad=True)
    t = torch.tensor([0.5, 1.5], requires_grad=True)
    for name in ["entr", "erfcx", "i0e", "i1", "i1e", "log_ndtr", "ndtri", "expit", "psi",
                 "gammaln"]:
        assert (type(getattr(mt.special, name)(x).grad_fn).__name__
                == type(getattr(torch.special, name)(t).grad_fn).__name__), name


def test_errors_as_torch():
    with pytest.raises(TypeError, match=r"special_bessel_j0\(\)"):
        mt.special.bessel_j0(1)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        mt.special.multigammaln(mt.ones(2), 0)
    with pytest.raises(RuntimeError, match="polygamma"):
        mt.special.polygamma(-1, mt.ones(2))


@pytest.mark.parametrize("name", POLYNOMIALS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_polynomials_agree_with_torch_bit_for_bit(name, dtype):
    # the same recurrences in the same type with torch's fused steps: the
    # rounding that high orders amplify is torch's
    rng = np.random.default_rng(8)
    x, n = rng.uniform(-3, 3, 2000), rng.integers(0, 40, 2000).astype(np.float64)
    got = getattr(mt.special, name)(mt.tensor(x, dtype=getattr(mt, dtype)),
                                    mt.tensor(n, dtype=getattr(mt, dtype))).numpy()
    want = getattr(torch.special, name)(torch.tensor(x, dtype=getattr(torch, dtype)),
                                        torch.tensor(n, dtype=getattr(torch, dtype))).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bessel_functions_agree_with_torch_bit_for_bit(name, dtype):
    # torch's own evaluation of Cephes' rationals, fused as its build fuses it
    rng = np.random.default_rng(9)
    x = np.concatenate([rng.uniform(-12, 12, 3000), rng.uniform(-200, 200, 500), EDGES])
    got = getattr(mt.special, name)(mt.tensor(x, dtype=getattr(mt, dtype))).numpy()
    want = getattr(torch.special, name)(torch.tensor(x, dtype=getattr(torch, dtype))).numpy()
    np.testing.assert_array_equal(got, want)
