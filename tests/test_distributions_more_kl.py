"""kl_divergence for every pair torch registers between the univariate
families minitorch has, on random float64 parameters: values (infinite
where torch's are) and gradients in p's and q's parameters, plus the
Bregman-divergence fallback for one exponential family."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions


def real(rng):
    return rng.uniform(-2.0, 2.0, (2, 3))


def pos(rng, lo=0.3, hi=3.0):
    return rng.uniform(lo, hi, (2, 3))


FAMILIES = {
    "Normal": lambda r: {"loc": real(r), "scale": pos(r)},
    "Laplace": lambda r: {"loc": real(r), "scale": pos(r)},
    "Cauchy": lambda r: {"loc": real(r), "scale": pos(r)},
    "Gumbel": lambda r: {"loc": real(r), "scale": pos(r)},
    "HalfNormal": lambda r: {"scale": pos(r)},
    "Exponential": lambda r: {"rate": pos(r)},
    "Gamma": lambda r: {"concentration": pos(r), "rate": pos(r)},
    "Beta": lambda r: {"concentration1": pos(r), "concentration0": pos(r)},
    "Pareto": lambda r: {"scale": pos(r, 0.5, 1.5), "alpha": pos(r, 0.5, 4.0)},
    "Uniform": lambda r: {"low": r.uniform(-0.2, 0.4, (2, 3)), "high": r.uniform(0.6, 1.2, (2, 3))},
    "ContinuousBernoulli": lambda r: {"probs": pos(r, 0.05, 0.95)},
    "Bernoulli": lambda r: {"probs": pos(r, 0.05, 0.95)},
    "Geometric": lambda r: {"probs": pos(r, 0.05, 0.95)},
    "Binomial": lambda r: {"total_count": np.full((2, 3), 10.0), "probs": pos(r, 0.05, 0.95)},
    "Poisson": lambda r: {"rate": pos(r, 0.5, 5.0)},
    "OneHotCategorical": lambda r: {"probs": r.dirichlet([1.0, 2.0, 1.5], (2, 3))},
}


def registered_pairs():
    from torch.distributions.kl import _KL_REGISTRY
    return sorted((p.__name__, q.__name__) for p, q in _KL_REGISTRY
                  if p.__name__ in FAMILIES and q.__name__ in FAMILIES)


def build(name, seed, requires_grad, families=FAMILIES):
    params = families[name](np.random.default_rng(seed))
    ours, theirs, leaves = {}, {}, []
    for k, a in params.items():
        grad = requires_grad and k != "total_count"
        o = mt.tensor(a.tolist(), dtype=mt.float64, requires_grad=grad)
        t = torch.tensor(a, dtype=torch.float64, requires_grad=grad)
        ours[k], theirs[k] = o, t
        if grad:
            leaves.append((o, t))
    return getattr(D, name)(**ours), getattr(TD, name)(**theirs), leaves


def close(a, b, tol=1e-9):
    a = np.asarray(a.detach().tolist(), dtype=np.float64)
    b = np.asarray(b.detach().numpy(), dtype=np.float64)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


@pytest.mark.parametrize("p_name,q_name", registered_pairs(),
                         ids=[f"{p}-{q}" for p, q in registered_pairs()])
def test_kl_matches_torch(p_name, q_name):
    p, tp, p_leaves = build(p_name, 0, True)
    q, tq, q_leaves = build(q_name, 1, True)
    ours, theirs = D.kl_divergence(p, q), TD.kl_divergence(tp, tq)
    close(ours, theirs)
    finite = torch.isfinite(theirs)
    if not finite.any():
        return
    (ours * mt.tensor(finite.tolist())).nansum().backward()
    (theirs * finite).nansum().backward()
    for o, t in p_leaves + q_leaves:
        if t.grad is None:
            assert o.grad is None or not bool(o.grad.abs().sum())
            continue
        # both sides differentiate the masked-out branch too (NaN there, as torch)
        close(mt.nan_to_num(o.grad), torch.nan_to_num(t.grad), 1e-8)


def test_registered_pairs_cover_torchs():
    """Every torch pair between families minitorch has resolves, none raising."""
    assert len(registered_pairs()) > 75
    from minitorch.distributions.kl import _KL_REGISTRY
    names = {(p.__name__, q.__name__) for p, q in _KL_REGISTRY}
    assert set(registered_pairs()) <= names


def test_transformed_and_binomial_kl():
    p, tp = D.LogNormal(mt.tensor([0.0, 1.0]), mt.tensor([1.0, 0.5])), \
        TD.LogNormal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5]))
    q, tq = D.LogNormal(mt.tensor([0.5, 0.0]), mt.tensor([2.0, 1.5])), \
        TD.LogNormal(torch.tensor([0.5, 0.0]), torch.tensor([2.0, 1.5]))
    close(D.kl_divergence(p, q), TD.kl_divergence(tp, tq), 1e-6)
    with pytest.raises(NotImplementedError) as e1:
        D.kl_divergence(D.Binomial(3, mt.tensor(0.5)), D.Binomial(5, mt.tensor(0.5)))
    with pytest.raises(NotImplementedError) as e2:
        TD.kl_divergence(TD.Binomial(3, torch.tensor(0.5)), TD.Binomial(5, torch.tensor(0.5)))
    assert str(e1.value) == str(e2.value)
    close(D.kl_divergence(D.Binomial(5, mt.tensor(0.3)), D.Binomial(3, mt.tensor(0.5))),
          TD.kl_divergence(TD.Binomial(5, torch.tensor(0.3)), TD.Binomial(3, torch.tensor(0.5))))


def test_exponential_family_bregman_kl():
    """The fallback for one exponential family matches the closed forms."""
    from minitorch.distributions.kl import _KL_REGISTRY
    bregman = _KL_REGISTRY[D.ExponentialFamily, D.ExponentialFamily]
    for name in ("Normal", "Gamma", "Beta", "Exponential", "Poisson", "Bernoulli",
                 "ContinuousBernoulli"):
        p, tp, _ = build(name, 0, False)
        q, tq, _ = build(name, 1, False)
        close(bregman(p, q), TD.kl_divergence(tp, tq), 1e-8)
        if name != "Poisson":
            close(p.entropy(), tp.entropy())
        if name in ("Beta", "Poisson"):  # no carrier measure given, as torch's
            with pytest.raises(NotImplementedError):
                D.ExponentialFamily.entropy(p)
        else:
            close(D.ExponentialFamily.entropy(p), tp.entropy(), 1e-8)
    with pytest.raises(NotImplementedError) as e1:
        bregman(D.Normal(0.0, 1.0), D.Gamma(1.0, 1.0))
    with pytest.raises(NotImplementedError) as e2:
        TD.kl_divergence(TD.Bernoulli(0.3), TD.Normal(0.0, 1.0))
    assert str(e1.value) == str(e2.value)
    assert isinstance(D.Normal(0.0, 1.0), D.ExponentialFamily)


def test_wishart_kl_by_bregman_divergence():
    """Wishart is an exponential family as torch's, so KL between two goes by the fallback."""
    a = [[[2.0, 0.5], [0.5, 1.0]], [[1.0, 0.0], [0.0, 1.0]]]
    b = [[1.0, 0.2], [0.2, 3.0]]
    f64 = {"dtype": mt.float64}
    p = D.Wishart(mt.tensor([4.0, 2.5], **f64), covariance_matrix=mt.tensor(a, **f64))
    q = D.Wishart(mt.tensor(5.5, **f64), covariance_matrix=mt.tensor(b, **f64))
    tp = TD.Wishart(torch.tensor([4.0, 2.5], dtype=torch.float64),
                    covariance_matrix=torch.tensor(a, dtype=torch.float64))
    tq = TD.Wishart(torch.tensor(5.5, dtype=torch.float64),
                    covariance_matrix=torch.tensor(b, dtype=torch.float64))
    close(D.kl_divergence(p, q), TD.kl_divergence(tp, tq))
    close(D.ExponentialFamily.entropy(p), tp.entropy())


