"""Complex tensors through the rows tagged for them beyond the core
(tests/test_complex_core.py): transcendental functions, reductions with
complex and real results, element movers, comparisons (torch's refusal of
the ordering ones), and their gradients, each against torch."""
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

CDTYPES = [("complex64", 1e-5), ("complex128", 1e-12)]


def values(shape, seed=0, special=False):
    rng = np.random.default_rng(seed)
    z = rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)
    if special:
        flat = z.reshape(-1)
        flat[:4] = [0, complex(np.inf, 0), complex(0, -1), complex(-1, 0)][:flat.size]
    return z


def pair(z, dtype):
    return mt.tensor(z).to(getattr(mt, dtype)), torch.tensor(z).to(getattr(torch, dtype))


def same(got, want, tol):
    if isinstance(want, torch.Tensor):
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got.resolve_conj().numpy(), want.resolve_conj().numpy(), rtol=tol, atol=tol,
                                   equal_nan=True)
    elif isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w, tol)
    else:
        assert got == want


UNARY = ["asin", "acos", "atan", "asinh", "acosh", "atanh", "tanh", "sigmoid", "rsqrt", "exp2",
         "expm1", "log2", "log10", "log1p"]


@pytest.mark.parametrize("dtype,tol", CDTYPES)
@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_unary_values(name, dtype, tol, layout):
    m, t = pair(values((3, 4), hash(name) % 100), dtype)
    if layout == "transposed":
        m, t = m.t(), t.t()
    same(getattr(mt, name)(m), getattr(torch, name)(t), tol)
    mc, tc = m.clone(), t.clone()
    getattr(mc, name + "_")()
    getattr(tc, name + "_")()
    same(mc, tc, tol)


@pytest.mark.parametrize("name", ["log2", "log10", "log1p", "expm1", "exp2"])
def test_unary_at_zero_and_small(name):
    z = np.array([0j, 1e-9 + 1e-9j, -1e-12 + 0j, 1e-8j])
    m, t = pair(z, "complex128")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(torch, name)(t)
    same(getattr(mt, name)(m), want, 1e-12)


@pytest.mark.parametrize("dtype,tol", CDTYPES)
def test_truth_reductions(dtype, tol):
    z = values((3, 4), 1)
    z[0, :] = 0
    z[1, 2] = 1j
    m, t = pair(z, dtype)
    for f in (lambda L, x: L.any(x), lambda L, x: L.all(x), lambda L, x: L.any(x, 1),
              lambda L, x: L.all(x, 0, keepdim=True), lambda L, x: L.count_nonzero(x),
              lambda L, x: L.count_nonzero(x, 1), lambda L, x: x.any(), lambda L, x: L.nonzero(x),
              lambda L, x: L.nonzero(x, as_tuple=True), lambda L, x: L.where(x)):
        same(f(mt, m), f(torch, t), tol)


