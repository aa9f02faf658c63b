"""The op rows that replaced Python composites (clamp_min/clamp_max, xlogy,
logaddexp/logaddexp2, deg2rad/rad2deg, nn.functional.leaky_relu and linear)
against torch: values, dtypes and broadcasting on random inputs, errors,
grad_fn names, and first and second derivatives. gradcheck and gradgradcheck
of each row run in the generated sweep (test_autograd_gradcheck_all.py)."""
import numpy as np
import pytest

import minitorch as mt
from dispatch_log import recording_subclass

torch = pytest.importorskip("torch")

R = np.random.default_rng(11)
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]


def arr(shape, dtype, kind="n"):
    if dtype == "bool":
        return np.asarray(R.random(shape) > 0.5)
    if dtype in ("int64", "int32", "uint8"):
        lo = 0 if dtype == "uint8" else -4
        return np.asarray(R.integers(lo, 5, shape)).astype(dtype)
    x = np.asarray(R.standard_normal(shape) * 3)
    if kind == "p":
        x = np.abs(x) + 0.1
    if kind == "z":  # exact zeros, negatives and NaN among the values
        x.reshape(-1)[:3] = [0.0, -1.0, np.nan][: x.size]
    return x


def make(lib, a, dtype):
    if not isinstance(a, np.ndarray):
        return a
    t = lib.tensor(a.astype(np.float64) if dtype in ("float16", "bfloat16") else a)
    return t.to(getattr(lib, dtype))


def both(fn, *args, dtypes=None):
    """fn(lib, *tensors) under minitorch and torch: equal values and dtypes,
    or the same exception type and message."""
    dtypes = dtypes or ["float64"] * len(args)
    out = []
    for lib in (mt, torch):
        try:
            out.append(fn(lib, *[make(lib, a, d) for a, d in zip(args, dtypes)]))
        except Exception as e:  # noqa: BLE001 - compared below
            out.append(e)
    ours, theirs = out
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), f"torch raised {theirs!r}, we returned {ours!r}"
        assert type(ours).__name__ == type(theirs).__name__
        assert str(ours).split("\n")[0] == str(theirs).split("\n")[0]
        return
    assert not isinstance(ours, Exception), f"we raised {ours!r}, torch did not"
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    low = ours.dtype in (mt.float16, mt.bfloat16)
    np.testing.assert_allclose(ours.double().numpy(), theirs.double().numpy(),
                               rtol=2e-2 if low else 1e-5, atol=1e-2 if low else 1e-6,
                               equal_nan=True)