# families with no KL of their own, reached (or not) through their bases
DISPATCH_ONLY = {
    "Chi2": lambda r: {"df": pos(r)},
    "LogNormal": lambda r: {"loc": real(r), "scale": pos(r)},
    "HalfCauchy": lambda r: {"scale": pos(r)},
    "StudentT": lambda r: {"df": pos(r), "loc": real(r), "scale": pos(r)},
    "Weibull": lambda r: {"scale": pos(r), "concentration": pos(r)},
    "InverseGamma": lambda r: {"concentration": pos(r), "rate": pos(r)},
    "Kumaraswamy": lambda r: {"concentration1": pos(r), "concentration0": pos(r)},
    "VonMises": lambda r: {"loc": real(r), "concentration": pos(r)},
}


@pytest.mark.parametrize("p_name", sorted(FAMILIES) + sorted(DISPATCH_ONLY))
def test_kl_dispatch_matches_torch_for_every_pair(p_name):
    """Every ordered pair of these families: a value where torch has one, torch's
    NotImplementedError message where it has none, and an ambiguity warning
    exactly where torch warns."""
    import warnings
    families = {**FAMILIES, **DISPATCH_ONLY}
    p, tp, _ = build(p_name, 0, False, families)
    for q_name in sorted(families):
        q, tq, _ = build(q_name, 1, False, families)
        outcomes = []
        for lib, a, b in ((D, p, q), (TD, tp, tq)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    lib.kl_divergence(a, b)
                    result = "value"
                except NotImplementedError as e:
                    result = str(e)
            outcomes.append((result, [str(w.message) for w in caught
                                      if issubclass(w.category, RuntimeWarning)]))
        assert outcomes[0] == outcomes[1], (p_name, q_name)