@pytest.mark.parametrize("dtype,tol", CDTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum(dtype, tol, dim):
    m, t = pair(values((3, 4), 2), dtype)
    same(mt.cumsum(m, dim), torch.cumsum(t, dim), tol * 10)
    same(m.t().cumsum(dim), t.t().cumsum(dim), tol * 10)
    same(mt.cumsum(m, dim, dtype=mt.complex128), torch.cumsum(t, dim, dtype=torch.complex128),
         tol * 10)
    m0, t0 = pair(np.array(1 + 2j), dtype)
    same(mt.cumsum(m0, 0), torch.cumsum(t0, 0), tol)


MOMENTS = [
    lambda L, x: L.var(x), lambda L, x: L.std(x), lambda L, x: L.var(x, 1),
    lambda L, x: L.std(x, 0, keepdim=True), lambda L, x: L.var(x, (0, 1), correction=0),
    lambda L, x: L.std(x, unbiased=False), lambda L, x: L.var_mean(x, 1),
    lambda L, x: L.std_mean(x, 0, keepdim=True), lambda L, x: L.var_mean(x, correction=2),
    lambda L, x: x.var(-1), lambda L, x: L.norm(x), lambda L, x: L.norm(x, 1),
    lambda L, x: L.norm(x, float("inf"), 1), lambda L, x: L.norm(x, 3, 0, keepdim=True),
    lambda L, x: L.norm(x, 0.5), lambda L, x: L.norm(x, "fro"), lambda L, x: x.norm(p=2, dim=1),
]


@pytest.mark.parametrize("dtype,tol", CDTYPES)
@pytest.mark.parametrize("k", range(len(MOMENTS)))
def test_real_valued_reductions(dtype, tol, k):
    m, t = pair(values((3, 4), 3), dtype)
    same(MOMENTS[k](mt, m), MOMENTS[k](torch, t), tol * 10)
    same(MOMENTS[k](mt, m.t()), MOMENTS[k](torch, t.t()), tol * 10)


@pytest.mark.parametrize("k", range(len(MOMENTS)))
def test_real_valued_reduction_gradients(k):
    z = values((3, 4), 4)
    m = mt.tensor(z).requires_grad_()
    t = torch.tensor(z).requires_grad_()
    wm, wt = MOMENTS[k](mt, m), MOMENTS[k](torch, t)
    outs_m = wm if isinstance(wm, tuple) else (wm,)
    outs_t = wt if isinstance(wt, tuple) else (wt,)
    rng = np.random.default_rng(k)
    cots = [rng.standard_normal(tuple(o.shape)) + (1j * rng.standard_normal(tuple(o.shape))
                                                    if o.is_complex() else 0)
            for o in outs_t]
    (gt,) = torch.autograd.grad(outs_t, t, [torch.tensor(c) for c in cots])
    (gm,) = mt.autograd.grad(outs_m, m, [mt.tensor(c) for c in cots])
    same(gm, gt, 1e-10)


@pytest.mark.parametrize("dtype,tol", CDTYPES)
def test_element_movers(dtype, tol):
    m, t = pair(values((3, 4), 5), dtype)
    mm, tm = mt.tensor([True, False, True, False]), torch.tensor([True, False, True, False])
    cases = [
        lambda L, x, k: L.tril(x), lambda L, x, k: L.triu(x, 1), lambda L, x, k: x.tril(-1),
        lambda L, x, k: L.masked_fill(x, k, 2 - 1j), lambda L, x, k: x.masked_fill(k, 0.5),
        lambda L, x, k: L.masked_select(x, k), lambda L, x, k: L.where(k, x, 1j),
        lambda L, x, k: L.where(k, x, x.flip(0)), lambda L, x, k: L.diag(x),
        lambda L, x, k: L.diag(x[0], 1), lambda L, x, k: L.hstack([x, x]),
        lambda L, x, k: L.vstack([x, x[0]]), lambda L, x, k: L.unsafe_split(x, 2, 1),
        lambda L, x, k: L.unsafe_chunk(x, 2), lambda L, x, k: L.unsafe_split_with_sizes(x, [1, 2]),
        lambda L, x, k: L.eye(3, dtype=x.dtype), lambda L, x, k: L.eye(2, 3, dtype=x.dtype),
    ]
    for f in cases:
        same(f(mt, m, mm), f(torch, t, tm), tol)
    mc, tc = m.clone(), t.clone()
    mc.masked_fill_(mm, 3j)
    tc.masked_fill_(tm, 3j)
    same(mc, tc, tol)


@pytest.mark.parametrize("dtype,tol", CDTYPES)
def test_ternary_values(dtype, tol):
    (a, ta), (b, tb), (c, tc) = (pair(values((2, 3), s), dtype) for s in (6, 7, 8))
    for f in (lambda L, x, y, z: L.lerp(x, y, z), lambda L, x, y, z: L.lerp(x, y, 0.7),
              lambda L, x, y, z: L.addcmul(x, y, z, value=2),
              lambda L, x, y, z: L.addcdiv(x, y, z, value=-0.5),
              lambda L, x, y, z: x.addcdiv(y, z)):
        same(f(mt, a, b, c), f(torch, ta, tb, tc), tol * 10)


@pytest.mark.parametrize("name", ["lerp", "addcmul", "addcdiv", "tanh", "sigmoid"])
def test_gradients_conjugate(name):
    zs = [values((2, 3), s) for s in (9, 10, 11)]
    ms = [mt.tensor(z).requires_grad_() for z in zs]
    ts = [torch.tensor(z).requires_grad_() for z in zs]
    n = 1 if name in ("tanh", "sigmoid") else 3
    om, ot = getattr(mt, name)(*ms[:n]), getattr(torch, name)(*ts[:n])
    cot = values((2, 3), 12)
    want = torch.autograd.grad(ot, ts[:n], torch.tensor(cot))
    got = mt.autograd.grad(om, ms[:n], mt.tensor(cot))
    same(list(got), list(want), 1e-10)


@pytest.mark.parametrize("op", ["lt", "le", "gt", "ge", "less", "greater_equal"])
def test_ordering_comparisons_refuse_as_torch(op):
    m, t = pair(values((2,), 13), "complex64")
    with pytest.raises(NotImplementedError) as want:
        getattr(torch, op)(t, t)
    with pytest.raises(NotImplementedError) as got:
        getattr(mt, op)(m, m)
    assert str(got.value) == str(want.value)
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexDouble'"):
        mt.tensor([1j], dtype=mt.complex128) < 1.0


def test_conjugate_transpose():
    z = values((2, 3), 14)
    m, t = pair(z, "complex128")
    same(m.H, t.H, 0)
    same(m.reshape(1, 2, 3).mH, t.reshape(1, 2, 3).mH, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(m[0, 0].H, t[0, 0].H, 0)
    r = mt.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert r.H.data_ptr() == r.data_ptr() and r.H.tolist() == [[1.0, 3.0], [2.0, 4.0]]
