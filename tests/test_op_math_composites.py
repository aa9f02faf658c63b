"""float_power, ldexp, frexp, mvlgamma, addr, addbmm, cross, dist and renorm
against torch: values and result dtypes over dtypes and broadcast shapes,
the in-place and out= forms, gradients against torch's, and torch's
errors."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck

torch = pytest.importorskip("torch")

from torch_pairs import pair, raises_as_torch, same  # noqa: E402





def grads_as_torch(fn_mt, fn_torch, *inputs):
    """Each function's float64 gradients at the same inputs (pairs)."""
    ms = [m for m, _ in inputs]
    ts = [t for _, t in inputs]
    got = mt.autograd.grad(fn_mt(*ms).sum(), ms)
    want = torch.autograd.grad(fn_torch(*ts).sum(), ts)
    for g, w in zip(got, want):
        same(g, w, 1e-10, 1e-12)


RNG = np.random.default_rng(0)


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("int64", "int64"), ("bool", "int64"),
                                    ("float32", "float64"), ("int64", "float32")])
def test_float_power_is_float64(dtypes):
    (mx, tx) = pair([[1, 2, 3], [0, 1, 2]], dtypes[0])
    (my, ty) = pair([2, 3, 0], dtypes[1])
    same(mt.float_power(mx, my), torch.float_power(tx, ty))
    same(mx.float_power(2.5), tx.float_power(2.5))
    same(mt.float_power(2, my), torch.float_power(2, ty))


def test_float_power_forms_and_errors():
    (mx, tx) = pair([1.5, 2.0, 0.5])
    x = mx.clone()
    assert x.float_power_(2) is x
    same(x, tx.clone().float_power_(2))
    out = mt.empty(0, dtype=mt.float64)
    assert mt.float_power(mx, -1, out=out) is out
    same(out, torch.float_power(tx, -1))
    raises_as_torch(lambda: mt.float_power(mx, 2, out=mt.empty(3)),
                    lambda: torch.float_power(tx, 2, out=torch.empty(3)))
    raises_as_torch(lambda: mt.tensor([1.0]).float_power_(2),
                    lambda: torch.tensor([1.0]).float_power_(2))
    grads_as_torch(mt.float_power, torch.float_power, pair([1.5, 2.0], grad=True),
                   pair([0.5, -1.0], grad=True))


@pytest.mark.parametrize("dtypes", [("float32", "int64"), ("int64", "int64"), ("bool", "int64"),
                                    ("float64", "float32")])
def test_ldexp(dtypes):
    (mx, tx) = pair([[1, 0, 3], [1, 1, 0]], dtypes[0])
    (my, ty) = pair([2, -3, 10], dtypes[1])
    same(mt.ldexp(mx, my), torch.ldexp(tx, ty))
    same(mx.ldexp(my), tx.ldexp(ty))


def test_ldexp_forms_and_errors():
    (mx, tx), (my, ty) = pair([1.5, -2.0]), pair([3, -1], "int64")
    same(mx.clone().ldexp_(my), tx.clone().ldexp_(ty))
    same(mt.ldexp_(mx.clone(), my), torch.ldexp_(tx.clone(), ty))
    out = mt.empty(2, dtype=mt.float64)
    assert mt.ldexp(mx, my, out=out) is out
    same(out, torch.ldexp(tx, ty))
    raises_as_torch(lambda: mt.ldexp(2, my), lambda: torch.ldexp(2, ty))
    raises_as_torch(lambda: mt.ldexp(mx, 2), lambda: torch.ldexp(tx, 2))
    # float exponents: torch's LdexpBackward0 takes 2 ** other in the integer
    # dtype of an integer other, so that a negative one gives a zero gradient
    grads_as_torch(mt.ldexp, torch.ldexp, pair([1.5, 2.0], grad=True),
                   pair([3.0, -1.0], grad=True))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_frexp_values(dtype):
    tiny = 1e-310 if dtype == "float64" else 1e-40
    big = 1.7e308 if dtype == "float64" else 3e38
    values = [0.0, -0.0, 1.0, 0.5, 0.75, -3.0, 1024.0, 1023.9999, tiny, -tiny, big,
              float("inf"), -float("inf"), float("nan")] + (RNG.standard_normal(200) * 1e3).tolist()
    m, t = pair(values, dtype)
    got, want = mt.frexp(m), torch.frexp(t)
    assert type(got).__name__ == "frexp"
    same(got.mantissa, want.mantissa, 0, 0)
    same(got.exponent, want.exponent, 0, 0)
    assert np.signbit(got.mantissa.numpy()[1])
    m2, e2 = m.frexp()
    same(e2, want.exponent, 0, 0)


