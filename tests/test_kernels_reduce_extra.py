"""kthvalue, nanmedian, aminmax, cummax, cummin, logcumsumexp, quantile and
nanquantile against torch."""
import numpy as np
import pytest

import minitorch as mt
from test_kernels_reduce import check, err, make, variants
from test_kernels_sort import DTYPES, data, pair

torch = pytest.importorskip("torch")

SHAPES = [(), (7,), (3, 9), (4, 0, 3), (2, 3, 5)]


def check_pair(got, ref, name, fields=("values", "indices")):
    assert type(got).__name__ == name
    for f in fields:
        check(getattr(got, f), getattr(ref, f))


def distinct(shape, dtype, rng):
    """Values without ties, so every position torch picks is defined."""
    n = int(np.prod(shape))
    x = rng.permutation(n).reshape(shape)
    return np.asarray(x % 120 if dtype in ("int8", "uint8") else x).astype(dtype)


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != "bool"])
def test_kthvalue(dtype):
    rng = np.random.default_rng(10)
    for shape in [(), (7,), (3, 9), (2, 3, 5)]:
        # distinct values, and many ties and NaN: torch's quickselect positions
        for x in (distinct(shape, dtype, rng), data(shape, dtype, rng, nan=True)):
            m, t = pair(x)
            for dim in range(-max(len(shape), 1), max(len(shape), 1)):
                n = shape[dim] if shape else 1
                for k in sorted({1, min(2, n), (n + 1) // 2, n}):
                    for keepdim in (False, True):
                        got = m.kthvalue(k, dim, keepdim)
                        check_pair(got, torch.kthvalue(t, k, dim, keepdim), "kthvalue")


def test_kthvalue_long_lines_with_ties():
    rng = np.random.default_rng(17)
    x = rng.integers(0, 7, (20, 300)).astype(np.float64)
    x[x == 3] = np.nan
    m, t = pair(x)
    for k in (1, 37, 150, 299, 300):
        check_pair(m.kthvalue(k), torch.kthvalue(t, k), "kthvalue")
        check_pair(m.kthvalue(min(k, 20), 0), torch.kthvalue(t, min(k, 20), 0), "kthvalue")


def test_kthvalue_non_contiguous_and_empty():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((6, 8))
    m, t = pair(x)
    check_pair(m.t()[:, ::2].kthvalue(3, 0), t.t()[:, ::2].kthvalue(3, 0), "kthvalue")
    check_pair(mt.kthvalue(mt.zeros(2, 0), 1, 0), torch.kthvalue(torch.zeros(2, 0), 1, 0),
               "kthvalue")


@pytest.mark.parametrize("call", [
    lambda e: e.kthvalue(e.zeros(3), 0), lambda e: e.kthvalue(e.zeros(3), 4),
    lambda e: e.kthvalue(e.zeros(2, 3), 3, 0), lambda e: e.kthvalue(e.zeros(0), 1),
    lambda e: e.kthvalue(e.zeros(3), 1, 1), lambda e: e.kthvalue(e.tensor(3.0), 2),
    lambda e: e.kthvalue(e.tensor([True]), 1), lambda e: e.kthvalue(e.zeros(3, dtype=e.bool), 5),
    lambda e: e.kthvalue(e.zeros(0, dtype=e.bool), 1),
    lambda e: e.nanmedian(e.tensor([True])), lambda e: e.nanmedian(e.tensor([True]), 0),
    lambda e: e.median(e.tensor([True])), lambda e: e.median(e.tensor([True]), 0),
    lambda e: e.median(e.zeros(2, 0, dtype=e.bool), 1), lambda e: e.nanmedian(e.zeros(2, 0), 1),
    lambda e: e.nanmedian(e.zeros(2), 1),
    lambda e: e.aminmax(e.zeros(0)), lambda e: e.aminmax(e.zeros(2, 0), dim=1),
    lambda e: e.aminmax(e.zeros(3), dim=1),
    lambda e: e.cummax(e.zeros(3), 1), lambda e: e.cummin(e.zeros(2, 3), -3),
    lambda e: e.logcumsumexp(e.tensor([1, 2]), 0), lambda e: e.logcumsumexp(e.tensor([True]), 0),
    lambda e: e.logcumsumexp(e.zeros(3), 1),
])
def test_errors(call):
    assert err(lambda: call(mt)) == err(lambda: call(torch))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int16"])
def test_nanmedian(dtype):
    rng = np.random.default_rng(12)
    for shape in [(7,), (4, 6), (3, 5, 2), (3, 0)]:
        x = data(shape, dtype, rng, nan=True)
        if dtype.startswith("float") and x.size:
            x[0] = np.nan  # a line (or lines) of NaN only
        m, t = pair(x)
        check(m.nanmedian(), t.nanmedian())
        for dim in range(-len(shape), len(shape)):
            if shape[dim] == 0:
                continue
            # a line of only NaN: torch's nth_element picks some NaN, ours is the first
            all_nan = np.isnan(x.astype(np.float64)).all(dim)
            for keepdim in (False, True):
                got, ref = m.nanmedian(dim, keepdim), t.nanmedian(dim, keepdim)
                check(got.values, ref.values)
                assert type(got).__name__ == "nanmedian"
                gi, ri = got.indices.numpy(), ref.indices.numpy()
                if keepdim:
                    gi, ri = gi.squeeze(dim), ri.squeeze(dim)
                np.testing.assert_array_equal(gi[~all_nan], ri[~all_nan])
                np.testing.assert_array_equal(gi[all_nan], 0)
    m, t = pair(np.array([np.nan, 2.0, 1.0, np.nan, 3.0]))
    check_pair(mt.nanmedian(m, 0), torch.nanmedian(t, 0), "nanmedian")
    check_pair(mt.nanmedian(m.reshape(5, 1).t(), 1), torch.nanmedian(t.reshape(5, 1).t(), 1),
               "nanmedian")
    check(mt.nanmedian(mt.zeros(0, dtype=mt.bool)), torch.nanmedian(torch.zeros(0, dtype=bool)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "bool", "float16"])
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 1, 3, 2), (3, 0, 2)])
def test_aminmax(shape, dtype):
    a = make(shape, dtype)
    if dtype.startswith("float") and a.size > 2:
        a.reshape(-1)[1] = np.nan
    for m, t in variants(a):
        for keepdim in (False, True):
            if a.size:
                check_pair(mt.aminmax(m, keepdim=keepdim), torch.aminmax(t, keepdim=keepdim),
                           "aminmax", ("min", "max"))
            for dim in range(-max(a.ndim, 1), max(a.ndim, 1)):
                if a.ndim and a.shape[dim] == 0:
                    continue
                check_pair(m.aminmax(dim=dim, keepdim=keepdim),
                           t.aminmax(dim=dim, keepdim=keepdim), "aminmax", ("min", "max"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cummax_cummin(dtype):
    rng = np.random.default_rng(13)
    for shape in SHAPES:
        x = data(shape, dtype, rng, nan=True)  # ties and NaN: positions must still agree
        for m, t in variants(x):
            for dim in range(-max(x.ndim, 1), max(x.ndim, 1)):
                check_pair(m.cummax(dim), t.cummax(dim), "cummax")
                check_pair(mt.cummin(m, dim), torch.cummin(t, dim), "cummin")


def test_cummax_long_lines_threads():
    rng = np.random.default_rng(14)
    m, t = pair(rng.integers(0, 1000, (40, 3000)))
    for dim in (0, 1):
        check_pair(m.cummax(dim), t.cummax(dim), "cummax")


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_logcumsumexp(dtype):
    for shape in [(), (5,), (3, 4), (2, 3, 4), (2, 0, 3)]:
        a = np.asarray(np.random.default_rng(15).standard_normal(shape) * 30, np.float32)
        m = mt.from_numpy(a.copy()).to(getattr(mt, dtype))
        t = torch.from_numpy(a.copy()).to(getattr(torch, dtype))
        for dim in range(-max(a.ndim, 1), max(a.ndim, 1)):
            got, ref = m.logcumsumexp(dim).float(), t.logcumsumexp(dim).float()
            rtol = 1e-2 if dtype in ("float16", "bfloat16") else 1e-5
            check(got, ref, rtol=rtol, atol=rtol)
            if a.ndim >= 2:
                check(mt.logcumsumexp(m.transpose(0, -1), dim).float(),
                      torch.logcumsumexp(t.transpose(0, -1), dim).float(), rtol=rtol, atol=rtol)


def test_logcumsumexp_extremes():
    inf, nan = float("inf"), float("nan")
    a = np.array([[1000.0, 0.0, -1000.0, 1000.0], [-inf, -inf, 1.0, inf], [inf, inf, -inf, 2.0],
                  [1.0, nan, 2.0, inf], [-inf, nan, -inf, -inf]])
    m, t = pair(a)
    check(m.logcumsumexp(1), t.logcumsumexp(1))
    check(m.logcumsumexp(0), t.logcumsumexp(0))


@pytest.mark.parametrize("call", [
    lambda e, x: e.logcumsumexp(x, 1, out=e.zeros(2, 3)),
    lambda e, x: e.logcumsumexp(x, 0, out=e.zeros(0)),
    lambda e, x: e.logcumsumexp(x, 1, out=x),
    lambda e, x: e.logcumsumexp(x, 1, out=e.zeros(3, 2).t()),
])
def test_logcumsumexp_out(call):
    a = np.random.default_rng(19).standard_normal((2, 3)).astype(np.float32)
    m, t = pair(a)
    check(call(mt, m), call(torch, t))
    check(m, t)  # out=x wrote into the input itself


def test_logcumsumexp_out_resized_with_warning():
    a = np.arange(6.0).reshape(2, 3)
    m, t = pair(a)
    outs = []
    for e, x in ((mt, m), (torch, t)):
        with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
            outs.append(e.logcumsumexp(x, -1, out=e.zeros(7, dtype=e.float64)))
    check(outs[0], outs[1])


@pytest.mark.parametrize("call", [
    lambda e, x: e.logcumsumexp(x, 1, out=e.zeros(2, 3, dtype=e.float64)),
    lambda e, x: e.logcumsumexp(x.long(), 1, out=e.zeros(2, 3)),
    lambda e, x: e.logcumsumexp(x.long(), 1, out=e.zeros(2, 3, dtype=e.int64)),
    lambda e, x: e.logcumsumexp(x.requires_grad_(), 1, out=e.zeros(2, 3)),
    lambda e, x: e.mm(x.requires_grad_(), x.t(), out=e.zeros(2, 2)),
])
def test_out_errors(call):
    a = np.random.default_rng(20).standard_normal((2, 3)).astype(np.float32)
    assert err(lambda: call(mt, mt.from_numpy(a.copy()))) == err(
        lambda: call(torch, torch.from_numpy(a.copy())))


def test_named_pairs_print_as_torch():
    x = np.array([[3.0, 1.0], [2.0, 2.0]], np.float32)
    m, t = pair(x)
    for name, args, kw in [("kthvalue", (1,), {}), ("nanmedian", (0,), {}), ("cummax", (1,), {}),
                           ("cummin", (0,), {}), ("aminmax", (), {"dim": 1})]:
        assert repr(getattr(m, name)(*args, **kw)) == repr(
            getattr(t, name)(*args, **kw)).replace("torch.", "minitorch.")


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_quantile(name, interpolation, dtype):
    rng = np.random.default_rng(16)
    for shape in [(), (1,), (7,), (3, 4), (2, 3, 5)]:
        a = rng.standard_normal(shape).astype(dtype)
        if a.ndim >= 2:
            a[0, 1] = np.nan
            a[1] = np.nan  # a line of only NaN
        for m, t in variants(a):
            for q in (0.0, 0.37, 1.0, [0.1, 0.5, 0.9], [], 0.5):
                qm = mt.tensor(q, dtype=m.dtype) if isinstance(q, list) else q
                qt = torch.tensor(q, dtype=t.dtype) if isinstance(q, list) else q
                for dim in [None] + list(range(-max(a.ndim, 1), max(a.ndim, 1))):
                    for keepdim in (False, True):
                        got = getattr(mt, name)(m, qm, dim, keepdim, interpolation=interpolation)
                        ref = getattr(torch, name)(t, qt, dim, keepdim,
                                                   interpolation=interpolation)
                        check(got, ref)
        m, t = pair(a)
        check(getattr(m, name)(mt.tensor(0.25, dtype=m.dtype), interpolation=interpolation),
              getattr(t, name)(torch.tensor(0.25, dtype=t.dtype), interpolation=interpolation))


@pytest.mark.parametrize("call", [
    lambda e: e.quantile(e.zeros(0), 0.5), lambda e: e.quantile(e.zeros(3), 1.5),
    lambda e: e.quantile(e.zeros(0), 1.5, interpolation="foo"),
    lambda e: e.quantile(e.zeros(0), 0.5, interpolation="foo"),
    lambda e: e.nanquantile(e.zeros(3), 0.5, interpolation="Linear"),
    lambda e: e.quantile(e.zeros(3), e.tensor([1.5])),
    lambda e: e.quantile(e.zeros(3), e.tensor([0.5, -1.0])),
    lambda e: e.quantile(e.zeros(3, dtype=e.int64), 0.5),
    lambda e: e.quantile(e.zeros(3, dtype=e.float16), 0.5),
    lambda e: e.quantile(e.zeros(3), e.tensor([0.5], dtype=e.float64)),
    lambda e: e.quantile(e.zeros(3), e.zeros(2, 2)),
    lambda e: e.quantile(e.zeros(3), 0.5, dim=1), lambda e: e.quantile(e.tensor(3.0), 0.5, dim=2),
    lambda e: e.quantile(e.zeros(0), e.tensor([0.5]), dim=4),
])
def test_quantile_errors(call):
    assert err(lambda: call(mt)) == err(lambda: call(torch))


def test_quantile_grad_and_method():
    x = mt.tensor([[0.3, -1.2, 2.0, 0.7], [1.1, 0.2, -0.4, 3.0]], dtype=mt.float64,
                  requires_grad=True)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    q = [0.2, 0.75]
    x.quantile(mt.tensor(q, dtype=mt.float64), 1).sum().backward()
    tx.quantile(torch.tensor(q, dtype=torch.float64), 1).sum().backward()
    check(x.grad, tx.grad)
    assert mt.autograd.gradcheck(lambda y: mt.nanquantile(y, 0.4, 0), (x,))


FORWARD = {
    "logcumsumexp-1": lambda e, y: e.logcumsumexp(y, 1),
    "logcumsumexp-0": lambda e, y: e.logcumsumexp(y, 0),
    "cummax": lambda e, y: e.cummax(y, 1).values,
    "kthvalue": lambda e, y: e.kthvalue(y, 2).values,
    "aminmax": lambda e, y: e.aminmax(y, dim=0).max,
    "quantile": lambda e, y: e.quantile(y, 0.3, 1),
}


@pytest.mark.parametrize("call", FORWARD.values(), ids=FORWARD.keys())
def test_forward_ad(call):
    """logcumsumexp has its own jvp; the others derive theirs from the backward."""
    rng = np.random.default_rng(18)
    x, tangent = rng.standard_normal((3, 4)) * 10, rng.standard_normal((3, 4))
    got = []
    for e in (mt, torch):
        with e.autograd.forward_ad.dual_level():
            dual = e.autograd.forward_ad.make_dual(e.tensor(x), e.tensor(tangent))
            got.append(e.autograd.forward_ad.unpack_dual(call(e, dual)).tangent)
    check(got[0], got[1])
