"""Complex tensors beyond tests/test_complex_ops.py, against torch: the ops
that refuse complex inputs raise torch's own exception type and wording
(each op its own, not the generic "not implemented"); isclose/allclose by
complex distance, equal, and prod/cumprod with their gradients."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

REFUSALS = {
    "sort": lambda m, t: m.sort(t),
    "sort_dim": lambda m, t: m.sort(t, 0, True),
    "sort_stable": lambda m, t: m.sort(t, stable=True),
    "sort_method": lambda m, t: t.sort(),
    "argsort": lambda m, t: m.argsort(t),
    "argsort_stable": lambda m, t: m.argsort(t, stable=True),
    "msort": lambda m, t: m.msort(t),
    "topk": lambda m, t: m.topk(t, 1),
    "topk_method": lambda m, t: t.topk(2, 0),
    "max": lambda m, t: m.max(t),
    "max_method": lambda m, t: t.max(),
    "max_dim": lambda m, t: m.max(t, 1),
    "max_other": lambda m, t: m.max(t, t),
    "min": lambda m, t: m.min(t),
    "min_dim": lambda m, t: t.min(0, keepdim=True),
    "min_other": lambda m, t: m.min(t, t),
    "argmax": lambda m, t: m.argmax(t),
    "argmin": lambda m, t: m.argmin(t, 1),
    "maximum": lambda m, t: m.maximum(t, t),
    "minimum": lambda m, t: m.minimum(t, t),
    "fmax": lambda m, t: m.fmax(t, t),
    "fmin": lambda m, t: m.fmin(t, t),
    "clamp": lambda m, t: m.clamp(t, 0, 1),
    "clamp_tensor": lambda m, t: m.clamp(t, t, t),
    "clamp_inplace": lambda m, t: t.clamp_(0, 1),
    "clip": lambda m, t: m.clip(t, 0, 1),
    "clamp_min": lambda m, t: m.clamp_min(t, 0),
    "clamp_max_inplace": lambda m, t: t.clamp_max_(1),
    "amax": lambda m, t: m.amax(t),
    "amin": lambda m, t: m.amin(t, 1),
    "aminmax": lambda m, t: m.aminmax(t),
    "aminmax_dim": lambda m, t: m.aminmax(t, dim=0),
    "kthvalue": lambda m, t: m.kthvalue(t, 1),
    "median": lambda m, t: m.median(t),
    "median_dim": lambda m, t: m.median(t, 0),
    "nanmedian": lambda m, t: m.nanmedian(t),
    "nanmedian_dim": lambda m, t: m.nanmedian(t, 1),
    "mode": lambda m, t: m.mode(t, 0),
    "cummax": lambda m, t: m.cummax(t, 0),
    "cummin": lambda m, t: m.cummin(t, 1),
}


def raised(f):
    with pytest.raises(Exception) as info:
        f()
    return type(info.value), str(info.value).splitlines()[0]


@pytest.mark.parametrize("dtype", ["cfloat", "cdouble"])
@pytest.mark.parametrize("shape", [(2, 3), (4, 1)])
@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refusal_matches_torch(case, shape, dtype):
    f = REFUSALS[case]
    want = raised(lambda: f(torch, torch.ones(shape, dtype=getattr(torch, dtype))))
    got = raised(lambda: f(mt, mt.ones(shape, dtype=getattr(mt, dtype))))
    assert got[0].__name__ == want[0].__name__
    assert got[1] == want[1]


@pytest.mark.parametrize("case", ["sort", "max", "clamp", "amax"])
def test_refusal_leaves_real_inputs_working(case):
    x = [[3.0, -1.0, 2.0], [0.5, 4.0, -2.0]]
    got, want = REFUSALS[case](mt, mt.tensor(x)), REFUSALS[case](torch, torch.tensor(x))
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        assert g.tolist() == w.tolist()


# ------------------------------------------------------ closeness, equality

def cpair(dtype, shape, seed=0, special=False):
    rng = np.random.default_rng(seed)
    z = rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)
    if special:
        flat = z.reshape(-1)
        odd = [complex(np.nan, 0), complex(0, np.inf), complex(-np.inf, np.nan), complex(np.inf, 1),
               complex(1, -np.inf), complex(np.nan, np.nan)]
        flat[:len(odd)] = odd[:flat.size]
    return (mt.tensor(z).to(getattr(mt, dtype)), torch.tensor(z).to(getattr(torch, dtype)))


CD = ["complex64", "complex128"]
SHAPES = [(), (5,), (3, 4), (2, 3, 2)]


@pytest.mark.parametrize("dtype", CD)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize("rtol,atol,equal_nan", [(1e-5, 1e-8, False), (1e-5, 1e-8, True),
                                                 (0.3, 0.0, False), (0.0, 0.5, True),
                                                 (0.0, 0.0, True)])
def test_isclose_and_allclose(dtype, shape, special, rtol, atol, equal_nan):
    m, t = cpair(dtype, shape, 1, special)
    # other: the same values nudged by various distances, some equal, some NaN-matched
    noise = np.random.default_rng(2).uniform(-0.4, 0.4, shape) * (1 + 1j)
    m2 = m + mt.tensor(noise).to(m.dtype)
    t2 = t + torch.tensor(noise).to(t.dtype)
    if m.numel() > 1:
        m2[(0,) * len(shape)] = m[(0,) * len(shape)]
        t2[(0,) * len(shape)] = t[(0,) * len(shape)]
    for a, b, ta, tb in [(m, m2, t, t2), (m2, m, t2, t), (m, m, t, t)]:
        got = mt.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
        want = torch.isclose(ta, tb, rtol=rtol, atol=atol, equal_nan=equal_nan)
        assert got.dtype == mt.bool
        assert got.tolist() == want.tolist()
        assert a.isclose(b, rtol, atol, equal_nan).tolist() == want.tolist()
        assert (mt.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
                == torch.allclose(ta, tb, rtol=rtol, atol=atol, equal_nan=equal_nan))


@pytest.mark.parametrize("dtype", CD)
def test_isclose_complex_errors_match_torch(dtype):
    m, t = cpair(dtype, (3,))
    for f in [lambda k, a: k.isclose(a, a.real), lambda k, a: k.isclose(a, a, rtol=-1.0),
              lambda k, a: k.isclose(a, a, atol=-0.5)]:
        with pytest.raises(Exception) as want:
            f(torch, t)
        with pytest.raises(Exception) as got:
            f(mt, m)
        assert type(got.value).__name__ == type(want.value).__name__
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dtype", CD)
@pytest.mark.parametrize("shape", SHAPES)
def test_equal(dtype, shape):
    m, t = cpair(dtype, shape, 3, special=True)
    m2, t2 = cpair(dtype, shape, 3, special=True)
    assert mt.equal(m2, m) == torch.equal(t2, t)
    a, ta = cpair(dtype, shape, 4)
    assert mt.equal(a, a.clone()) and torch.equal(ta, ta.clone())
    b, tb = a.clone(), ta.clone()
    if b.numel():
        b.view(-1)[-1] = b.view(-1)[-1] + 1j
        tb.view(-1)[-1] = tb.view(-1)[-1] + 1j
    assert mt.equal(a, b) == torch.equal(ta, tb)
    assert a.equal(a.reshape(1, -1)) == ta.equal(ta.reshape(1, -1))



# ------------------------------------------------------------ prod, cumprod

def close(got, want, dtype):
    tol = 1e-5 if dtype == "complex64" else 1e-12
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", CD)
@pytest.mark.parametrize("shape", [(), (1,), (5,), (3, 4), (2, 3, 2), (0, 3), (3, 0)])
def test_prod_and_cumprod_values(dtype, shape):
    m, t = cpair(dtype, shape, 8)
    close(mt.prod(m), torch.prod(t), dtype)
    close(m.prod(), t.prod(), dtype)
    for d in range(-len(shape), len(shape)) or [0]:
        for keepdim in (False, True):
            close(mt.prod(m, d, keepdim=keepdim), torch.prod(t, d, keepdim=keepdim), dtype)
        close(mt.cumprod(m, d), torch.cumprod(t, d), dtype)
        close(m.cumprod(d), t.cumprod(d), dtype)
    if len(shape) >= 2:
        close(mt.prod(m.transpose(0, 1), 1), torch.prod(t.transpose(0, 1), 1), dtype)
        close(mt.cumprod(m.transpose(0, 1), 0), torch.cumprod(t.transpose(0, 1), 0), dtype)


@pytest.mark.parametrize("dtype", CD)
def test_prod_dtype_and_out(dtype):
    m, t = cpair(dtype, (3, 4), 9)
    r, tr = cpair("complex64", (3, 4), 10)
    close(mt.prod(r, 1, dtype=getattr(mt, dtype)), torch.prod(tr, 1, dtype=getattr(torch, dtype)),
          dtype)
    close(mt.prod(r, dtype=getattr(mt, dtype)), torch.prod(tr, dtype=getattr(torch, dtype)), dtype)
    x = mt.tensor([[1.0, 2.0], [3.0, -1.5]])
    close(mt.prod(x, 0, dtype=getattr(mt, dtype)),
          torch.prod(torch.tensor([[1.0, 2.0], [3.0, -1.5]]), 0, dtype=getattr(torch, dtype)), dtype)
    out = mt.empty(0, dtype=m.dtype)
    assert mt.prod(m, 0, out=out) is out
    close(out, torch.prod(t, 0), dtype)
    out = mt.empty(0, dtype=m.dtype)
    assert mt.cumprod(m, 1, out=out) is out
    close(out, torch.cumprod(t, 1), dtype)


@pytest.mark.parametrize("shape,dim", [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 2), -1)])
@pytest.mark.parametrize("op", ["prod", "cumprod"])
def test_prod_and_cumprod_gradients(op, shape, dim):
    z = np.random.default_rng(11).uniform(0.5, 1.5, shape) * np.exp(
        1j * np.random.default_rng(12).uniform(-3, 3, shape))
    mz, tz = mt.tensor(z).requires_grad_(), torch.tensor(z, requires_grad=True)
    m_out, t_out = getattr(mt, op)(mz, dim), getattr(torch, op)(tz, dim)
    cot = np.random.default_rng(13).standard_normal(tuple(t_out.shape)) * (1 + 0.5j)
    (want,) = torch.autograd.grad(t_out, tz, torch.tensor(cot))
    (got,) = mt.autograd.grad(m_out, mz, mt.tensor(cot))
    np.testing.assert_allclose(got.resolve_conj().numpy(), want.resolve_conj().numpy(),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("zero", [False, True])
def test_prod_gradient_over_all(zero):
    z = np.random.default_rng(14).uniform(-1.2, 1.2, (2, 3)) + 1j * np.random.default_rng(
        15).uniform(-1.2, 1.2, (2, 3))
    if zero:
        z[1, 2] = 0
    mz, tz = mt.tensor(z).requires_grad_(), torch.tensor(z, requires_grad=True)
    (want,) = torch.autograd.grad(torch.prod(tz), tz, torch.tensor(0.3 - 1.1j, dtype=tz.dtype))
    (got,) = mt.autograd.grad(mt.prod(mz), mz, mt.tensor(0.3 - 1.1j, dtype=mz.dtype))
    np.testing.assert_allclose(got.resolve_conj().numpy(), want.resolve_conj().numpy(),
                               rtol=1e-10, atol=1e-12)