def test_frexp_out_grad_and_errors():
    (m, t) = pair([3.0, -0.1, 5e-3], grad=True)
    out = (mt.empty(0, dtype=mt.float64), mt.empty(0, dtype=mt.int32))
    with mt.no_grad():
        got = mt.frexp(m.detach(), out=out)
    assert got[0] is out[0] and got[1] is out[1]
    same(out[0], torch.frexp(t.detach()).mantissa, 0, 0)
    grads_as_torch(lambda x: mt.frexp(x).mantissa, lambda x: torch.frexp(x).mantissa, (m, t))
    raises_as_torch(lambda: mt.frexp(mt.tensor([1, 2])), lambda: torch.frexp(torch.tensor([1, 2])))


@pytest.mark.parametrize("p", [1, 2, 3, 5])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_mvlgamma(p, dtype):
    values = [3, 4, 7] if dtype == "int64" else (RNG.uniform(2.1, 9.0, (2, 3))).tolist()
    m, t = pair(values, dtype)
    same(mt.mvlgamma(m, p), torch.mvlgamma(t, p), 1e-5, 1e-5)
    same(m.mvlgamma(p), t.mvlgamma(p), 1e-5, 1e-5)
    if dtype != "int64":
        same(m.clone().mvlgamma_(p), t.clone().mvlgamma_(p), 1e-5, 1e-5)
        grads_as_torch(lambda x: mt.mvlgamma(x, p), lambda x: torch.mvlgamma(x, p),
                       pair(values, grad=True))


def test_mvlgamma_errors_and_out():
    m, t = pair([2.5, 3.0])
    raises_as_torch(lambda: mt.mvlgamma(m, 0), lambda: torch.mvlgamma(t, 0))
    out = mt.empty(2, dtype=mt.float64)
    assert mt.mvlgamma(m, 2, out=out) is out
    same(out, torch.mvlgamma(t, 2))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("scalars", [{}, {"beta": 0}, {"beta": 2, "alpha": 3}, {"alpha": 0}])
def test_addr(dtype, scalars):
    if dtype == "bool":
        scalars = {k: bool(v) for k, v in scalars.items()}
        mi, ti = pair([[True, False, False]], dtype)
        (m1, t1), (m2, t2) = pair([True, False], dtype), pair([True, True, False], dtype)
    else:
        mi, ti = pair(RNG.integers(-3, 4, (2, 3)).tolist(), dtype)
        (m1, t1), (m2, t2) = pair([1, -2], dtype), pair([3, 0, 2], dtype)
    same(mt.addr(mi, m1, m2, **scalars), torch.addr(ti, t1, t2, **scalars))
    same(mi.addr(m1, m2, **scalars), ti.addr(t1, t2, **scalars))
    x = mt.empty(2, 3, dtype=getattr(mt, dtype)).copy_(mi.expand(2, 3))
    same(x.addr_(m1, m2, **scalars), ti.expand(2, 3).clone().addr_(t1, t2, **scalars))


