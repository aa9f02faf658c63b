"""Tensor.cauchy_, log_normal_ and geometric_: the draws follow their
distributions (quantiles and moments over many samples), a seeded generator
repeats them, they fill in place whatever the layout, and torch's dtype and
parameter errors."""
import math

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

N = 200000


def raises_as_torch(fn_mt, fn_torch):
    with pytest.raises(Exception) as want:
        fn_torch()
    with pytest.raises(type(want.value)) as got:
        fn_mt()
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("median, sigma", [(0.0, 1.0), (2.5, 0.5), (-1.0, 3.0)])
def test_cauchy_quantiles(median, sigma):
    x = mt.empty(N, dtype=mt.float64)
    assert x.cauchy_(median, sigma) is x
    q = np.quantile(x.numpy(), [0.25, 0.5, 0.75])
    # the quartiles of Cauchy(median, sigma) are median -+ sigma
    np.testing.assert_allclose(q, [median - sigma, median, median + sigma], atol=0.03 * sigma)


@pytest.mark.parametrize("mean, std", [(1.0, 2.0), (0.0, 0.5), (-1.0, 0.25)])
def test_log_normal_moments(mean, std):
    x = mt.empty(N).log_normal_(mean, std)
    assert x.dtype == mt.float32 and bool((x > 0).all())
    logs = np.log(x.numpy().astype(np.float64))
    assert abs(logs.mean() - mean) < 0.02 * max(std, 1) and abs(logs.std() - std) < 0.02 * std


@pytest.mark.parametrize("p", [0.5, 0.1, 0.9])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_geometric_distribution(p, dtype):
    x = mt.empty(N, dtype=getattr(mt, dtype)).geometric_(p)
    v = x.numpy().astype(np.float64)
    assert v.min() >= 1 and (v == np.round(v)).all()
    assert abs(v.mean() - 1 / p) < 0.03 / p
    assert abs((v == 1).mean() - p) < 0.01


def test_generator_repeats_and_layouts():
    for name, args in (("cauchy_", (0.0, 1.0)), ("log_normal_", (1.0, 2.0)),
                       ("geometric_", (0.3,))):
        a = getattr(mt.empty(4, 3), name)(*args, generator=mt.Generator().manual_seed(7))
        b = getattr(mt.empty(4, 3), name)(*args, generator=mt.Generator().manual_seed(7))
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        base = mt.zeros(3, 4)
        view = base.t()
        getattr(view, name)(*args)
        assert bool((base != 0).all())


def test_errors_as_torch():
    for dtype in ("int64", "bool"):
        raises_as_torch(lambda: mt.empty(3, dtype=getattr(mt, dtype)).cauchy_(),
                        lambda: torch.empty(3, dtype=getattr(torch, dtype)).cauchy_())
        raises_as_torch(lambda: mt.empty(3, dtype=getattr(mt, dtype)).log_normal_(),
                        lambda: torch.empty(3, dtype=getattr(torch, dtype)).log_normal_())
    raises_as_torch(lambda: mt.empty(3, dtype=mt.bool).geometric_(0.5),
                    lambda: torch.empty(3, dtype=torch.bool).geometric_(0.5))
    raises_as_torch(lambda: mt.empty(3).cauchy_(0, 0), lambda: torch.empty(3).cauchy_(0, 0))
    raises_as_torch(lambda: mt.empty(3).cauchy_(0, -1.5), lambda: torch.empty(3).cauchy_(0, -1.5))
    raises_as_torch(lambda: mt.empty(3).log_normal_(0, 0), lambda: torch.empty(3).log_normal_(0, 0))
    for p in (-1, 0, 1, 1.5, math.nan):
        raises_as_torch(lambda: mt.empty(3).geometric_(p), lambda: torch.empty(3).geometric_(p))
