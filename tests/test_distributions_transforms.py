"""minitorch.distributions' transforms and TransformedDistribution against
torch.distributions: forward and inverse values, log_abs_det_jacobian,
signs, domains, caching, composition, and the transformed log densities,
cdf, icdf, shapes and reparameterised gradients."""
import math

import numpy as np
import pytest

import minitorch as mt
import minitorch.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions


def close(a, b, tol=1e-12):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


X = np.random.default_rng(0).standard_normal((3, 4))


def pair(make):
    return make(D, mt), make(TD, torch)


CASES = {
    "exp": lambda d, lib: d.ExpTransform(),
    "sigmoid": lambda d, lib: d.SigmoidTransform(),
    "tanh": lambda d, lib: d.TanhTransform(),
    "affine_numbers": lambda d, lib: d.AffineTransform(0.5, -2.0),
    "affine_tensors": lambda d, lib: d.AffineTransform(
        lib.tensor([0.1, 0.2, 0.3, 0.4], dtype=lib.float64),
        lib.tensor([1.5, -0.5, 2.0, 3.0], dtype=lib.float64)),
    "affine_event": lambda d, lib: d.AffineTransform(
        1.0, lib.tensor([1.5, -0.5, 2.0, 3.0], dtype=lib.float64), event_dim=1),
    "compose": lambda d, lib: d.ComposeTransform([d.AffineTransform(0.3, 2.0),
                                                  d.TanhTransform(), d.ExpTransform()]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_transform_values_and_jacobians(name):
    m, t = pair(CASES[name])
    mx, tx = mt.tensor(X), torch.tensor(X)
    my, ty = m(mx), t(tx)
    close(my, ty)
    close(m.inv(my), t.inv(ty), 1e-9)
    close(m.log_abs_det_jacobian(mx, my), t.log_abs_det_jacobian(tx, ty), 1e-10)
    close(m.inv.log_abs_det_jacobian(my, mx), t.inv.log_abs_det_jacobian(ty, tx), 1e-10)
    assert m.inv.inv is m
    assert m.bijective == t.bijective
    assert m.domain.event_dim == t.domain.event_dim
    assert m.codomain.event_dim == t.codomain.event_dim
    ms, ts = m.sign, t.sign
    if isinstance(ts, torch.Tensor):
        close(ms, ts)
    else:
        assert ms == ts


def test_cache_and_errors():
    t = D.ExpTransform(cache_size=1)
    x = mt.tensor([0.5, 1.0])
    y = t(x)
    assert t(x) is y and t.inv(y) is x
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        D.ExpTransform(cache_size=2)
    with pytest.raises(ValueError, match="transforms must be a Transform or list"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), 3)


def test_sigmoid_inverse_is_clipped_as_torch():
    ends = [0.0, 1.0, 1e-45, 0.5]
    close(D.SigmoidTransform().inv(mt.tensor(ends)), TD.SigmoidTransform().inv(torch.tensor(ends)))
    big = [-200.0, 200.0, 0.0]
    close(D.SigmoidTransform()(mt.tensor(big)), TD.SigmoidTransform()(torch.tensor(big)))


def dists(d, lib):
    loc, scale = lib.tensor([0.2, -0.3, 1.0]), lib.tensor([1.0, 0.5, 2.0])
    return {
        "lognormal": d.TransformedDistribution(d.Normal(loc, scale), d.ExpTransform()),
        "logitnormal": d.TransformedDistribution(d.Normal(loc, scale), [d.SigmoidTransform()]),
        "tanh_affine": d.TransformedDistribution(
            d.Normal(loc, scale), [d.AffineTransform(0.5, -1.5), d.TanhTransform()]),
        "event": d.TransformedDistribution(
            d.Normal(loc, scale), d.AffineTransform(1.0, lib.tensor([2.0, 3.0, 0.5]),
                                                    event_dim=1)),
        "uniform_affine": d.TransformedDistribution(
            d.Uniform(lib.tensor([0.0]), lib.tensor([1.0])), d.AffineTransform(2.0, -3.0)),
    }


VALUES = {"lognormal": [[0.5, 1.0, 2.0], [3.0, 0.1, 1.5]],
          "logitnormal": [[0.5, 0.1, 0.9], [0.3, 0.7, 0.99]],
          "tanh_affine": [[0.5, -0.1, 0.9], [0.3, -0.7, 0.0]],
          "event": [[0.5, -0.1, 0.9], [3.0, -7.0, 2.0]],
          "uniform_affine": [[1.5], [-0.5]]}


@pytest.mark.parametrize("name", sorted(VALUES))
def test_transformed_log_prob_and_shapes(name):
    m, t = dists(D, mt)[name], dists(TD, torch)[name]
    assert tuple(m.batch_shape) == tuple(t.batch_shape)
    assert tuple(m.event_shape) == tuple(t.event_shape)
    v = VALUES[name]
    close(m.log_prob(mt.tensor(v)), t.log_prob(torch.tensor(v)), 1e-10)
    assert tuple(m.sample((5,)).shape) == tuple(t.sample((5,)).shape)
    assert m.support.event_dim == t.support.event_dim


def test_cdf_icdf_with_a_decreasing_transform():
    m = dists(D, mt)["uniform_affine"]
    t = dists(TD, torch)["uniform_affine"]
    close(m.cdf(mt.tensor([[1.5], [-0.5]])), t.cdf(torch.tensor([[1.5], [-0.5]])))
    close(m.icdf(mt.tensor([[0.25], [0.75]])), t.icdf(torch.tensor([[0.25], [0.75]])))


def test_rsample_carries_gradients():
    loc = mt.tensor([0.2, -0.3], requires_grad=True)
    d = D.TransformedDistribution(D.Normal(loc, mt.ones(2)), [D.ExpTransform()])
    assert d.has_rsample
    d.rsample((4,)).sum().backward()
    assert loc.grad is not None and bool((loc.grad > 0).all())
    tl = torch.tensor([0.2, -0.3], requires_grad=True)
    value = [[0.5, 2.0]]
    D.TransformedDistribution(D.Normal(loc, mt.ones(2)), D.ExpTransform()).log_prob(
        mt.tensor(value)).sum().backward()
    TD.TransformedDistribution(TD.Normal(tl, torch.ones(2)), TD.ExpTransform()).log_prob(
        torch.tensor(value)).sum().backward()
    loc.grad = None
    D.TransformedDistribution(D.Normal(loc, mt.ones(2)), D.ExpTransform()).log_prob(
        mt.tensor(value)).sum().backward()
    close(loc.grad, tl.grad)
    assert math.isfinite(float(loc.grad.sum()))