def test_addr_ignores_input_at_beta_0_and_checks():
    mi, ti = pair([[float("nan"), 1.0, 2.0]])
    (m1, t1), (m2, t2) = pair([1.0, 2.0]), pair([3.0, 0.5, 1.0])
    same(mt.addr(mi, m1, m2, beta=0), torch.addr(ti, t1, t2, beta=0))
    out = mt.empty(0, dtype=mt.float64)
    assert mt.addr(mi, m1, m2, alpha=2, out=out) is out
    same(out, torch.addr(ti, t1, t2, alpha=2))
    raises_as_torch(lambda: mt.addr(mi, m1.reshape(2, 1), m2),
                    lambda: torch.addr(ti, t1.reshape(2, 1), t2))
    (li, lt) = pair([[1, 2, 3]], "int64")
    (l1, lt1) = pair([1, 2], "int64")
    raises_as_torch(lambda: mt.addr(li, l1, l1.clone()[:1].expand(3), beta=0.5),
                    lambda: torch.addr(lt, lt1, lt1.clone()[:1].expand(3), beta=0.5))
    grads_as_torch(lambda a, b, c: mt.addr(a, b, c, beta=0.5, alpha=2),
                   lambda a, b, c: torch.addr(a, b, c, beta=0.5, alpha=2),
                   pair([[1.0, 2.0, 3.0]], grad=True), pair([1.0, -2.0], grad=True),
                   pair([0.5, 1.5, 2.5], grad=True))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_addbmm(dtype):
    b1 = RNG.integers(-3, 4, (4, 2, 3)).tolist()
    b2 = RNG.integers(-3, 4, (4, 3, 5)).tolist()
    (mi, ti), (m1, t1), (m2, t2) = pair([[1] * 5], dtype), pair(b1, dtype), pair(b2, dtype)
    same(mt.addbmm(mi, m1, m2), torch.addbmm(ti, t1, t2))
    kw = {"beta": 2, "alpha": 3}
    same(mi.addbmm(m1, m2, **kw), ti.addbmm(t1, t2, **kw))
    x, y = mi.expand(2, 5).clone(), ti.expand(2, 5).clone()
    same(x.addbmm_(m1, m2, **kw), y.addbmm_(t1, t2, **kw))
    out = mt.empty(0, dtype=getattr(mt, dtype))
    assert mt.addbmm(mi, m1, m2, out=out) is out
    same(out, torch.addbmm(ti, t1, t2))


def test_addbmm_errors_and_grads():
    (mi, ti), (m1, t1), (m2, t2) = pair([[1.0]]), pair(np.ones((2, 2, 3)).tolist()), \
        pair(np.ones((2, 3, 4)).tolist())
    raises_as_torch(lambda: mt.addbmm(mi, m1[0], m2), lambda: torch.addbmm(ti, t1[0], t2))
    raises_as_torch(lambda: mt.addbmm(mi, m1, m2[0]), lambda: torch.addbmm(ti, t1, t2[0]))
    raises_as_torch(lambda: mt.addbmm(mi, m1, m2[:1]), lambda: torch.addbmm(ti, t1, t2[:1]))
    raises_as_torch(lambda: mt.addbmm(mi, m1, m2[:, :2]), lambda: torch.addbmm(ti, t1, t2[:, :2]))
    grads_as_torch(lambda a, b, c: mt.addbmm(a, b, c, beta=0.5),
                   lambda a, b, c: torch.addbmm(a, b, c, beta=0.5),
                   pair(RNG.standard_normal((2, 4)).tolist(), grad=True),
                   pair(RNG.standard_normal((3, 2, 3)).tolist(), grad=True),
                   pair(RNG.standard_normal((3, 3, 4)).tolist(), grad=True))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_cross(dtype):
    a = RNG.integers(-5, 6, (4, 3, 2)).tolist()
    b = RNG.integers(-5, 6, (1, 3, 2)).tolist()
    (ma, ta), (mb, tb) = pair(a, dtype), pair(b, dtype)
    same(mt.cross(ma, mb, dim=1), torch.cross(ta, tb, dim=1))
    same(ma.cross(mb, -2), ta.cross(tb, -2))
    with pytest.warns(UserWarning, match="without specifying the dim arg is deprecated"):
        got = mt.cross(ma, mb)
    same(got, torch.cross(ta, tb, dim=1))
    out = mt.empty(0, dtype=getattr(mt, dtype))
    assert mt.cross(ma, mb, dim=1, out=out) is out
    same(out, torch.cross(ta, tb, dim=1))


def test_cross_errors_and_grads():
    (ma, ta), (mb, tb) = pair(np.ones((2, 4)).tolist()), pair(np.ones((2, 4)).tolist())
    raises_as_torch(lambda: mt.cross(ma, mb), lambda: torch.cross(ta, tb))
    raises_as_torch(lambda: mt.cross(ma, mb, dim=1), lambda: torch.cross(ta, tb, dim=1))
    raises_as_torch(lambda: mt.cross(ma[0], mb, dim=1), lambda: torch.cross(ta[0], tb, dim=1))
    grads_as_torch(lambda a, b: mt.cross(a, b, dim=0), lambda a, b: torch.cross(a, b, dim=0),
                   pair(RNG.standard_normal((3, 2)).tolist(), grad=True),
                   pair(RNG.standard_normal((3, 2)).tolist(), grad=True))


