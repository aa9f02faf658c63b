"""The distributions with vector events or built from other distributions
(OneHotCategorical and its straight-through variant, Multinomial,
RelaxedOneHotCategorical, LogisticNormal, MixtureSameFamily) against
torch.distributions on the same parameters."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions


def pair(a, dtype="float64", requires_grad=False):
    a = np.asarray(a, dtype=np.float64)
    mdt, tdt = {"float32": (mt.float32, torch.float32), "float64": (mt.float64, torch.float64)}[dtype]
    return (mt.tensor(a.tolist(), dtype=mdt, requires_grad=requires_grad),
            torch.tensor(a, dtype=tdt, requires_grad=requires_grad))


def close(ours, theirs, tol=1e-9):
    ours = np.asarray(ours.detach().tolist(), dtype=np.float64)
    theirs = np.asarray(theirs.detach().double().numpy(), dtype=np.float64)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


def mt_of(t):
    return mt.tensor(t.double().numpy().tolist(),
                     dtype={torch.float32: mt.float32, torch.float64: mt.float64}[t.dtype])


PROBS = np.random.default_rng(0).dirichlet([1.0, 2.0, 0.5, 1.5], (2, 3))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["probs", "logits"])
@pytest.mark.parametrize("name", ["OneHotCategorical", "OneHotCategoricalStraightThrough"])
def test_one_hot_categorical(name, kind, dtype):
    arr = PROBS if kind == "probs" else np.log(PROBS) + 0.3
    (p, tp) = pair(arr, dtype, True)
    ours, theirs = getattr(D, name)(**{kind: p}), getattr(TD, name)(**{kind: tp})
    tol = 1e-9 if dtype == "float64" else 1e-5
    assert (tuple(ours.batch_shape), tuple(ours.event_shape)) == ((2, 3), (4,))
    assert repr(ours) == repr(theirs).replace("torch.", "minitorch.")
    for attr in ("mean", "mode", "variance", "probs", "logits"):
        close(getattr(ours, attr), getattr(theirs, attr), tol)
    v = theirs.enumerate_support()
    close(ours.enumerate_support(), v, 0)
    close(ours.log_prob(mt_of(v)), theirs.log_prob(v), tol)
    close(ours.entropy(), theirs.entropy(), tol)
    (ours.log_prob(mt_of(v)).sum() + ours.entropy().sum()).backward()
    (theirs.log_prob(v).sum() + theirs.entropy().sum()).backward()
    close(p.grad, tp.grad, tol * 10)
    s = ours.sample((5,))
    assert tuple(s.shape) == (5, 2, 3, 4) and s.dtype == p.dtype
    assert bool(D.constraints.one_hot.check(s).all())
    assert tuple(ours.expand((7, 2, 3)).sample().shape) == (7, 2, 3, 4)


def test_one_hot_categorical_sample_frequencies_and_straight_through_gradient():
    p, _ = pair(PROBS, requires_grad=True)
    mt.manual_seed(0)
    freq = np.asarray(D.OneHotCategorical(p).sample((20000,)).mean(0).tolist())
    assert np.abs(freq - PROBS).max() < 0.02
    d = D.OneHotCategoricalStraightThrough(p)
    (d.rsample() * mt.arange(4.0, dtype=mt.float64)).sum().backward()
    # d probs_normalised / d p of sum_j j probs_j: (j - sum_k k probs_k) / sum p, per event
    w = np.arange(4.0)
    expected = w - (PROBS * w).sum(-1, keepdims=True)
    close(p.grad, torch.tensor(expected / PROBS.sum(-1, keepdims=True)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_multinomial(dtype):
    (p, tp) = pair(PROBS, dtype, True)
    ours, theirs = D.Multinomial(6, p), TD.Multinomial(6, tp)
    tol = 1e-9 if dtype == "float64" else 1e-5
    assert repr(ours) == repr(theirs).replace("torch.", "minitorch.")
    assert repr(ours.support) == repr(theirs.support)
    for attr in ("mean", "variance"):
        close(getattr(ours, attr), getattr(theirs, attr), tol)
    torch.manual_seed(0)
    v = theirs.sample((5,))
    close(ours.log_prob(mt_of(v)), theirs.log_prob(v), tol)
    close(ours.entropy(), theirs.entropy(), tol * 10)
    (ours.log_prob(mt_of(v)).sum() + ours.entropy().sum()).backward()
    (theirs.log_prob(v).sum() + theirs.entropy().sum()).backward()
    close(p.grad, tp.grad, tol * 10)
    mt.manual_seed(0)
    s = ours.sample((4000,))
    assert tuple(s.shape) == (4000, 2, 3, 4) and s.dtype == p.dtype
    assert bool((s.sum(-1) == 6).all())
    assert np.abs(np.asarray(s.mean(0).tolist()) - 6 * PROBS).max() < 0.15
    e = ours.expand((5, 2, 3))
    assert tuple(e.batch_shape) == (5, 2, 3)
    # torch's expand drops the binomial its entropy needs: the unexpanded one is the oracle
    close(e.entropy(), theirs.entropy().expand(5, 2, 3), tol * 10)
    with pytest.raises(NotImplementedError, match="inhomogeneous total_count"):
        D.Multinomial(mt.tensor([2, 3]), p)


def test_multinomial_zero_probability_and_validation():
    p, tp = pair([0.0, 0.5, 0.5])
    ours, theirs = D.Multinomial(3, logits=p.log()), TD.Multinomial(3, logits=tp.log())
    v, tv = pair([0.0, 1.0, 2.0])
    close(ours.log_prob(v), theirs.log_prob(tv))
    v, tv = pair([1.0, 1.0, 2.0])
    with pytest.raises(ValueError) as e1:
        D.Multinomial(3, p, validate_args=True).log_prob(v)
    with pytest.raises(ValueError) as e2:
        TD.Multinomial(3, tp, validate_args=True).log_prob(tv)
    assert str(e1.value) == str(e2.value).replace("torch.", "minitorch.")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relaxed_one_hot_categorical(dtype):
    (p, tp), (t, tt) = pair(PROBS, dtype, True), pair(0.6, dtype)
    ours = D.RelaxedOneHotCategorical(t, probs=p)
    theirs = TD.RelaxedOneHotCategorical(tt, probs=tp)
    tol = 1e-9 if dtype == "float64" else 1e-4
    assert tuple(ours.event_shape) == (4,) and tuple(ours.batch_shape) == (2, 3)
    torch.manual_seed(0)
    v = theirs.sample((3,))
    close(ours.log_prob(mt_of(v)), theirs.log_prob(v), tol)
    ours.log_prob(mt_of(v)).sum().backward()
    theirs.log_prob(v).sum().backward()
    close(p.grad, tp.grad, tol)
    s = ours.rsample((5,))
    assert tuple(s.shape) == (5, 2, 3, 4)
    assert bool(D.constraints.simplex.check(s).all())
    assert tuple(ours.expand((6, 2, 3)).rsample().shape) == (6, 2, 3, 4)


def test_relaxed_one_hot_rsample_gradient_at_the_same_noise():
    """y = softmax((logits + g) / t): recover g from the draw and differentiate torch's formula."""
    logits, tl = pair([[0.1, -0.5, 1.0]], requires_grad=True)
    t = 0.7
    mt.manual_seed(0)
    y = D.RelaxedOneHotCategorical(mt.tensor(t, dtype=mt.float64), logits=logits).rsample()
    w = torch.tensor([1.0, 3.0, -2.0], dtype=torch.float64)
    (y * mt.tensor(w.tolist(), dtype=mt.float64)).sum().backward()
    ty = torch.tensor(y.detach().tolist(), dtype=torch.float64)
    g = t * ty.log() - (tl - tl.logsumexp(-1, keepdim=True)).detach()  # noise up to a constant
    out = torch.softmax(((tl - tl.logsumexp(-1, keepdim=True)) + g) / t, -1)
    (out * w).sum().backward()
    close(logits.grad, tl.grad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logistic_normal(dtype):
    (loc, tloc), (scale, tscale) = pair([[0.2, -0.5], [1.0, 0.0]], dtype, True), \
        pair([[1.0, 0.5], [0.3, 2.0]], dtype, True)
    ours, theirs = D.LogisticNormal(loc, scale), TD.LogisticNormal(tloc, tscale)
    tol = 1e-9 if dtype == "float64" else 1e-5
    assert (tuple(ours.batch_shape), tuple(ours.event_shape)) == ((2,), (3,))
    torch.manual_seed(0)
    v = theirs.sample((4,))
    close(ours.log_prob(mt_of(v)), theirs.log_prob(v), tol * 10)
    ours.log_prob(mt_of(v)).sum().backward()
    theirs.log_prob(v).sum().backward()
    close(loc.grad, tloc.grad, tol * 10)
    close(scale.grad, tscale.grad, tol * 10)
    s = ours.rsample((5,))
    assert tuple(s.shape) == (5, 2, 3) and bool(D.constraints.simplex.check(s).all())
    e, te = ours.expand((3, 2)), theirs.expand((3, 2))
    close(e.log_prob(mt_of(v[:1])), te.log_prob(v[:1]), tol * 10)
    scalar = D.LogisticNormal(0.0, 1.0)
    assert tuple(scalar.event_shape) == (2,) == tuple(TD.LogisticNormal(0.0, 1.0).event_shape)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mixture_same_family(dtype):
    (w, tw) = pair([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]], dtype, True)
    (loc, tloc) = pair([[-1.0, 0.0, 2.0], [0.5, 1.5, -2.0]], dtype, True)
    (scale, tscale) = pair([[0.5, 1.0, 2.0], [1.0, 0.3, 0.7]], dtype, True)
    ours = D.MixtureSameFamily(D.Categorical(w), D.Normal(loc, scale))
    theirs = TD.MixtureSameFamily(TD.Categorical(tw), TD.Normal(tloc, tscale))
    tol = 1e-9 if dtype == "float64" else 1e-5
    assert repr(ours) == repr(theirs).replace("torch.", "minitorch.")
    assert repr(ours.support) == repr(theirs.support)
    assert tuple(ours.batch_shape) == (2,) and tuple(ours.event_shape) == ()
    for attr in ("mean", "variance", "stddev"):
        close(getattr(ours, attr), getattr(theirs, attr), tol)
    v, tv = pair([[0.3, -1.0], [2.0, 0.1], [-3.0, 5.0]], dtype)
    close(ours.log_prob(v), theirs.log_prob(tv), tol)
    close(ours.cdf(v), theirs.cdf(tv), tol)
    (ours.log_prob(v).sum() + ours.mean.sum()).backward()
    (theirs.log_prob(tv).sum() + theirs.mean.sum()).backward()
    for a, b in ((w, tw), (loc, tloc), (scale, tscale)):
        close(a.grad, b.grad, tol * 10)
    mt.manual_seed(0)
    s = ours.sample((20000,))
    assert tuple(s.shape) == (20000, 2) and s.dtype == loc.dtype
    bound = 6 * np.sqrt(np.asarray(theirs.variance.tolist()) / 20000)
    assert (np.abs(np.asarray(s.mean(0).tolist()) - np.asarray(theirs.mean.tolist())) < bound).all()
    e, te = ours.expand((4, 2)), theirs.expand((4, 2))
    close(e.log_prob(v[:1]), te.log_prob(tv[:1]), tol)


