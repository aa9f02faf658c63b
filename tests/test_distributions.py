"""minitorch.distributions against torch.distributions on the same parameters:
log_prob, entropy, moments, cdf/icdf and KL values, gradients of log_prob and
of rsample-based losses, sample shapes and statistics, validation errors."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions


def pair(a, requires_grad=False):
    """The same float64 values as a minitorch and a torch tensor."""
    a = np.asarray(a, dtype=np.float64)
    return (mt.tensor(a.tolist(), dtype=mt.float64, requires_grad=requires_grad),
            torch.tensor(a, dtype=torch.float64, requires_grad=requires_grad))


def close(ours, theirs, tol=1e-10):
    ours = np.asarray(ours.detach().tolist() if hasattr(ours, "detach") else ours, dtype=np.float64)
    theirs = np.asarray(theirs.detach().tolist() if hasattr(theirs, "detach") else theirs,
                        dtype=np.float64)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


def build(name, ours_params, theirs_params, **kw):
    return getattr(D, name)(*ours_params, **kw), getattr(TD, name)(*theirs_params, **kw)


LOC, SCALE = [[0.5, -1.0, 2.0], [0.0, 0.3, -0.7]], [[1.0, 0.5, 2.0], [0.2, 3.0, 1.1]]
PROBS = [[0.2, 0.3, 0.5], [0.7, 0.1, 0.2]]
CONC = [[0.5, 2.0, 7.5], [1.0, 0.3, 3.0]]
CONC2 = [[1.0, 1.0, 2.0], [0.5, 0.5, 0.5]]


def cases():
    """(name, params, value) for each distribution."""
    return [
        ("Normal", (LOC, SCALE), [[0.1, 0.2, 0.3], [-1.0, 0.0, 4.0]]),
        ("Uniform", ([[0.0, -1.0], [2.0, 1.0]], [[1.0, 3.0], [2.5, 1.5]]), [[0.5, 0.0], [2.2, 1.2]]),
        ("Bernoulli", ([[0.2, 0.5, 0.9]],), [[1.0, 0.0, 1.0]]),
        ("Gamma", (CONC, [[1.0, 2.0, 0.5], [3.0, 1.0, 0.7]]), [[0.3, 1.5, 9.0], [0.1, 2.0, 4.0]]),
        ("Beta", (CONC, [[2.0, 0.5, 1.0], [1.0, 4.0, 0.9]]), [[0.3, 0.5, 0.9], [0.1, 0.2, 0.7]]),
        ("Dirichlet", (CONC,), [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]),
    ]


@pytest.mark.parametrize("name,params,value", cases(), ids=[c[0] for c in cases()])
def test_values_and_grads_match_torch(name, params, value):
    ours_p, theirs_p = zip(*(pair(p, requires_grad=True) for p in params))
    ours, theirs = build(name, ours_p, theirs_p)
    v, tv = pair(value)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    close(ours.log_prob(v), theirs.log_prob(tv))
    close(ours.entropy(), theirs.entropy())
    for attr in ("mean", "variance", "stddev"):
        close(getattr(ours, attr), getattr(theirs, attr))
    if name != "Uniform":
        close(ours.mode, theirs.mode)
    if name in ("Normal", "Uniform"):
        close(ours.cdf(v), theirs.cdf(tv))
    (ours.log_prob(v).sum() + ours.entropy().sum()).backward()
    (theirs.log_prob(tv).sum() + theirs.entropy().sum()).backward()
    for a, b in zip(ours_p, theirs_p):
        close(a.grad, b.grad, 1e-8)


def test_normal_icdf_matches_torch():
    (l, tl), (s, ts) = pair(LOC, True), pair(SCALE, True)
    q = [[0.0, 1e-12, 0.3], [0.5, 0.999999, 1.0]]
    (v, tv) = pair(q, True)
    ours, theirs = D.Normal(l, s).icdf(v), TD.Normal(tl, ts).icdf(tv)
    close(ours, theirs, 1e-12)
    finite = mt.isfinite(ours)
    (ours * finite).nansum().backward()
    (theirs * torch.isfinite(theirs)).nansum().backward()
    close(l.grad, tl.grad, 1e-12)
    close(s.grad, ts.grad, 1e-12)
    close(v.grad[finite], tv.grad[torch.isfinite(theirs)], 1e-12)
    close(D.Normal(0.0, 1.0).icdf(mt.tensor([0.025, 0.5, 0.975])),
          TD.Normal(0.0, 1.0).icdf(torch.tensor([0.025, 0.5, 0.975])), 1e-6)


def test_uniform_icdf_and_outside_support():
    u, tu = D.Uniform(mt.tensor([0.0, 1.0]), mt.tensor([2.0, 5.0])), TD.Uniform(
        torch.tensor([0.0, 1.0]), torch.tensor([2.0, 5.0]))
    close(u.icdf(mt.tensor([0.25, 0.5])), tu.icdf(torch.tensor([0.25, 0.5])))
    lp = D.Uniform(0.0, 1.0, validate_args=False).log_prob(mt.tensor([1.5, 1.0, 0.0]))
    close(lp, TD.Uniform(0.0, 1.0, validate_args=False).log_prob(torch.tensor([1.5, 1.0, 0.0])))


@pytest.mark.parametrize("kind", ["probs", "logits"])
def test_categorical_matches_torch(kind):
    raw = PROBS if kind == "probs" else [[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]]
    p, tp = pair(raw, requires_grad=True)
    c, tc = D.Categorical(**{kind: p}), TD.Categorical(**{kind: tp})
    close(c.probs, tc.probs)
    close(c.logits, tc.logits)
    v = [[0, 2], [1, 1], [2, 0]]
    lp, tlp = c.log_prob(mt.tensor(v)), tc.log_prob(torch.tensor(v))
    close(lp, tlp)
    close(c.entropy(), tc.entropy())
    close(c.mode, tc.mode)
    assert np.isnan(c.mean.tolist()).all() and tuple(c.mean.shape) == (2,)
    close(c.enumerate_support(), tc.enumerate_support())
    close(c.enumerate_support(expand=False), tc.enumerate_support(expand=False))
    (lp.sum() + c.entropy().sum()).backward()
    (tlp.sum() + tc.entropy().sum()).backward()
    close(p.grad, tp.grad)
    assert tuple(c.expand((4, 2)).sample((3,)).shape) == (3, 4, 2)


def test_bernoulli_logits_and_support():
    p, tp = pair([-1.0, 0.0, 2.5], requires_grad=True)
    b, tb = D.Bernoulli(logits=p), TD.Bernoulli(logits=tp)
    close(b.probs, tb.probs)
    close(b.log_prob(mt.tensor([0.0, 1.0, 1.0], dtype=mt.float64)),
          tb.log_prob(torch.tensor([0.0, 1.0, 1.0], dtype=torch.float64)))
    close(b.enumerate_support(), tb.enumerate_support())
    close(D.Bernoulli(0.5).mode, TD.Bernoulli(0.5).mode)


def test_categorical_sample_statistics():
    mt.manual_seed(0)
    probs = [0.1, 0.0, 0.6, 0.3]
    s = D.Categorical(mt.tensor(probs)).sample((20000,))
    assert s.dtype == mt.int64 and tuple(s.shape) == (20000,)
    freq = np.bincount(np.asarray(s.tolist()), minlength=4) / 20000
    np.testing.assert_allclose(freq, probs, atol=0.015)
    assert freq[1] == 0


@pytest.mark.parametrize("name,params,mean,var", [
    ("Normal", (2.0, 3.0), 2.0, 9.0),
    ("Uniform", (-1.0, 3.0), 1.0, 16 / 12),
    ("Bernoulli", (0.3,), 0.3, 0.21),
])
def test_sample_statistics_and_shapes(name, params, mean, var):
    mt.manual_seed(1)
    d = getattr(D, name)(*[mt.tensor([p, p]) for p in params])
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000, 2) and not s.requires_grad
    a = np.asarray(s.tolist())
    np.testing.assert_allclose(a.mean(0), mean, atol=0.06 * max(1.0, var ** 0.5))
    np.testing.assert_allclose(a.var(0), var, rtol=0.05)
    assert tuple(getattr(D, name)(*params).sample((2, 3)).shape) == (2, 3)


@pytest.mark.parametrize("name", ["Normal", "Uniform"])
def test_rsample_gradient_matches_reparameterisation(name):
    a, b = mt.tensor([0.5, 1.0], requires_grad=True), mt.tensor([2.0, 3.0], requires_grad=True)
    d = getattr(D, name)(a, b)
    assert d.has_rsample
    mt.manual_seed(3)
    x = d.rsample((5,))
    (x ** 2).sum().backward()
    mt.manual_seed(3)
    base = (mt.randn if name == "Normal" else mt.rand)((5, 2))
    if name == "Normal":
        ga, gb = (2 * x).sum(0), (2 * x * base).sum(0)
    else:
        ga, gb = (2 * x * (1 - base)).sum(0), (2 * x * base).sum(0)
    close(a.grad, ga.detach(), 1e-5)
    close(b.grad, gb.detach(), 1e-5)


def test_independent_matches_torch():
    (l, tl), (s, ts) = pair(LOC, True), pair(SCALE, True)
    i, ti = D.Independent(D.Normal(l, s), 1), TD.Independent(TD.Normal(tl, ts), 1)
    assert (tuple(i.batch_shape), tuple(i.event_shape)) == (tuple(ti.batch_shape), tuple(ti.event_shape))
    v, tv = pair([[0.1, 0.2, 0.3], [-1.0, 0.0, 4.0]])
    close(i.log_prob(v), ti.log_prob(tv))
    close(i.entropy(), ti.entropy())
    assert tuple(i.rsample((4,)).shape) == (4, 2, 3)
    e, te = i.expand((5, 2)), ti.expand((5, 2))
    close(e.log_prob(v), te.log_prob(tv))
    with pytest.raises(ValueError) as ours:
        D.Independent(D.Normal(l, s), 3)
    with pytest.raises(ValueError) as theirs:
        TD.Independent(TD.Normal(tl, ts), 3)
    assert str(ours.value) == str(theirs.value)


def kl_pairs():
    return [
        ("Normal", (LOC, SCALE), ([[0.0, 0.0, 1.0], [1.0, -1.0, 0.0]], [[2.0, 1.0, 0.5], [1.0, 1.0, 1.0]])),
        ("Bernoulli", ([0.2, 0.0, 1.0, 0.5],), ([0.5, 0.3, 1.0, 0.0],)),
        ("Categorical", ([[0.2, 0.0, 0.8], [0.5, 0.5, 0.0]],), ([[0.3, 0.3, 0.4], [0.5, 0.0, 0.5]],)),
        ("Uniform", ([0.0, 0.0], [1.0, 1.0]), ([-1.0, 0.5], [2.0, 1.0])),
    ]


@pytest.mark.parametrize("name,pp,qp", kl_pairs(), ids=[k[0] for k in kl_pairs()])
def test_kl_matches_torch(name, pp, qp):
    op, tp = zip(*(pair(p, True) for p in pp))
    oq, tq = zip(*(pair(q) for q in qp))
    ours = D.kl_divergence(getattr(D, name)(*op), getattr(D, name)(*oq))
    theirs = TD.kl_divergence(getattr(TD, name)(*tp), getattr(TD, name)(*tq))
    close(ours, theirs)
    if name == "Normal":
        ours.sum().backward()
        theirs.sum().backward()
        for a, b in zip(op, tp):
            close(a.grad, b.grad)


def test_kl_independent_and_registry():
    (l, tl), (s, ts) = pair(LOC), pair(SCALE)
    ours = D.kl_divergence(D.Independent(D.Normal(l, s), 1), D.Independent(D.Normal(s, s), 1))
    close(ours, TD.kl_divergence(TD.Independent(TD.Normal(tl, ts), 1), TD.Independent(TD.Normal(ts, ts), 1)))
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Normal "
                       "and q type Categorical"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Categorical(mt.tensor([0.5, 0.5])))
    # two different exponential families fall to the Bregman pair, which refuses them as torch's
    with pytest.raises(NotImplementedError) as ours_e:
        D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(0.5))
    with pytest.raises(NotImplementedError) as theirs_e:
        TD.kl_divergence(TD.Normal(0.0, 1.0), TD.Bernoulli(0.5))
    assert str(ours_e.value) == str(theirs_e.value)

    class MyNormal(D.Normal):
        """A subclass whose KL against Normal is registered specially."""

    @D.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        return mt.tensor(42.0)
    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 42.0
    assert D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(0.0, 2.0)).item() > 0
    with pytest.raises(TypeError):
        D.register_kl(int, D.Normal)


def message(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value).replace("minitorch.", "").replace("torch.", "")


@pytest.mark.parametrize("make", [
    lambda M, T: M.Normal(T.tensor([0.0, 1.0]), T.tensor([1.0, -1.0])),
    lambda M, T: M.Normal(0.0, 0.0),
    lambda M, T: M.Bernoulli(T.tensor([0.5, 1.5])),
    lambda M, T: M.Bernoulli(),
    lambda M, T: M.Categorical(T.tensor([0.5, 1.5]), T.tensor([0.0, 1.0])),
    lambda M, T: M.Categorical(T.tensor(0.5)),
    lambda M, T: M.Categorical(T.tensor([-0.5, 1.5])),
    lambda M, T: M.Normal(T.tensor([0.0, 1.0]), 1.0).log_prob([0.0, 1.0]),
    lambda M, T: M.Normal(T.tensor([0.0, 1.0]), 1.0).log_prob(T.tensor([0.0, 1.0, 2.0])),
    lambda M, T: M.Bernoulli(T.tensor([0.5, 0.5])).log_prob(T.tensor([0.5, 1.0])),
    lambda M, T: M.Categorical(T.tensor([0.5, 0.5])).log_prob(T.tensor([2])),
    lambda M, T: M.Uniform(0.0, 1.0).log_prob(T.tensor([2.0])),
    lambda M, T: M.Independent(M.Normal(T.zeros(2, 3), 1.0), 1).log_prob(T.zeros(2, 2)),
], ids=range(13))
def test_errors_match_torch(make):
    assert message(lambda: make(D, mt)) == message(lambda: make(TD, torch))


def test_validation_switches():
    D.Normal(0.0, -1.0, validate_args=False)
    assert D.Normal(0.0, 1.0, validate_args=False).log_prob(mt.tensor(1.0)).item() == pytest.approx(
        TD.Normal(0.0, 1.0).log_prob(torch.tensor(1.0)).item())
    assert D.Distribution._validate_args is TD.Distribution._validate_args
    assert D.Normal.arg_constraints["scale"] is D.constraints.positive
    assert repr(D.constraints.positive) == repr(TD.constraints.positive)
    assert repr(D.constraints.independent(D.constraints.real, 1)) == repr(TD.constraints.real_vector)


def test_expand_and_repr():
    n = D.Normal(mt.tensor([0.0, 1.0]), mt.tensor([1.0, 2.0])).expand((3, 2))
    assert tuple(n.batch_shape) == (3, 2) and tuple(n.sample().shape) == (3, 2)
    assert repr(D.Normal(0.0, 1.0)) == repr(TD.Normal(0.0, 1.0))
    b = D.Bernoulli(mt.tensor([0.1, 0.2])).expand((4, 2))
    assert tuple(b.sample((5,)).shape) == (5, 4, 2)
    assert tuple(D.Uniform(0.0, 1.0).expand((3,)).rsample().shape) == (3,)


def test_dirichlet_mode_below_one_is_a_vertex():
    c = [[0.5, 0.2, 0.9], [0.5, 2.0, 3.0]]
    close(D.Dirichlet(mt.tensor(c)).mode, TD.Dirichlet(torch.tensor(c)).mode)
    close(D.Beta(0.5, 0.7).mode, TD.Beta(0.5, 0.7).mode)


def test_gamma_rsample_gradient_matches_torchs_implicit_gradient():
    from minitorch.distributions._gamma_sampler import standard_gamma_grad
    alpha = [0.01, 0.3, 1.0, 5.0, 50.0, 1000.0]
    torch.manual_seed(0)
    ta = torch.tensor(alpha, dtype=torch.float64)
    x = torch._standard_gamma(ta)
    ours = standard_gamma_grad(mt.tensor(alpha, dtype=mt.float64), mt.tensor(x.tolist(), dtype=mt.float64))
    # torch's is a fitted approximation (about 1e-4) between its exact small-x and large-alpha regimes
    np.testing.assert_allclose(ours.tolist(), torch._standard_gamma_grad(ta, x).numpy(), rtol=2e-4)
    c, r = mt.tensor([0.5, 3.0], requires_grad=True), mt.tensor([2.0, 0.5], requires_grad=True)
    d = D.Gamma(c, r)
    assert d.has_rsample
    s = d.rsample((4,))
    s.sum().backward()
    np.testing.assert_allclose(r.grad.tolist(), (-(s / r).sum(0)).tolist(), rtol=1e-5)
    expected = (standard_gamma_grad(c.expand(4, 2), s * r) / r).sum(0)
    np.testing.assert_allclose(c.grad.tolist(), expected.tolist(), rtol=1e-5)


@pytest.mark.parametrize("name,params,mean,var", [
    ("Gamma", ([0.3, 2.0, 9.0], [1.0, 2.0, 0.5]), [0.3, 1.0, 18.0], [0.3, 0.5, 36.0]),
    ("Beta", ([2.0, 0.5], [3.0, 0.5]), [0.4, 0.5], [0.04, 0.125]),
])
def test_gamma_family_sample_statistics(name, params, mean, var):
    mt.manual_seed(5)
    d = getattr(D, name)(*[mt.tensor(p) for p in params])
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000, len(mean)) and (s > 0).all()
    a = np.asarray(s.tolist())
    np.testing.assert_allclose(a.mean(0), mean, rtol=0.05)
    np.testing.assert_allclose(a.var(0), var, rtol=0.08)
    assert d.has_rsample


@pytest.mark.parametrize("name", ["Beta", "Dirichlet"])
def test_rsample_gradient_of_the_mean(name):
    """Averaged over many draws, d(rsample)/d(concentration) is d(mean)/d(concentration)."""
    mt.manual_seed(8)
    c = mt.tensor([0.7, 2.0, 4.0], dtype=mt.float64, requires_grad=True)
    d = D.Dirichlet(c) if name == "Dirichlet" else D.Beta(c[0], c[1])
    weights = mt.tensor([1.0, -2.0, 0.5], dtype=mt.float64)

    def score(x):
        return (x * weights).sum(-1) if name == "Dirichlet" else x
    score(d.rsample((40000,))).mean().backward()
    got = c.grad.tolist()
    c.grad = None
    score(d.mean).backward()
    np.testing.assert_allclose(got, c.grad.tolist(), atol=0.01)


def test_dirichlet_samples_lie_on_the_simplex():
    mt.manual_seed(6)
    d = D.Dirichlet(mt.tensor([[0.5, 1.0, 2.0], [3.0, 3.0, 3.0]]))
    s = d.sample((4000,))
    assert tuple(s.shape) == (4000, 2, 3)
    np.testing.assert_allclose(np.asarray(s.sum(-1).tolist()), 1.0, atol=1e-5)
    np.testing.assert_allclose(np.asarray(s.mean(0).tolist()), np.asarray(d.mean.tolist()), atol=0.02)


@pytest.mark.parametrize("name,pp,qp", [
    ("Gamma", (CONC, [[1.0, 2.0, 0.5], [3.0, 1.0, 0.7]]), (CONC2, [[2.0, 1.0, 1.0], [1.0, 1.0, 2.0]])),
    ("Beta", (CONC, [[2.0, 0.5, 1.0], [1.0, 4.0, 0.9]]), (CONC2, [[2.0, 1.0, 1.0], [1.0, 1.0, 2.0]])),
    ("Dirichlet", (CONC,), (CONC2,)),
], ids=["Gamma", "Beta", "Dirichlet"])
def test_gamma_family_kl_matches_torch(name, pp, qp):
    op, tp = zip(*(pair(p, True) for p in pp))
    oq, tq = zip(*(pair(q) for q in qp))
    ours = D.kl_divergence(getattr(D, name)(*op), getattr(D, name)(*oq))
    theirs = TD.kl_divergence(getattr(TD, name)(*tp), getattr(TD, name)(*tq))
    close(ours, theirs, 1e-9)
    ours.sum().backward()
    theirs.sum().backward()
    for a, b in zip(op, tp):
        close(a.grad, b.grad, 1e-8)


@pytest.mark.parametrize("make", [
    lambda M, T: M.Gamma(T.tensor([1.0, -1.0]), 1.0),
    lambda M, T: M.Gamma(1.0, 1.0).log_prob(T.tensor(-1.0)),
    lambda M, T: M.Beta(T.tensor([1.0, 0.0]), 1.0),
    lambda M, T: M.Beta(1.0, 1.0).log_prob(T.tensor(1.5)),
    lambda M, T: M.Dirichlet(T.tensor(1.0)),
    lambda M, T: M.Dirichlet(T.tensor([1.0, -2.0])),
    lambda M, T: M.Dirichlet(T.tensor([1.0, 2.0])).log_prob(T.tensor([0.5, 0.6])),
], ids=range(7))
def test_gamma_family_errors_match_torch(make):
    assert message(lambda: make(D, mt)) == message(lambda: make(TD, torch))


def spd(seed, batch=(), n=3):
    a = np.random.default_rng(seed).normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + np.eye(n)


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_multivariate_normal_matches_torch(kind):
    m = spd(0, (2,))
    if kind == "scale_tril":
        m = np.linalg.cholesky(m)
    (loc, tloc), (mat, tmat) = pair([0.5, -1.0, 2.0], True), pair(m, True)
    d, td = D.MultivariateNormal(loc, **{kind: mat}), TD.MultivariateNormal(tloc, **{kind: tmat})
    assert (tuple(d.batch_shape), tuple(d.event_shape)) == (tuple(td.batch_shape), tuple(td.event_shape))
    v, tv = pair(np.random.default_rng(1).normal(size=(4, 2, 3)))
    close(d.log_prob(v), td.log_prob(tv), 1e-9)
    close(d.entropy(), td.entropy(), 1e-9)
    for attr in ("mean", "mode", "variance", "stddev", "scale_tril", "covariance_matrix",
                 "precision_matrix"):
        close(getattr(d, attr), getattr(td, attr), 1e-9)
    (d.log_prob(v).sum() + d.entropy().sum()).backward()
    (td.log_prob(tv).sum() + td.entropy().sum()).backward()
    close(loc.grad, tloc.grad, 1e-8)
    close(mat.grad, tmat.grad, 1e-8)
    e, te = d.expand((5, 2)), td.expand((5, 2))
    close(e.log_prob(v[0]), te.log_prob(tv[0]), 1e-9)


def test_multivariate_normal_rsample_and_statistics():
    cov = spd(2)
    (loc, _), (mat, _) = pair([1.0, 0.0, -1.0], True), pair(cov, True)
    mt.manual_seed(4)
    d = D.MultivariateNormal(loc, covariance_matrix=mat)
    s = d.rsample((20000,))
    assert tuple(s.shape) == (20000, 3) and d.has_rsample
    a = np.asarray(s.tolist())
    np.testing.assert_allclose(a.mean(0), [1.0, 0.0, -1.0], atol=0.1)
    np.testing.assert_allclose(np.cov(a.T), cov, rtol=0.06, atol=0.06)
    s[:3].sum().backward()
    close(loc.grad, [3.0, 3.0, 3.0])
    # rsample is loc + L eps: d/dL of sum(L eps) is the outer product with eps
    mt.manual_seed(9)
    L = mt.tensor(np.linalg.cholesky(cov).tolist(), dtype=mt.float64, requires_grad=True)
    D.MultivariateNormal(mt.zeros(3, dtype=mt.float64), scale_tril=L).rsample().sum().backward()
    mt.manual_seed(9)
    eps = mt.randn(3, dtype=mt.float64)
    close(L.grad, np.outer(np.ones(3), eps.tolist()))


def test_multivariate_normal_kl_matches_torch():
    (pl, tpl), (pc, tpc) = pair([0.5, -1.0, 2.0], True), pair(spd(3, (2,)), True)
    (ql, tql), (qc, tqc) = pair([[0.0, 0.0, 1.0]]), pair(spd(4))
    ours = D.kl_divergence(D.MultivariateNormal(pl, pc), D.MultivariateNormal(ql, qc))
    theirs = TD.kl_divergence(TD.MultivariateNormal(tpl, tpc), TD.MultivariateNormal(tql, tqc))
    close(ours, theirs, 1e-9)
    ours.sum().backward()
    theirs.sum().backward()
    close(pl.grad, tpl.grad, 1e-8)
    close(pc.grad, tpc.grad, 1e-8)


@pytest.mark.parametrize("make", [
    lambda M, T: M.MultivariateNormal(T.tensor(0.0), T.eye(1)),
    lambda M, T: M.MultivariateNormal(T.zeros(2)),
    lambda M, T: M.MultivariateNormal(T.zeros(2), T.eye(2), scale_tril=T.eye(2)),
    lambda M, T: M.MultivariateNormal(T.zeros(2), scale_tril=T.ones(2)),
    lambda M, T: M.MultivariateNormal(T.zeros(2), T.ones(2)),
    lambda M, T: M.MultivariateNormal(T.zeros(2), precision_matrix=T.ones(2)),
    lambda M, T: M.MultivariateNormal(T.zeros(2), T.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda M, T: M.MultivariateNormal(T.zeros(2), T.tensor([[1.0, 0.5], [0.0, 1.0]])),
    lambda M, T: M.MultivariateNormal(T.zeros(2), scale_tril=T.tensor([[1.0, 0.0], [1.0, -1.0]])),
    lambda M, T: M.kl_divergence(M.MultivariateNormal(T.zeros(2), T.eye(2)),
                                 M.MultivariateNormal(T.zeros(3), T.eye(3))),
    lambda M, T: M.MultivariateNormal(T.zeros(2), T.eye(2)).log_prob(T.zeros(3)),
], ids=range(11))
def test_multivariate_normal_errors_match_torch(make):
    assert message(lambda: make(D, mt)) == message(lambda: make(TD, torch))


def test_cholesky_failure_without_validation():
    """torch raises torch.linalg.LinAlgError, a RuntimeError minitorch does not have."""
    cov = [[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]
    ours, theirs = [message(lambda: M.MultivariateNormal(T.zeros(2, 2), T.tensor(cov), validate_args=False))
                    for M, T in ((D, mt), (TD, torch))]
    assert ours[0] is RuntimeError and issubclass(theirs[0], RuntimeError)
    assert ours[1] == theirs[1]