@pytest.mark.parametrize("p", [2, 1, 0, 3.5, float("inf"), -float("inf")])
def test_dist(p):
    (ma, ta), (mb, tb) = pair(RNG.standard_normal((2, 3)).tolist()), \
        pair(RNG.standard_normal(3).tolist())
    same(mt.dist(ma, mb, p), torch.dist(ta, tb, p))
    same(ma.dist(mb, p), ta.dist(tb, p))
    if p not in (0,):
        grads_as_torch(lambda a, b: mt.dist(a, b, p), lambda a, b: torch.dist(a, b, p),
                       pair(RNG.standard_normal(4).tolist(), grad=True),
                       pair(RNG.standard_normal(4).tolist(), grad=True))


@pytest.mark.parametrize("p, dim, maxnorm", [(2, 0, 1.0), (1, 1, 2.5), (3.0, -1, 0.5),
                                             (float("inf"), 0, 1.0), (2, 1, 100.0)])
def test_renorm(p, dim, maxnorm):
    values = (RNG.standard_normal((3, 4)) * 2).tolist()
    m, t = pair(values)
    same(mt.renorm(m, p, dim, maxnorm), torch.renorm(t, p, dim, maxnorm), 1e-10, 1e-12)
    same(m.renorm(p, dim, maxnorm), t.renorm(p, dim, maxnorm), 1e-10, 1e-12)
    same(m.clone().renorm_(p, dim, maxnorm), t.clone().renorm_(p, dim, maxnorm), 1e-10, 1e-12)
    out = mt.empty(0, dtype=mt.float64)
    assert mt.renorm(m, p, dim, maxnorm, out=out) is out
    same(out, torch.renorm(t, p, dim, maxnorm), 1e-10, 1e-12)
    grads_as_torch(lambda x: mt.renorm(x, p, dim, maxnorm),
                   lambda x: torch.renorm(x, p, dim, maxnorm), pair(values, grad=True))
    grads_as_torch(lambda x: (x * 1).renorm_(p, dim, maxnorm),
                   lambda x: (x * 1).renorm_(p, dim, maxnorm), pair(values, grad=True))


def test_renorm_errors():
    m, t = pair(np.ones((3, 3)).tolist())
    raises_as_torch(lambda: mt.renorm(m, 2, 0, -1), lambda: torch.renorm(t, 2, 0, -1))
    raises_as_torch(lambda: mt.renorm(m, -1, 0, 1), lambda: torch.renorm(t, -1, 0, 1))
    raises_as_torch(lambda: mt.renorm(m, 2, 5, 1), lambda: torch.renorm(t, 2, 5, 1))
    raises_as_torch(lambda: mt.renorm(m[0, 0], 0.5, 0, 1.0),
                    lambda: torch.renorm(t[0, 0], 0.5, 0, 1.0))


def test_gradcheck_of_composites():
    x = mt.tensor(RNG.standard_normal((3, 4)), dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda x: mt.renorm(x, 2, 0, 1.0), (x,))
    assert gradcheck(lambda x: mt.cross(x[:, :3].t(), x[:, 1:].t(), dim=0), (x,))


@pytest.mark.parametrize("name, call", [
    ("mvlgamma_", lambda L, y: y.add_(3).mvlgamma_(2)),
    ("float_power_", lambda L, y: y.float_power_(2)),
    ("ldexp_", lambda L, y: y.ldexp_(L.tensor([1.0, 2.0, -3.0, 4.0], dtype=L.float64))),
    ("addbmm_", lambda L, y: y.addbmm_(L.ones(2, 3, 2, dtype=L.float64),
                                       L.ones(2, 2, 4, dtype=L.float64), alpha=0.5)),
    ("addr_", lambda L, y: y.addr_(L.ones(3, dtype=L.float64), L.ones(4, dtype=L.float64),
                                   beta=2)),
])
def test_inplace_forms_keep_gradients(name, call):
    values = RNG.uniform(0.5, 2.0, (3, 4)).tolist()
    grads_as_torch(lambda x: call(mt, x * 1), lambda x: call(torch, x * 1), pair(values, grad=True))
