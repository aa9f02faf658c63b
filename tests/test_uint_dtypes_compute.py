"""What torch computes on uint16, uint32 and uint64, against torch: the
functions that compute integers in the default float dtype (their in-place
forms refused), the identities and predicates on integers, eq/ne and the
closeness tests, mul, sum/prod and all/any, sorting, and the refusals of the
rest in torch's words. Values include those above 2^31 and 2^63."""
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

UNSIGNED = ("uint16", "uint32", "uint64")
# per dtype: small values and ones above int16's, int32's and int64's range
VALUES = {
    "uint16": [0, 1, 7, 40000, 65535, 3],
    "uint32": [0, 1, 7, 2**31 + 5, 2**32 - 1, 3],
    "uint64": [0, 1, 7, 2**63 + 5, 2**64 - 1, 2**40 + 3],
}
SMALL = [0, 1, 2, 3, 5, 4]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def pair(name, values, shape=(2, 3)):
    """The same tensor in torch and in minitorch, built through NumPy."""
    a = np.array(values, dtype=getattr(np, name)).reshape(shape)
    return torch.from_numpy(a.copy()), mt.tensor(a.copy())


def outcome(fn, *args, **kwargs):
    """('ok', dtype name, NumPy values) of fn's result (the first of a tuple),
    or (exception type name, message)."""
    try:
        r = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the oracle's error is what we compare
        return type(e).__name__, str(e).split("\n")[0]
    if isinstance(r, tuple):
        r = r[0]
    if isinstance(r, bool):
        return "ok", "bool", r
    return "ok", str(r.dtype).split(".")[-1], r.numpy()


def assert_same(got, want):
    assert got[:2] == want[:2], (got, want)
    if got[0] != "ok":
        return
    g, w = np.asarray(got[2]), np.asarray(want[2])
    assert g.shape == w.shape
    if w.dtype.kind == "f":
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, w)


def swapped(lib, x):
    """x with its rows swapped: another operand of the same values (torch's
    flip refuses the last dim of these dtypes)."""
    return lib.cat([x[1:], x[:1]])


def both(name, call, values=None, shape=(2, 3)):
    """call(lib, tensor) in torch and in minitorch, compared."""
    t, m = pair(name, VALUES[name] if values is None else values, shape)
    assert_same(outcome(call, mt, m), outcome(call, torch, t))


FLOAT_UNARY = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "arccos", "arccosh", "arcsin",
               "arcsinh", "arctan", "arctanh", "cos", "cosh", "sin", "sinh", "tan", "tanh",
               "exp", "exp2", "expm1", "log", "log10", "log1p", "log2", "sqrt", "rsqrt",
               "sigmoid", "erf", "erfc", "erfinv", "lgamma", "digamma", "i0", "reciprocal",
               "sinc", "deg2rad", "rad2deg", "angle"]


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("fn", FLOAT_UNARY)
def test_float_unary_computes_in_the_default_float(name, fn):
    values = SMALL if fn in ("sin", "cos", "tan", "sinc", "lgamma", "digamma") else None
    both(name, lambda lib, x: getattr(lib, fn)(x), values)


@pytest.mark.parametrize("name", UNSIGNED)
# (angle has no in-place form; minitorch lacks arccos_, arcsin_, arctan_)
@pytest.mark.parametrize("fn", [f for f in FLOAT_UNARY
                                if f not in ("angle", "arccos", "arcsin", "arctan")])
def test_float_unary_in_place_is_refused(name, fn):
    method = fn + "_"
    t, m = pair(name, SMALL)
    want = outcome(getattr(torch.Tensor, method), t)
    assert want[0] == "RuntimeError"
    assert outcome(getattr(mt.Tensor, method), m) == want


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("fn", ["atan2", "arctan2", "copysign", "xlogy", "true_divide", "div",
                                "divide"])
def test_float_binary(name, fn):
    both(name, lambda lib, x: getattr(lib, fn)(x, swapped(lib, x)))
    both(name, lambda lib, x: getattr(lib, fn)(x, 3))


@pytest.mark.parametrize("name", UNSIGNED)
def test_ldexp(name):
    t, m = pair(name, SMALL)
    assert_same(outcome(mt.ldexp, m, m), outcome(torch.ldexp, t, t))


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("fn", ["floor", "ceil", "trunc", "round", "fix", "positive",
                                "conj_physical", "nan_to_num"])
def test_identities(name, fn):
    both(name, lambda lib, x: getattr(lib, fn)(x))
    if fn not in ("fix", "positive"):
        both(name, lambda lib, x: getattr(lib.Tensor, fn + "_")(x))


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("fn", ["isfinite", "isnan", "isinf", "isposinf", "isneginf",
                                "signbit"])
def test_predicates(name, fn):
    both(name, lambda lib, x: getattr(lib, fn)(x))


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("fn", ["eq", "ne", "not_equal", "isclose", "allclose", "equal"])
def test_comparisons(name, fn):
    both(name, lambda lib, x: getattr(lib, fn)(x, swapped(lib, x)))
    both(name, lambda lib, x: getattr(lib, fn)(x, x.clone()))
    if fn in ("eq", "ne", "not_equal"):
        both(name, lambda lib, x: getattr(lib, fn)(x, 7))
        both(name, lambda lib, x: x == 1)