BINARY = {
    "clamp_min": lambda m, a, b: m.clamp_min(a, b),
    "clamp_max": lambda m, a, b: a.clamp_max(b),
    "xlogy": lambda m, a, b: m.xlogy(a, b),
    "logaddexp": lambda m, a, b: m.logaddexp(a, b),
    "logaddexp2": lambda m, a, b: a.logaddexp2(b),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("db", ["float32", "float64", "int64", "bool"])
def test_binary_values_dtypes_broadcasting(name, da, db):
    both(BINARY[name], arr((2, 3), da, "z"), arr((3,), db, "p"), dtypes=[da, db])
    both(BINARY[name], arr((4, 1), da), arr((2, 1, 5), db), dtypes=[da, db])
    both(BINARY[name], arr((), da), arr((2,), db), dtypes=[da, db])


@pytest.mark.parametrize("case", [
    lambda m, a: m.clamp_min(a, 0.5), lambda m, a: m.clamp_max(a, 2),
    lambda m, a: m.clamp_min(a, True), lambda m, a: a.clamp_max(False),
    lambda m, a: m.xlogy(a, 2.5), lambda m, a: m.xlogy(3, a), lambda m, a: a.xlogy(True),
    lambda m, a: m.deg2rad(a), lambda m, a: a.rad2deg(),
    lambda m, a: m.nn.functional.leaky_relu(a), lambda m, a: m.nn.functional.leaky_relu(a, 0.2),
    lambda m, a: m.nn.functional.leaky_relu(a, negative_slope=-1),
])
@pytest.mark.parametrize("dtype", DTYPES)
def test_with_numbers(case, dtype):
    both(case, arr((2, 3), dtype, "z"), dtypes=[dtype])


INPLACE = [
    lambda m, a, b: a.clamp_min_(b), lambda m, a, b: m.clamp_max_(a, 0.5),
    lambda m, a, b: a.xlogy_(b.abs()), lambda m, a, b: m.xlogy_(a, 2),
    lambda m, a, b: a.deg2rad_(), lambda m, a, b: m.rad2deg_(a),
    lambda m, a, b: m.nn.functional.leaky_relu(a, 0.1, inplace=True),
]


@pytest.mark.parametrize("case", INPLACE)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
def test_inplace_forms(case, dtype):
    def run(m, a, b):
        out = case(m, a, b)
        assert out is a
        return a
    both(run, arr((2, 3), dtype), arr((3,), "float64"), dtypes=[dtype, "float64"])


OUT = [
    lambda m, a, o: m.clamp_min(a, 0.0, out=o), lambda m, a, o: m.xlogy(a, a, out=o),
    lambda m, a, o: m.logaddexp(a, a, out=o), lambda m, a, o: m.deg2rad(a, out=o),
    lambda m, a, o: m.rad2deg(a, out=o),
]


@pytest.mark.parametrize("case", OUT)
@pytest.mark.parametrize("odt", ["float32", "float64", "int64"])
def test_out(case, odt):
    def run(m, a, o):
        r = case(m, a, o)
        assert r is o
        return o
    both(run, arr((2, 3), "float32", "p"), np.zeros((2, 3)), dtypes=["float32", odt])


def test_special_values():
    inf, nan = np.inf, np.nan
    a = np.array([inf, -inf, nan, inf, 0.0, 0.0, 0.0, 1e300, -1e300])
    b = np.array([inf, -inf, 1.0, -inf, nan, 0.0, -1.0, 1e300, 5.0])
    for name in BINARY:
        both(BINARY[name], a, b)
    both(lambda m, x: m.nn.functional.leaky_relu(x), a)


def F(m):
    return m.nn.functional


@pytest.mark.parametrize("xs,ws,bs", [
    ((3,), (4, 3), (4,)), ((3,), (4, 3), None), ((2, 3), (4, 3), (4,)), ((2, 3), (4, 3), None),
    ((5, 2, 3), (4, 3), (4,)), ((5, 2, 3), (4, 3), None), ((2, 2, 2, 3), (4, 3), (4,)),
    ((2, 3), (4, 3), ()), ((3,), (4, 3), ()), ((2, 3), (4, 3), (2, 4)), ((0, 3), (4, 3), (4,)),
    ((2, 3), (0, 3), (0,)), ((2, 0), (4, 0), (4,)), ((3,), (3,), None), ((2, 3), (3,), None),
    ((5, 2, 3), (3,), None), ((2, 3), (3,), ()),
])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
def test_linear_values(xs, ws, bs, dtype):
    args = [arr(xs, dtype), arr(ws, dtype)] + ([] if bs is None else [arr(bs, dtype)])
    both(lambda m, *t: F(m).linear(*t), *args, dtypes=[dtype] * len(args))


def test_linear_noncontiguous_and_keywords():
    x, w, b = arr((3, 5, 2), "float64"), arr((4, 5), "float64"), arr((4,), "float64")
    both(lambda m, x, w, b: F(m).linear(x.transpose(1, 2), w, b), x, w, b)
    both(lambda m, x, w, b: F(m).linear(x.transpose(1, 2), w), x, w, b)
    both(lambda m, x, w, b: F(m).linear(x[0].t(), w.t().contiguous().t(), bias=b), x, w, b)
    both(lambda m, x, w, b: F(m).linear(input=x[0].t(), weight=w, bias=None), x, w, b)


@pytest.mark.parametrize("case", [
    lambda m: F(m).linear(m.tensor(1.0), m.ones(2, 3)),
    lambda m: F(m).linear(m.ones(3), m.tensor(1.0)),
    lambda m: F(m).linear(m.ones(3), m.ones(2, 4)),
    lambda m: F(m).linear(m.ones(2, 3), m.ones(2, 4)),
    lambda m: F(m).linear(m.ones(2, 3), m.ones(2, 4), m.ones(2)),
    lambda m: F(m).linear(m.ones(5, 2, 3), m.ones(2, 4), m.ones(2)),
    lambda m: F(m).linear(m.ones(3), m.ones(2, 3), m.ones(3)),
    lambda m: F(m).linear(m.ones(2, 3), m.ones(2, 3), m.ones(3, 2)),
    lambda m: F(m).linear(m.ones(2, 3), m.ones(2, 3, dtype=m.float64)),
    lambda m: F(m).linear(m.ones(2, 3), m.ones(2, 3), m.ones(2, dtype=m.float64)),
    lambda m: F(m).linear(m.ones(4, 2, 3), m.ones(1, 5, 3)),
    lambda m: F(m).linear(m.ones(2, 3, dtype=m.bool), m.ones(2, 3, dtype=m.bool)),
    lambda m: F(m).linear(m.ones(2, 3), m.ones(3), m.ones(())),
    lambda m: m.clamp_min(m.ones(3), m.ones(2)),
    lambda m: m.xlogy(m.ones(3), m.ones(2)),
    lambda m: m.logaddexp(m.ones(3), m.ones(2)),
    lambda m: m.logaddexp(m.ones(3, dtype=m.int64), m.ones(3, dtype=m.int64)),
    lambda m: m.logaddexp2(m.ones(3, dtype=m.bool), m.ones(3, dtype=m.bool)),
    lambda m: m.logaddexp(m.ones(3), 2),
    lambda m: m.clamp_min(m.ones(3, dtype=m.bool), True),
    lambda m: m.clamp_max(m.ones(3, dtype=m.bool), False),
    lambda m: m.ones(3, dtype=m.int64).clamp_min_(0.5),
    lambda m: m.ones(3, dtype=m.int64).xlogy_(2),
    lambda m: m.ones(3, dtype=m.int64).deg2rad_(),
    lambda m: m.deg2rad(m.ones(3), out=m.ones(3, dtype=m.int64)),
    lambda m: m.nn.functional.leaky_relu(m.ones(3, dtype=m.int64)),
    lambda m: m.nn.functional.leaky_relu(m.ones(3, dtype=m.bool)),
    lambda m: m.nn.functional.leaky_relu(m.ones(3, requires_grad=True), inplace=True),
    lambda m: m.xlogy(m.ones(3, requires_grad=True), 2.0, out=m.ones(3)),
])
def test_errors(case):
    both(lambda m: case(m))


def grad_fn_name(t):
    return type(t.grad_fn).__name__ if t.grad_fn is not None else None


@pytest.mark.parametrize("case", [
    lambda m, x, y: m.clamp_min(x, y), lambda m, x, y: m.clamp_min(x, 0.5),
    lambda m, x, y: x.clamp_max(y), lambda m, x, y: x.clamp_max(0.5),
    lambda m, x, y: x.clone().clamp_min_(y), lambda m, x, y: m.clamp_max_(x.clone(), 0.1),
    lambda m, x, y: m.xlogy(x, y), lambda m, x, y: m.xlogy(2.0, y), lambda m, x, y: m.xlogy(x, 2),
    lambda m, x, y: x.clone().xlogy_(y), lambda m, x, y: m.logaddexp(x, y),
    lambda m, x, y: x.logaddexp2(y), lambda m, x, y: m.deg2rad(x), lambda m, x, y: x.rad2deg(),
    lambda m, x, y: x.clone().deg2rad_(), lambda m, x, y: F(m).leaky_relu(x),
    lambda m, x, y: F(m).leaky_relu(x.clone(), 0.3, True),
    lambda m, x, y: F(m).linear(x[0], y, x[1, :2]), lambda m, x, y: F(m).linear(x[0], y),
    lambda m, x, y: F(m).linear(x, y, x[0, :2]), lambda m, x, y: F(m).linear(x, y),
    lambda m, x, y: F(m).linear(x.expand(2, 2, 2), y, x[0, :2]),
    lambda m, x, y: F(m).linear(x.expand(2, 2, 2), y),
    lambda m, x, y: F(m).linear(x.expand(2, 2, 2).transpose(1, 2), y, x[0, :2]),
    lambda m, x, y: F(m).linear(x[0], y, x[0, 0]), lambda m, x, y: F(m).linear(x, y[0]),
    lambda m, x, y: F(m).linear(x[0], y[0]), lambda m, x, y: F(m).linear(x, y, x[0, 0]),
])
def test_grad_fn_names(case):
    x0, y0 = R.standard_normal((2, 2)), np.abs(R.standard_normal((2, 2))) + 0.1
    names = []
    for m in (mt, torch):
        x = m.tensor(x0, requires_grad=True)
        y = m.tensor(y0, requires_grad=True)
        names.append(grad_fn_name(case(m, x, y)))
    assert names[0] == names[1]


GRAD_CASES = [
    lambda m, x, y: m.clamp_min(x, y), lambda m, x, y: m.clamp_max(x, 0.2),
    lambda m, x, y: m.xlogy(x, y.abs()), lambda m, x, y: m.xlogy(x, -1.0),
    lambda m, x, y: m.xlogy(2.0, y.abs()), lambda m, x, y: m.logaddexp(x, y),
    lambda m, x, y: m.logaddexp2(x, y), lambda m, x, y: m.deg2rad(x) * m.rad2deg(y),
    lambda m, x, y: F(m).leaky_relu(x, 0.3) * y, lambda m, x, y: F(m).leaky_relu(x * y, 0.1, True),
    lambda m, x, y: F(m).linear(x, y, x[0]), lambda m, x, y: F(m).linear(x, y),
    lambda m, x, y: F(m).linear(x.expand(2, 3, 3), y, x[0]),
    lambda m, x, y: F(m).linear(x[0], y, x[1]),
    lambda m, x, y: F(m).linear(x.expand(2, 3, 3).transpose(1, 2), y, x[0, 0]),
    lambda m, x, y: F(m).linear(x, y[0]),
]


@pytest.mark.parametrize("case", GRAD_CASES)
def test_first_and_second_derivatives_match_torch(case):
    x0 = R.standard_normal((3, 3))
    x0[0, 0] = 0.0  # xlogy's masked point
    y0 = R.standard_normal((3, 3))
    res = []
    for m in (mt, torch):
        x = m.tensor(x0, requires_grad=True)
        y = m.tensor(y0, requires_grad=True)
        out = case(m, x, y)
        w = m.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
        gx, gy = m.autograd.grad((out * w).sum(), (x, y), create_graph=True, allow_unused=True)
        total = sum((g * g).sum() for g in (gx, gy) if g is not None and g.requires_grad)
        second = (m.autograd.grad(total, (x, y), allow_unused=True)
                  if isinstance(total, m.Tensor) else (None, None))
        res.append([None if g is None else g.detach().numpy() for g in (gx, gy, *second)])
    for ours, theirs in zip(*res):
        if theirs is None or ours is None:  # a formula with no path is None or zeros
            assert ours is None or not np.any(ours)
            assert theirs is None or not np.any(theirs)
            continue
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12, equal_nan=True)


def test_leaky_relu_inplace_negative_slope_refused_in_backward():
    for m in (mt, torch):
        x = m.tensor([1.0, -2.0], requires_grad=True)
        y = F(m).leaky_relu(x.clone(), -0.5, True)
        with pytest.raises(RuntimeError, match="In-place leakyReLu backward calculation"):
            y.sum().backward()


def test_dispatch_reaches_torch_function():
    seen = []
    x = mt.ones(2, 3).as_subclass(recording_subclass(mt, seen))
    x.clamp_min(0.5), mt.xlogy(x, 2.0), mt.logaddexp(x, x), x.deg2rad()
    F(mt).leaky_relu(x), F(mt).linear(x, mt.ones(4, 3))
    assert seen[:6] == ["clamp_min", "xlogy", "logaddexp", "deg2rad", "leaky_relu", "linear"]
