"""searchsorted and bucketize (kernels/sort_search.c) against torch: batched and
1-D boundaries, both sides, sorters, NaN, dtypes, empty inputs and errors."""
import numpy as np
import pytest

from test_kernels_extra import both

torch = pytest.importorskip("torch")

R = np.random.default_rng(17)
S = np.sort(R.integers(0, 10, (3, 4, 7)), -1).astype(np.float32)
V = R.integers(-1, 11, (3, 4, 5)).astype(np.float32)
S[0, 0, -1] = V[0, 0, 0] = V[2, 1, 3] = np.nan


@pytest.mark.parametrize("right", [False, True])
def test_matches_torch(right):
    side = "right" if right else "left"
    both(lambda m, a, b: m.searchsorted(a, b, right=right), S, V)
    both(lambda m, a, b: m.searchsorted(a, b, side=side, right=right), S, V)
    both(lambda m, a, b: m.searchsorted(a[1, 2], b, right=right, out_int32=True), S, V)
    both(lambda m, a, b: m.searchsorted(a[1, 2], 3.0, right=right), S, V)
    both(lambda m, a, b: m.searchsorted(a.transpose(0, 1).to(m.int64),
                                        b.transpose(0, 1)[:, :, ::2], side=side), S, V)
    both(lambda m, a, b: m.bucketize(b, a[1, 1], right=right), S, V)
    both(lambda m, a, b: m.bucketize(b.t(), a[0, 3], out_int32=True, right=right), S[0], V[0])
    both(lambda m, a, b: m.bucketize(4, a[1, 1], right=right), S, V)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64", "float16",
                                   "float64"])
def test_dtypes_and_sorter(dtype):
    bounds = R.integers(0, 2 if dtype == "bool" else 50, (3, 9)).astype(dtype)
    values = R.integers(0, 2 if dtype == "bool" else 50, (3, 6)).astype(dtype)
    order = np.argsort(bounds, -1, kind="stable")
    both(lambda m, a, b, p: m.searchsorted(a, b, sorter=p), bounds, values, order)
    both(lambda m, a, b, p: m.searchsorted(a, b, sorter=p, right=True), bounds, values, order)
    both(lambda m, a, b: m.bucketize(b, a), np.sort(bounds[0]), values)
    both(lambda m, a, b: m.searchsorted(a, b), np.sort(bounds[0]), values.astype(np.float32))


def test_empty():
    both(lambda m, a, b: m.searchsorted(a, b), np.zeros((3, 0)), np.zeros((3, 2)))
    both(lambda m, a, b: m.searchsorted(a, b), np.zeros((3, 4)), np.zeros((3, 0)))
    both(lambda m, a, b: m.searchsorted(a, b), np.zeros((0, 4)), np.zeros((0, 3)))
    both(lambda m, a, b: m.bucketize(b, a), np.arange(5), np.zeros((0, 3)))


def test_errors_match_torch():
    cases = [
        lambda m, a, b: m.searchsorted(a, b[:2]),
        lambda m, a, b: m.searchsorted(a, b[0, 0]),
        lambda m, a, b: m.searchsorted(a, b[0, 0, 0]),
        lambda m, a, b: m.searchsorted(a, b, side="x"),
        lambda m, a, b: m.searchsorted(a, b, side="left", right=True),
        lambda m, a, b: m.searchsorted(a[0, 0, 0], b),
        lambda m, a, b: m.searchsorted(a, 3),
        lambda m, a, b: m.searchsorted(a, b, sorter=a.long()[:1]),
        lambda m, a, b: m.searchsorted(a[..., :5], b, sorter=b),
        lambda m, a, b: m.bucketize(b, a),
        lambda m, a, b: m.bucketize(b, a[0, 0, 0]),
    ]
    for f in cases:
        both(f, S, V)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64", "float16", "float32"])
def test_isin(dtype):
    elems = R.integers(0, 12, (4, 5)).astype(dtype)
    tests = R.integers(0, 12, (3, 2)).astype(dtype)
    both(lambda m, a, b: m.isin(a, b), elems, tests)
    both(lambda m, a, b: m.isin(a.t(), b[:, 0], invert=True), elems, tests)
    both(lambda m, a, b: m.isin(a, b[:0]), elems, tests)
    both(lambda m, a, b: m.isin(a[:0], b), elems, tests)
    both(lambda m, a, b: m.isin(a, 3), elems, tests)
    both(lambda m, a, b: m.isin(a[0, 0].item(), b), elems, tests)
    both(lambda m, a, b: m.isin(a, b.double(), assume_unique=True), elems, tests)


def test_isin_nan():
    both(lambda m, a, b: m.isin(a, b), np.array([np.nan, 1.0, 2.0]), np.array([np.nan, 2.0]))


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int64"])
def test_bincount(dtype):
    x = R.integers(0, 9, 20).astype(dtype)
    both(lambda m, a: m.bincount(a), x)
    both(lambda m, a: a[::3].bincount(minlength=12), x)
    both(lambda m, a: m.bincount(a[:0]), x)
    both(lambda m, a: m.bincount(a[:0], minlength=3), x)
    for wdtype in ("float16", "float32", "float64", "int32"):
        w = R.integers(-3, 4, 20).astype(wdtype)
        both(lambda m, a, b: m.bincount(a, b), x, w)
        both(lambda m, a, b: a.bincount(weights=b, minlength=15), x, w)


def test_bincount_errors_match_torch():
    cases = [
        lambda m, a: m.bincount(a - 5),
        lambda m, a: m.bincount(a.reshape(2, 10)),
        lambda m, a: m.bincount(a.double()),
        lambda m, a: m.bincount(a.bool()),
        lambda m, a: m.bincount(a, minlength=-1),
        lambda m, a: m.bincount(a, a[:3].float()),
    ]
    for f in cases:
        both(f, np.arange(20))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histc(dtype):
    x = (R.standard_normal((6, 7)) * 3).astype(dtype)
    x[1, 2] = np.nan
    both(lambda m, a: m.histc(a[a == a]), x)
    both(lambda m, a: m.histc(a, 7, -2, 3), x)
    both(lambda m, a: a.t().histc(bins=5, min=-1.5, max=1.5), x)
    both(lambda m, a: m.histc(a[0], 4, 2, 2), x)
    both(lambda m, a: m.histc(a[:0], 3), x)
    both(lambda m, a: m.histc(m.ones(3, dtype=a.dtype), 3), x)
    both(lambda m, a: m.histc(m.tensor([0.0, 1.0, 2.0, 3.0, 4.0], dtype=a.dtype), 4), x)


def test_histc_errors_match_torch():
    cases = [
        lambda m, a: m.histc(a, 0),
        lambda m, a: m.histc(a, 3, 3, 1),
        lambda m, a: m.histc(a.long(), 3),
        lambda m, a: m.histc(m.tensor([float("nan")]), 3),
        lambda m, a: m.histc(m.tensor([1.0, float("inf")]), 3),
    ]
    for f in cases:
        both(f, np.arange(5.0))
