"""Reductions, softmax and cumulative ops against NumPy and PyTorch."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
SHAPES = [(), (5,), (3, 4), (2, 1, 3, 2), (2, 2, 1, 3, 2), (3, 0, 2)]
DTYPES = ["float32", "float64", "int32", "uint8", "bool", "float16"]


def make(shape, dtype):
    if dtype == "bool":
        return np.asarray(RNG.random(shape) > 0.5)
    if dtype in ("int64", "int32", "uint8"):
        return np.asarray(RNG.integers(0, 5, shape)).astype(dtype)
    return np.asarray(RNG.standard_normal(shape)).astype(dtype)


def variants(a):
    """The array as a contiguous, a transposed and a sliced minitorch tensor, with torch twins."""
    yield mt.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if a.ndim >= 2:
        b = np.ascontiguousarray(a.swapaxes(0, -1))
        yield mt.from_numpy(b).transpose(0, -1), torch.from_numpy(b).transpose(0, -1)
        perm = list(range(a.ndim))[::-1]
        c = np.ascontiguousarray(a.transpose(perm))
        yield mt.from_numpy(c).permute(perm), torch.from_numpy(c).permute(perm)


cases = variants


def dim_choices(ndim):
    out = [None]
    if ndim:
        out += [0, -1, (0, -1) if ndim > 1 else (0,)]
    else:
        out += [0, -1]
    return out


def check(got, want, rtol=1e-5, atol=1e-6):
    want = want.numpy() if hasattr(want, "numpy") else np.asarray(want)
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert str(got.dtype) == str(want.dtype), (got.dtype, want.dtype)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                                   atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def tol(dtype):
    return (1e-2, 1e-2) if dtype == "float16" else (1e-5, 1e-5)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["sum", "prod", "all", "any", "count_nonzero"])
def test_sum_like(shape, dtype, name):
    a = make(shape, dtype)
    for m, t in cases(a):
        for dim in dim_choices(a.ndim):
            for keepdim in (False, True):
                kw = {} if dim is None else {"dim": dim}
                if name == "prod" and isinstance(dim, tuple):
                    continue
                if name != "count_nonzero" and dim is not None:
                    kw["keepdim"] = keepdim
                elif keepdim:
                    continue
                check(getattr(mt, name)(m, **kw), getattr(torch, name)(t, **kw), *tol(dtype))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("name", ["mean", "var", "std", "logsumexp", "norm"])
def test_float_reductions(shape, dtype, name):
    a = make(shape, dtype)
    for m, t in cases(a):
        for dim in dim_choices(a.ndim):
            if name == "logsumexp" and dim is None:
                if a.ndim:  # torch rejects dim=() on a tensor with dims
                    continue
                dim = ()
            for keepdim in (False, True):
                # torch's own logsumexp fails with keepdim over every dim
                if name == "logsumexp" and keepdim and isinstance(dim, tuple) and (
                        len(dim) in (0, a.ndim)):
                    continue
                kw = {"dim": dim, "keepdim": keepdim}
                check(getattr(mt, name)(m, **kw), getattr(torch, name)(t, **kw), *tol(dtype))


@pytest.mark.parametrize("shape", [s for s in SHAPES if 0 not in s])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool"])
def test_extrema(shape, dtype):
    a = make(shape, dtype)
    for m, t in cases(a):
        check(m.max(), t.max())
        check(m.amin(), t.amin())
        if dtype == "bool":
            assert err(lambda: m.argmax()) == err(lambda: t.argmax())
            continue
        check(m.argmax(), t.argmax())
        check(m.argmin(keepdim=True), t.argmin(keepdim=True))
        for dim in dim_choices(a.ndim)[1:]:
            if isinstance(dim, int):
                for keepdim in (False, True):
                    got, want = m.max(dim, keepdim), t.max(dim, keepdim)
                    check(got.values, want.values)
                    check(got.indices, want.indices)
                    got = mt.min(m, dim=dim, keepdim=keepdim)
                    want = torch.min(t, dim=dim, keepdim=keepdim)
                    check(got[0], want[0])
                    check(got[1], want[1])
                    check(m.argmax(dim), t.argmax(dim))
            check(m.amax(dim), t.amax(dim))


def test_extrema_nan_and_ties():
    a = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 2.0, 0.0, 0.0]])
    m, t = mt.from_numpy(a), torch.from_numpy(a)
    for dim in (0, 1):
        check(m.max(dim).indices, t.max(dim).indices)
        check(m.min(dim).values, t.min(dim).values)
        check(m.argmin(dim), t.argmin(dim))
    check(m.amax(), t.amax())
    assert type(m.max(0)).__name__ == "max"
    assert m.max(0)._fields if hasattr(m.max(0), "_fields") else True


@pytest.mark.parametrize("overload", [
    lambda f, x: f(x), lambda f, x: f(x, False), lambda f, x: f(x, 0, True, True),
    lambda f, x: f(x, dim=(0, 1), correction=0), lambda f, x: f(x, dim=1, correction=2),
    lambda f, x: f(x, 1, unbiased=False)])
@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
def test_moments_overloads(overload, name):
    a = RNG.standard_normal((3, 4))
    got = overload(getattr(mt, name), mt.from_numpy(a))
    want = overload(getattr(torch, name), torch.from_numpy(a))
    for g, w in zip(got if isinstance(got, tuple) else [got],
                    want if isinstance(want, tuple) else [want]):
        check(g, w)


@pytest.mark.parametrize("p", [1, 2, 3, 0, 0.5, float("inf"), float("-inf"), "fro"])
def test_norm_orders(p):
    a = RNG.standard_normal((3, 5)).astype(np.float32)
    m, t = mt.from_numpy(a), torch.from_numpy(a)
    check(mt.norm(m, p), torch.norm(t, p))
    check(m.norm(p, dim=1, keepdim=True), t.norm(p, dim=1, keepdim=True))
    check(m.norm(p, 0, dtype=mt.float64), t.norm(p, 0, dtype=torch.float64))


def test_dtype_argument():
    a = RNG.integers(-3, 4, (4, 5)).astype(np.int32)
    m, t = mt.from_numpy(a), torch.from_numpy(a)
    check(m.sum(dtype=mt.float32), t.sum(dtype=torch.float32))
    check(m.mean(1, dtype=mt.float64), t.mean(1, dtype=torch.float64))
    check(m.prod(0, dtype=mt.int16), t.prod(0, dtype=torch.int16))
    f = RNG.standard_normal((4, 5)) * 3
    check(mt.from_numpy(f).sum(1, dtype=mt.int64), torch.from_numpy(f).sum(1, dtype=torch.int64))
    check(m.cumsum(1), t.cumsum(1))
    check(m.cumsum(0, dtype=mt.float32), t.cumsum(0, dtype=torch.float32))


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (2, 0, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_and_scans(shape, dtype):
    a = make(shape, dtype)
    for m, t in cases(a):
        for dim in range(-a.ndim, a.ndim):
            check(m.softmax(dim), t.softmax(dim))
            check(mt.log_softmax(m, dim), torch.log_softmax(t, dim))
            check(m.softmax(dim, dtype=mt.float64), t.softmax(dim, dtype=torch.float64))
            check(mt.cumsum(m, dim), torch.cumsum(t, dim))
            check(m.cumprod(dim), t.cumprod(dim))
            check(mt._C._nn_functions["softmax"](m, dim),
                  torch.nn.functional.softmax(t, dim))
            check(mt._C._nn_functions["log_softmax"](m, dim=dim),
                  torch.nn.functional.log_softmax(t, dim=dim))


def test_softmax_extremes():
    a = np.array([[1000.0, 0.0, -1000.0], [-np.inf, 0.0, np.inf], [-np.inf] * 3])
    m, t = mt.from_numpy(a), torch.from_numpy(a)
    check(m.softmax(1), t.softmax(1))
    check(m.log_softmax(1), t.log_softmax(1))
    check(m.logsumexp(1), t.logsumexp(1))


@pytest.mark.parametrize("n", [1, 7, 8, 9, 33, 1000])
def test_float32_softmax_rows(n):
    """Contiguous float32 rows take the vectorised path, tails and extremes too."""
    a = (RNG.standard_normal((6, n)) * 30).astype(np.float32)
    a[1, 0] = 1000.0
    a[2, :] = -np.inf
    a[3, n // 2] = np.inf
    a[4, -1] = np.nan
    a[5, 0] = -np.inf
    m, t = mt.from_numpy(a), torch.from_numpy(a)
    for dim in (1, -1):
        check(m.softmax(dim), t.softmax(dim))
        check(m.log_softmax(dim), t.log_softmax(dim))
    # a strided view of the same rows goes the general way and agrees
    check(m.t().contiguous().t().softmax(1), t.softmax(1))


def test_large_sums_accuracy():
    a = RNG.random(3_000_001).astype(np.float32)
    ref = a.astype(np.float64).sum()
    assert abs(float(mt.from_numpy(a).sum()) - ref) / ref < 1e-6
    b = RNG.random((512, 3000)).astype(np.float32)
    np.testing.assert_allclose(mt.from_numpy(b).sum(-1).numpy(), b.astype(np.float64).sum(-1),
                               rtol=1e-6)
    np.testing.assert_allclose(mt.from_numpy(b).sum(0).numpy(), b.astype(np.float64).sum(0),
                               rtol=1e-6)
    c = RNG.standard_normal(200_001)
    m = mt.from_numpy(c)
    np.testing.assert_allclose(float(m.var()), c.var(ddof=1), rtol=1e-10)
    assert int(m.argmax()) == int(c.argmax())
    np.testing.assert_allclose(float(m.logsumexp(0)), np.logaddexp.reduce(c), rtol=1e-10)


def err(fn):
    with pytest.raises(Exception) as e:
        fn()
    return type(e.value), str(e.value)


@pytest.mark.parametrize("call", [
    lambda x, e: x.sum(2), lambda x, e: x.sum((0, 0)), lambda x, e: x.sum((0, -2)),
    lambda x, e: x.mean(), lambda x, e: x.mean(dtype=e.int64), lambda x, e: x.var(),
    lambda x, e: x.norm(), lambda x, e: x.softmax(0), lambda x, e: x.log_softmax(1),
    lambda x, e: x.amax(5), lambda x, e: x.max(-3), lambda x, e: x.cumsum(0, dtype=e.bool),
])
def test_errors_int(call):
    a = np.arange(6).reshape(2, 3)
    assert err(lambda: call(mt.from_numpy(a), mt)) == err(lambda: call(torch.from_numpy(a), torch))


@pytest.mark.parametrize("call", [
    lambda x: x.max(), lambda x: x.amax(), lambda x: x.argmax(), lambda x: x.max(0),
    lambda x: x.amin((0, 1)), lambda x: x.argmin(0), lambda x: x.norm(float("-inf")),
])
def test_errors_empty(call):
    a = np.zeros((0, 3), np.float32)
    assert err(lambda: call(mt.from_numpy(a))) == err(lambda: call(torch.from_numpy(a)))


def test_empty_results():
    a = np.zeros((0, 3), np.float32)
    m, t = mt.from_numpy(a), torch.from_numpy(a)
    for f in (lambda x: x.sum(0), lambda x: x.prod(0), lambda x: x.max(1).values,
              lambda x: x.logsumexp(0), lambda x: x.all(0), lambda x: x.any(),
              lambda x: x.mean(0), lambda x: x.norm(dim=0), lambda x: x.amax(1)):
        check(f(m), f(t))