@pytest.mark.parametrize("name", UNSIGNED)
def test_mul_wraps_as_torch(name):
    both(name, lambda lib, x: lib.mul(x, x))
    both(name, lambda lib, x: lib.multiply(x, swapped(lib, x)))
    both(name, lambda lib, x: x * 3)
    both(name, lambda lib, x: x * 2.5)
    both(name, lambda lib, x: x * lib.tensor(3))
    both(name, lambda lib, x: lib.kron(x, x))


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("call", [lambda lib, x: lib.where(x == 1, x, swapped(lib, x)),
                                  lambda lib, x: lib.where(x == 1, x, 0),
                                  lambda lib, x: x & swapped(lib, x), lambda lib, x: x | 1,
                                  lambda lib, x: lib.bitwise_xor(x, x),
                                  lambda lib, x: lib.special.expit(x),
                                  lambda lib, x: lib.special.erf(x),
                                  lambda lib, x: lib.special.xlogy(x, 2),
                                  lambda lib, x: lib.special.round(x),
                                  lambda lib, x: lib.sin(x, out=lib.empty(2, 3)),
                                  lambda lib, x: lib.sin(x, out=lib.empty(2, 3, dtype=x.dtype)),
                                  lambda lib, x: x.__imul__(3), lambda lib, x: x.__itruediv__(2),
                                  lambda lib, x: lib.clamp(x, 1, 2),
                                  lambda lib, x: lib.clamp_min(x, 1),
                                  lambda lib, x: lib.clamp(x, max=x),
                                  lambda lib, x: lib.conj_physical(x, out=lib.empty_like(x)),
                                  lambda lib, x: lib.nn.functional.threshold(x, 1, 0)])
def test_other_forms(name, call):
    both(name, call)


@pytest.mark.parametrize("name", UNSIGNED)
def test_mixed_integer_promotion_is_refused(name):
    both(name, lambda lib, x: x * lib.ones(3, dtype=lib.int64))
    both(name, lambda lib, x: lib.eq(x, lib.ones(3, dtype=lib.int32)))


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("call", [lambda lib, x: lib.sum(x), lambda lib, x: lib.sum(x, 0),
                                  lambda lib, x: lib.sum(x, (0, 1), keepdim=True),
                                  lambda lib, x: lib.nansum(x), lambda lib, x: lib.nansum(x, 1),
                                  lambda lib, x: lib.prod(x), lambda lib, x: lib.prod(x, 1),
                                  lambda lib, x: lib.sum(x, dtype=lib.float64),
                                  lambda lib, x: lib.sum(x, dtype=lib.int32),
                                  lambda lib, x: lib.all(x), lambda lib, x: lib.any(x, 1),
                                  lambda lib, x: lib.all(x, 0, keepdim=True),
                                  lambda lib, x: lib.any(x * 0)])
def test_reductions(name, call):
    both(name, call)


@pytest.mark.parametrize("name", UNSIGNED)
def test_reductions_into_unsigned_are_refused(name):
    both(name, lambda lib, x: lib.sum(x, dtype=getattr(lib, name)))
    both(name, lambda lib, x: lib.prod(x, dtype=getattr(lib, name)))
    both(name, lambda lib, x: lib.sum(x, 0, out=lib.empty(3, dtype=getattr(lib, name))))


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("call", [lambda lib, x: lib.sort(x), lambda lib, x: lib.sort(x, 0),
                                  lambda lib, x: lib.sort(x, descending=True, stable=True),
                                  lambda lib, x: lib.sort(x, stable=True).indices,
                                  lambda lib, x: lib.argsort(x),
                                  lambda lib, x: lib.argsort(x, 1, descending=True),
                                  lambda lib, x: lib.msort(x)])
def test_sorting(name, call):
    both(name, call)
    # long lines take the radix path
    values = (VALUES[name] * 40)[:240]
    both(name, call, values, (2, 120))


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("call", [lambda lib, x: lib.diag(x), lambda lib, x: lib.diag(x[0]),
                                  lambda lib, x: lib.diagflat(x), lambda lib, x: lib.cov(x),
                                  lambda lib, x: lib.corrcoef(x),
                                  lambda lib, x: x.clone().resize_as_(x[0])])
def test_movers_and_statistics(name, call):
    both(name, call, SMALL)


REFUSED = ["abs", "neg", "negative", "sign", "square", "exp_", "sqrt_", "add", "sub",
           "subtract", "rsub", "ge", "gt", "le", "lt", "clamp_min", "fmod", "remainder",
           "floor_divide", "hypot", "heaviside", "logical_and", "logical_not", "frac",
           "bitwise_not", "maximum", "minimum", "fmax", "pow", "isin", "trace"]


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("fn", REFUSED)
def test_refusals_in_torchs_words(name, fn):
    def call(lib, x):
        f = getattr(lib.Tensor, fn) if fn.endswith("_") else getattr(lib, fn)
        try:
            return f(x)
        except TypeError:
            return f(x, x)
    t, m = pair(name, SMALL)
    want = outcome(call, torch, t)
    assert want[0] != "ok", "torch computes this now"
    assert outcome(call, mt, m) == want