def test_mixture_same_family_with_vector_components_and_errors():
    w, tw = pair([0.3, 0.7])
    loc, tloc = pair([[0.0, 1.0, 2.0], [1.0, -1.0, 0.0]])
    ours = D.MixtureSameFamily(D.Categorical(w), D.Independent(D.Normal(loc, mt.ones_like(loc)), 1))
    theirs = TD.MixtureSameFamily(TD.Categorical(tw),
                                  TD.Independent(TD.Normal(tloc, torch.ones_like(tloc)), 1))
    v, tv = pair([[0.1, 0.2, 0.3], [1.0, 0.0, -1.0]])
    close(ours.log_prob(v), theirs.log_prob(tv))
    close(ours.mean, theirs.mean)
    close(ours.variance, theirs.variance)
    assert tuple(ours.sample((3,)).shape) == (3, 3)
    for bad in (lambda m: m.MixtureSameFamily(m.Normal(0.0, 1.0), m.Normal(0.0, 1.0)),):
        with pytest.raises(ValueError) as e1:
            bad(D)
        with pytest.raises(ValueError) as e2:
            bad(TD)
        assert str(e1.value) == str(e2.value)
    with pytest.raises(ValueError) as e1:
        D.MixtureSameFamily(D.Categorical(mt.ones(4)), D.Normal(mt.zeros(3), mt.ones(3)))
    with pytest.raises(ValueError) as e2:
        TD.MixtureSameFamily(TD.Categorical(torch.ones(4)), TD.Normal(torch.zeros(3),
                                                                      torch.ones(3)))
    assert str(e1.value) == str(e2.value)
