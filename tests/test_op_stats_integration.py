"""cov, corrcoef, trapezoid, trapz, cumulative_trapezoid and gradient against
torch: values and dtypes over shapes, dims, weights, spacings and edge
orders, gradients against torch's, and torch's errors."""
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

from torch_pairs import pair, raises_as_torch, same  # noqa: E402

RNG = np.random.default_rng(1)





def grads_as_torch(fn_mt, fn_torch, *inputs):
    ms, ts = [m for m, _ in inputs], [t for _, t in inputs]
    got = mt.autograd.grad(fn_mt(*ms).sum(), ms)
    want = torch.autograd.grad(fn_torch(*ts).sum(), ts)
    for g, w in zip(got, want):
        same(g, w, 1e-9, 1e-12)


@pytest.mark.parametrize("shape", [(3, 5), (1, 4), (5,), (2, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("correction", [1, 0, 2])
def test_cov(shape, dtype, correction):
    m, t = pair(RNG.integers(-5, 6, shape).tolist(), dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(mt.cov(m, correction=correction), torch.cov(t, correction=correction))
        same(m.cov(correction=correction), t.cov(correction=correction))


def test_cov_weights_and_grads():
    x = RNG.standard_normal((3, 6)).tolist()
    fw, aw = RNG.integers(0, 4, 6).tolist(), RNG.uniform(0.1, 2.0, 6).tolist()
    (m, t), (mf, tf), (ma, ta) = pair(x), pair(fw, "int64"), pair(aw)
    for kw_m, kw_t in (({"fweights": mf}, {"fweights": tf}), ({"aweights": ma}, {"aweights": ta}),
                       ({"fweights": mf, "aweights": ma}, {"fweights": tf, "aweights": ta})):
        for c in (0, 1):
            same(mt.cov(m, correction=c, **kw_m), torch.cov(t, correction=c, **kw_t), 1e-10)
    grads_as_torch(lambda x, a: mt.cov(x, aweights=a), lambda x, a: torch.cov(x, aweights=a),
                   pair(x, grad=True), pair(aw, grad=True))


def test_cov_errors():
    (m, t) = pair(RNG.standard_normal(5).tolist())
    cases = [
        (pair(np.ones((5, 5, 5)).tolist()), {}),
        ((m, t), {"fweights": pair(np.ones((5, 5), dtype=int).tolist(), "int64")}),
        ((m, t), {"aweights": pair(np.ones((5, 5)).tolist())}),
        ((m, t), {"fweights": pair(np.ones(5).tolist())}),
        ((m, t), {"aweights": pair([1, 1], "int64")}),
        ((m, t), {"fweights": pair([1], "int64")}),
        ((m, t), {"aweights": pair([0.5])}),
        ((m, t), {"fweights": pair([-1, -2, -3, -4, -5], "int64")}),
        ((m, t), {"aweights": pair([-1.0, -2.0, -3.0, -4.0, -5.0])}),
    ]
    for (xm, xt), kw in cases:
        raises_as_torch(lambda: mt.cov(xm, **{k: v[0] for k, v in kw.items()}),
                        lambda: torch.cov(xt, **{k: v[1] for k, v in kw.items()}))


def test_cov_warns_without_degrees_of_freedom():
    m, t = pair([[1.0], [2.0]])
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        got = mt.cov(m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(got, torch.cov(t))


@pytest.mark.parametrize("shape", [(3, 5), (1, 4), (5,), (4, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_corrcoef(shape, dtype):
    m, t = pair(RNG.integers(-5, 6, shape).tolist(), dtype)
    same(mt.corrcoef(m), torch.corrcoef(t))
    same(m.corrcoef(), t.corrcoef())


def test_corrcoef_grads():
    grads_as_torch(mt.corrcoef, torch.corrcoef, pair(RNG.standard_normal((3, 5)).tolist(),
                                                     grad=True))


@pytest.mark.parametrize("name", ["trapezoid", "trapz", "cumulative_trapezoid"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("dim", [-1, 0, 1])
def test_integration(name, dtype, dim):
    y = RNG.integers(-5, 6, (3, 4, 2)).tolist()
    (my, ty) = pair(y, dtype)
    fm, ft = getattr(mt, name), getattr(torch, name)
    same(fm(my, dim=dim), ft(ty, dim=dim))
    same(fm(my, dx=0.5, dim=dim), ft(ty, dx=0.5, dim=dim))
    n = ty.shape[dim]
    (mx, tx) = pair(np.cumsum(RNG.uniform(0.1, 1.0, n)).tolist(), dtype)
    same(fm(my, mx, dim=dim), ft(ty, tx, dim=dim))
    full = np.cumsum(RNG.uniform(0.1, 1.0, (3, 4, 2)), axis=dim).tolist()
    (mf, tf) = pair(full, dtype)
    same(fm(my, mf, dim=dim), ft(ty, tf, dim=dim))


@pytest.mark.parametrize("name", ["trapezoid", "cumulative_trapezoid"])
def test_integration_edges_errors_and_grads(name):
    fm, ft = getattr(mt, name), getattr(torch, name)
    (me, te) = pair(np.ones((2, 0)).tolist())
    same(fm(me), ft(te))
    (mi, ti) = pair([[1, 2, 3]], "int64")
    same(fm(mi, dim=1), ft(ti, dim=1))
    (my, ty), (mx, tx) = pair(np.ones((3, 3)).tolist()), pair([1.0, 2.0])
    raises_as_torch(lambda: fm(my, mx), lambda: ft(ty, tx))
    (mb, tb) = pair([True, False], "bool")
    raises_as_torch(lambda: fm(mb), lambda: ft(tb))
    grads_as_torch(lambda y, x: fm(y, x, dim=0), lambda y, x: ft(y, x, dim=0),
                   pair(RNG.standard_normal((4, 2)).tolist(), grad=True),
                   pair(np.cumsum(RNG.uniform(0.1, 1, 4)).tolist(), grad=True))
    grads_as_torch(lambda y: fm(y, dx=0.3), lambda y: ft(y, dx=0.3),
                   pair(RNG.standard_normal((2, 5)).tolist(), grad=True))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("edge_order", [1, 2])
@pytest.mark.parametrize("kw", [{}, {"spacing": 2.0}, {"dim": 1}, {"dim": [0, 1]},
                                {"spacing": [0.5, 2.0]}, {"spacing": 3, "dim": -1},
                                {"spacing": [1.5], "dim": [0]}])
def test_gradient_uniform(dtype, edge_order, kw):
    m, t = pair(RNG.integers(-9, 10, (4, 5)).tolist(), dtype)
    same(mt.gradient(m, edge_order=edge_order, **kw),
         torch.gradient(t, edge_order=edge_order, **kw))


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_coordinates_and_grads(edge_order):
    m, t = pair(RNG.standard_normal((5, 4)).tolist())
    (c0, d0), (c1, d1) = pair(np.cumsum(RNG.uniform(0.2, 1.0, 5)).tolist()), \
        pair(np.cumsum(RNG.uniform(0.2, 1.0, 4)).tolist())
    same(mt.gradient(m, spacing=(c0, c1), edge_order=edge_order),
         torch.gradient(t, spacing=(d0, d1), edge_order=edge_order), 1e-10, 1e-12)
    same(mt.gradient(m, spacing=[c1], dim=1, edge_order=edge_order),
         torch.gradient(t, spacing=[d1], dim=1, edge_order=edge_order), 1e-10, 1e-12)
    grads_as_torch(lambda x: mt.gradient(x, spacing=(c0, c1), edge_order=edge_order)[0],
                   lambda x: torch.gradient(x, spacing=(d0, d1), edge_order=edge_order)[0],
                   pair(RNG.standard_normal((5, 4)).tolist(), grad=True))


def test_gradient_errors():
    m, t = pair(np.ones((3, 3)).tolist())
    for kw in ({"spacing": [0.1], "dim": (1, 0)}, {"edge_order": 3},
               {"spacing": 0.1, "dim": (1, 1)}, {"spacing": [0.1, 0.2, 0.3]}):
        raises_as_torch(lambda: mt.gradient(m, **kw), lambda: torch.gradient(t, **kw))
    raises_as_torch(lambda: mt.gradient(m, dim=3), lambda: torch.gradient(t, dim=3), exact=False)
    (m2, t2) = pair(np.ones((3, 1)).tolist())
    raises_as_torch(lambda: mt.gradient(m2), lambda: torch.gradient(t2))
    (m3, t3) = pair(np.ones((2, 2)).tolist())
    raises_as_torch(lambda: mt.gradient(m3, edge_order=2), lambda: torch.gradient(t3, edge_order=2))
