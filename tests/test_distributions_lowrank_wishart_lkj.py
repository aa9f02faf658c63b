"""LowRankMultivariateNormal, Wishart and LKJCholesky against torch.distributions
on the same parameters (log_prob, entropy, moments, gradients, shapes, expand,
errors), and their samplers by the statistics of many draws."""
import warnings

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


def arr(t):
    return np.asarray(t.detach().tolist() if hasattr(t, "detach") else t, dtype=np.float64)


def close(ours, theirs, tol=1e-9):
    ours, theirs = arr(ours), arr(theirs)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


def message(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value).replace("minitorch.", "").replace("torch.", "")


def spd(rng, batch=(), n=3):
    a = rng.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + np.eye(n)


# ---------------------------------------------------------------- LowRankMultivariateNormal

LOWRANK_SHAPES = [  # (loc, cov_factor, cov_diag)
    ((3,), (3, 1), (3,)),
    ((2, 4), (4, 2), (4,)),
    ((4,), (2, 4, 3), (1, 4)),
    ((3, 1, 5), (2, 5, 2), (5,)),
]


@pytest.mark.parametrize("shapes", LOWRANK_SHAPES, ids=str)
def test_lowrank_values_and_grads_match_torch(shapes):
    rng = np.random.default_rng(len(shapes[1]))
    loc_s, w_s, d_s = shapes
    (l, tl), (W, tW) = pair(rng.normal(size=loc_s), True), pair(rng.normal(size=w_s), True)
    d, td = pair(rng.uniform(0.3, 2.0, size=d_s), True)
    ours, theirs = D.LowRankMultivariateNormal(l, W, d), TD.LowRankMultivariateNormal(tl, tW, td)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    v, tv = pair(rng.normal(size=(2,) + tuple(theirs.batch_shape) + tuple(theirs.event_shape)))
    close(ours.log_prob(v), theirs.log_prob(tv))
    close(ours.entropy(), theirs.entropy())
    for attr in ("mean", "mode", "variance", "stddev", "scale_tril", "covariance_matrix",
                 "precision_matrix", "loc", "cov_factor", "cov_diag"):
        close(getattr(ours, attr), getattr(theirs, attr))
    (ours.log_prob(v).sum() + ours.entropy().sum() + ours.precision_matrix.sum()
     + ours.scale_tril.sum()).backward()
    (theirs.log_prob(tv).sum() + theirs.entropy().sum() + theirs.precision_matrix.sum()
     + theirs.scale_tril.sum()).backward()
    for a, b in ((l, tl), (W, tW), (d, td)):
        close(a.grad, b.grad, 1e-8)


def test_lowrank_agrees_with_the_full_covariance_normal():
    rng = np.random.default_rng(3)
    loc, W, d = rng.normal(size=5), rng.normal(size=(5, 2)), rng.uniform(0.5, 1.5, size=5)
    low = D.LowRankMultivariateNormal(*(pair(x)[0] for x in (loc, W, d)))
    full = D.MultivariateNormal(pair(loc)[0], covariance_matrix=pair(W @ W.T + np.diag(d))[0])
    v = pair(rng.normal(size=(4, 5)))[0]
    close(low.log_prob(v), full.log_prob(v))
    close(low.entropy(), full.entropy())
    close(low.precision_matrix, full.precision_matrix)


def test_lowrank_expand_and_sample_shapes():
    rng = np.random.default_rng(4)
    l, W, d = (pair(x)[0] for x in (rng.normal(size=3), rng.normal(size=(3, 2)),
                                     rng.uniform(1, 2, size=3)))
    dist = D.LowRankMultivariateNormal(l, W, d)
    e = dist.expand((4, 2))
    assert tuple(e.batch_shape) == (4, 2) and tuple(e.event_shape) == (3,)
    assert tuple(e.cov_factor.shape) == (4, 2, 3, 2) and tuple(e.cov_diag.shape) == (4, 2, 3)
    assert tuple(e.sample((5,)).shape) == (5, 4, 2, 3)
    assert tuple(e.rsample().shape) == (4, 2, 3)
    v = pair(rng.normal(size=(4, 2, 3)))[0]
    close(e.log_prob(v), dist.log_prob(v))
    assert tuple(e.entropy().shape) == (4, 2)
    assert not dist.sample().requires_grad
    assert e.support is D.constraints.real_vector and dist.has_rsample


def test_lowrank_sample_statistics_and_rsample_gradient():
    rng = np.random.default_rng(5)
    loc, W, d = [1.0, -2.0, 0.5], rng.normal(size=(3, 2)), [0.5, 1.0, 2.0]
    (l, _), (w, _), (dd, _) = pair(loc, True), pair(W, True), pair(d, True)
    mt.manual_seed(0)
    dist = D.LowRankMultivariateNormal(l, w, dd)
    s = dist.rsample((40000,))
    a = arr(s)
    np.testing.assert_allclose(a.mean(0), loc, atol=0.05)
    np.testing.assert_allclose(np.cov(a.T), W @ W.T + np.diag(d), rtol=0.05, atol=0.05)
    # rsample = loc + W eps_W + sqrt(d) eps_D: replay the draws to get the exact gradient
    mt.manual_seed(11)
    eps_w = arr(mt.randn(3, 2, dtype=mt.float64))
    eps_d = arr(mt.randn(3, 3, dtype=mt.float64))
    x = np.asarray(loc) + eps_w @ W.T + np.sqrt(d) * eps_d
    mt.manual_seed(11)
    dist.rsample((3,)).pow(2).sum().backward()
    close(l.grad, (2 * x).sum(0))
    close(w.grad, 2 * x.T @ eps_w)
    close(dd.grad, (2 * x * eps_d / (2 * np.sqrt(d))).sum(0))


@pytest.mark.parametrize("make", [
    lambda M, T: M.LowRankMultivariateNormal(T.tensor(0.0), T.ones(1, 1), T.ones(1)),
    lambda M, T: M.LowRankMultivariateNormal(T.zeros(3), T.ones(3), T.ones(3)),
    lambda M, T: M.LowRankMultivariateNormal(T.zeros(3), T.ones(2, 1), T.ones(3)),
    lambda M, T: M.LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.ones(2)),
    lambda M, T: M.LowRankMultivariateNormal(T.zeros(2, 3), T.ones(4, 3, 1), T.ones(3)),
    lambda M, T: M.LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.tensor([1.0, 0.0, 1.0])),
    lambda M, T: M.LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.ones(3)).log_prob(
        T.zeros(2)),
], ids=range(7))
def test_lowrank_errors_match_torch(make):
    assert message(lambda: make(D, mt)) == message(lambda: make(TD, torch))


# ---------------------------------------------------------------- Wishart

@pytest.mark.filterwarnings("ignore:Low df values detected")
@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
@pytest.mark.parametrize("batch,df", [((), 4.5), ((2,), [4.0, 7.5]), ((2, 1), [[3.5], [2.5]]),
                                      ((), [[5.0, 6.0]])], ids=str)
def test_wishart_values_and_grads_match_torch(kind, batch, df):
    rng = np.random.default_rng(len(batch) + len(kind))
    m = spd(rng, batch)
    if kind == "scale_tril":
        m = np.linalg.cholesky(m)
    (mat, tmat) = pair(m, True)
    if isinstance(df, float):
        dfs, tdfs = df, df
    else:
        dfs, tdfs = pair(df, True)
    ours, theirs = D.Wishart(dfs, **{kind: mat}), TD.Wishart(tdfs, **{kind: tmat})
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape) == (3, 3)
    close(ours.df, theirs.df)
    v, tv = pair(spd(rng, (4,) + tuple(theirs.batch_shape)))
    close(ours.log_prob(v), theirs.log_prob(tv))
    close(ours.entropy(), theirs.entropy())
    for attr in ("mean", "variance", "scale_tril", "covariance_matrix", "precision_matrix"):
        close(getattr(ours, attr), getattr(theirs, attr))
    np.testing.assert_allclose(arr(ours.mode), arr(theirs.mode), rtol=1e-9, atol=1e-9)
    (ours.log_prob(v).sum() + ours.entropy().sum() + ours.variance.sum()).backward()
    (theirs.log_prob(tv).sum() + theirs.entropy().sum() + theirs.variance.sum()).backward()
    close(mat.grad, tmat.grad, 1e-8)
    if not isinstance(df, float):
        close(dfs.grad, tdfs.grad, 1e-8)


def test_wishart_expand_shapes_and_repr():
    rng = np.random.default_rng(7)
    cov, tcov = pair(spd(rng))
    w, tw = D.Wishart(mt.tensor([4.0, 5.0], dtype=mt.float64), cov), TD.Wishart(
        torch.tensor([4.0, 5.0], dtype=torch.float64), tcov)
    assert repr(w).replace("minitorch.", "") == repr(tw).replace("torch.", "")
    e, te = w.expand((3, 2)), tw.expand((3, 2))
    assert tuple(e.batch_shape) == (3, 2) and tuple(e.df.shape) == (3, 2)
    assert tuple(e.sample((4,)).shape) == (4, 3, 2, 3, 3)
    v, tv = pair(spd(rng, (3, 2)))
    close(e.log_prob(v), te.log_prob(tv))
    close(e.mean, te.mean)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = D.Wishart(5.0, cov).rsample((6,))
    assert tuple(s.shape) == (6, 3, 3)
    assert bool(D.constraints.positive_definite.check(s).all())
    assert D.Wishart.support is D.constraints.positive_definite


def test_wishart_low_df_warns_as_torch():
    with pytest.warns(UserWarning, match="Low df values detected"):
        D.Wishart(2.5, mt.eye(3))
    with pytest.warns(UserWarning, match="Low df values detected"):
        TD.Wishart(2.5, torch.eye(3))


def test_wishart_sample_moments():
    rng = np.random.default_rng(8)
    S = spd(rng) / 3
    mt.manual_seed(1)
    for df in (3.5, 8.0):
        s = arr(D.Wishart(df, pair(S)[0]).sample((40000,)))
        np.testing.assert_allclose(s.mean(0), df * S, rtol=0.04, atol=0.04)
        var = df * (S ** 2 + np.outer(np.diag(S), np.diag(S)))
        np.testing.assert_allclose(s.var(0), var, rtol=0.1, atol=0.05)


def test_wishart_rsample_gradient_of_the_mean():
    """E[X] = df L L^T: the mean of rsample's gradient approaches that of df L L^T."""
    rng = np.random.default_rng(9)
    L0 = np.linalg.cholesky(spd(rng))
    (L, _), (df, _) = pair(L0, True), pair(5.0, True)
    mt.manual_seed(2)
    n = 40000
    D.Wishart(df, scale_tril=L).rsample((n,)).sum().div(n).backward()
    ones = np.ones((3, 3))
    np.testing.assert_allclose(arr(L.grad), 5.0 * 2 * ones @ L0, rtol=0.05, atol=0.05)
    np.testing.assert_allclose(arr(df.grad), (L0 @ L0.T).sum(), rtol=0.05)


@pytest.mark.parametrize("make", [
    lambda M, T: M.Wishart(3.0),
    lambda M, T: M.Wishart(3.0, T.eye(2), scale_tril=T.eye(2)),
    lambda M, T: M.Wishart(3.0, T.ones(3)),
    lambda M, T: M.Wishart(T.tensor(1.0), T.eye(3)),
    lambda M, T: M.Wishart(T.tensor([4.0, 2.0]), T.eye(3)),
    lambda M, T: M.Wishart(3.0, T.ones(3, 3)),
    lambda M, T: M.Wishart(3.0, scale_tril=T.ones(2, 2)),
    lambda M, T: M.Wishart(T.ones(3) * 4, T.eye(2).expand(2, 2, 2)),
    lambda M, T: M.Wishart(3.0, T.eye(2)).log_prob(T.ones(2, 2)),
    lambda M, T: M.Wishart(3.0, T.eye(2)).log_prob(T.eye(3)),
], ids=range(10))
def test_wishart_errors_match_torch(make):
    assert message(lambda: make(D, mt)) == message(lambda: make(TD, torch))


# ---------------------------------------------------------------- LKJCholesky

@pytest.mark.parametrize("dim,conc", [(2, 1.0), (3, [0.5, 1.0, 4.0]), (5, [[0.3], [2.0]]),
                                      (4, 1.7)], ids=str)
def test_lkj_log_prob_and_grads_match_torch(dim, conc):
    c, tc = pair(conc, True)
    ours, theirs = D.LKJCholesky(dim, c), TD.LKJCholesky(dim, tc)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape) == (dim, dim)
    torch.manual_seed(0)
    tv = theirs.sample((2,)).detach()
    v = mt.tensor(tv.tolist(), dtype=mt.float64)
    close(ours.log_prob(v), theirs.log_prob(tv))
    ours.log_prob(v).sum().backward()
    theirs.log_prob(tv).sum().backward()
    close(c.grad, tc.grad)
    e, te = ours.expand((2,) + tuple(theirs.batch_shape)), theirs.expand(
        (2,) + tuple(theirs.batch_shape))
    close(e.log_prob(v), te.log_prob(tv))
    assert tuple(e.sample().shape) == (2,) + tuple(theirs.batch_shape) + (dim, dim)


def test_lkj_float_concentration_and_support():
    d = D.LKJCholesky(3)
    assert d.concentration.dtype == mt.float32 and tuple(d.batch_shape) == ()
    assert d.support is D.constraints.corr_cholesky and not d.has_rsample
    mt.manual_seed(3)
    s = D.LKJCholesky(4, mt.tensor([0.5, 2.0], dtype=mt.float64)).sample((50,))
    assert tuple(s.shape) == (50, 2, 4, 4)
    assert bool(D.constraints.corr_cholesky.check(s).all())
    np.testing.assert_allclose(arr((s @ s.mT).diagonal(dim1=-2, dim2=-1)), 1.0, atol=1e-12)
    assert not bool(D.constraints.corr_cholesky.check(2 * s).any())
    assert repr(D.constraints.corr_cholesky) == repr(TD.constraints.corr_cholesky)
    t = torch.tensor(arr(s[:3]))
    np.testing.assert_array_equal(arr(D.constraints.corr_cholesky.check(s[:3])),
                                  TD.constraints.corr_cholesky.check(t).numpy())


@pytest.mark.parametrize("dim,eta", [(2, 1.0), (3, 0.5), (4, 3.0)])
def test_lkj_sample_statistics(dim, eta):
    """The correlations L L^T have torch's sampler's moments: mean 0 off the
    diagonal and, in row 1, the LKJ marginal variance 1 / (2 eta + d - 1).
    (torch's onion sampler gives the later rows other variances; ours follows it.)"""
    mt.manual_seed(4)
    torch.manual_seed(4)
    n = 40000
    corr = arr((lambda L: L @ L.mT)(D.LKJCholesky(dim, eta).sample((n,)).to(mt.float64)))
    tcorr = (lambda L: L @ L.mT)(TD.LKJCholesky(dim, eta).sample((n,)).double()).numpy()
    off = ~np.eye(dim, dtype=bool)
    np.testing.assert_allclose(corr[:, off].mean(0), 0.0, atol=0.03)
    np.testing.assert_allclose(corr.var(0)[off], tcorr.var(0)[off], rtol=0.06)
    np.testing.assert_allclose(corr[:, 0, 1].var(), 1.0 / (2 * eta + dim - 1), rtol=0.05)


@pytest.mark.parametrize("make", [
    lambda M, T: M.LKJCholesky(1),
    lambda M, T: M.LKJCholesky(3, -1.0),
    lambda M, T: M.LKJCholesky(3, T.tensor([1.0, 0.0])),
    lambda M, T: M.LKJCholesky(2).log_prob(T.ones(2, 2)),
    lambda M, T: M.LKJCholesky(2).log_prob(T.eye(3)),
], ids=range(5))
def test_lkj_errors_match_torch(make):
    assert message(lambda: make(D, mt)) == message(lambda: make(TD, torch))


# ---------------------------------------------------------------- CorrCholeskyTransform

@pytest.mark.parametrize("shape", [(1,), (3,), (2, 6), (4, 1, 10)], ids=str)
def test_corr_cholesky_transform_matches_torch(shape):
    x, tx = pair(np.random.default_rng(len(shape)).normal(scale=1.5, size=shape), True)
    t, tt = D.CorrCholeskyTransform(), TD.CorrCholeskyTransform()
    y, ty = t(x), tt(tx)
    close(y, ty, 1e-12)
    assert bool(D.constraints.corr_cholesky.check(y).all())
    close(t.inv(y), tx, 1e-9)
    close(t.log_abs_det_jacobian(x, y), tt.log_abs_det_jacobian(tx, ty), 1e-10)
    (y.sum() + t.log_abs_det_jacobian(x, y).sum()).backward()
    (ty.sum() + tt.log_abs_det_jacobian(tx, ty).sum()).backward()
    close(x.grad, tx.grad, 1e-9)
    assert tuple(t.forward_shape(shape)) == tuple(tt.forward_shape(torch.Size(shape)))
    assert tuple(t.inverse_shape(tuple(y.shape))) == shape
    assert t == D.CorrCholeskyTransform() and t.bijective
    assert t.domain is D.constraints.real_vector and t.codomain is D.constraints.corr_cholesky


@pytest.mark.parametrize("make", [
    lambda M, T: M.CorrCholeskyTransform().forward_shape(T.Size([4])),
    lambda M, T: M.CorrCholeskyTransform().forward_shape(T.Size([])),
    lambda M, T: M.CorrCholeskyTransform().inverse_shape(T.Size([3, 4])),
    lambda M, T: M.CorrCholeskyTransform().inverse_shape(T.Size([3])),
    lambda M, T: M.CorrCholeskyTransform()(T.zeros(4)),
], ids=range(5))
def test_corr_cholesky_transform_errors_match_torch(make):
    assert message(lambda: make(D, mt)) == message(lambda: make(TD, torch))


def test_tril_vector_helpers_match_torch():
    from minitorch.distributions.utils import tril_matrix_to_vec, vec_to_tril_matrix
    from torch.distributions.utils import tril_matrix_to_vec as t_to_vec
    from torch.distributions.utils import vec_to_tril_matrix as t_to_mat
    m, tm = pair(np.arange(2 * 16.0).reshape(2, 4, 4))
    for diag in (-2, -1, 0, 1):
        close(tril_matrix_to_vec(m, diag), t_to_vec(tm, diag))
        close(vec_to_tril_matrix(tril_matrix_to_vec(m, diag), diag), t_to_mat(t_to_vec(tm, diag), diag))
    assert message(lambda: tril_matrix_to_vec(m, 4)) == message(lambda: t_to_vec(tm, 4))
    assert message(lambda: vec_to_tril_matrix(m[0, 0, :2], -1)) == message(
        lambda: t_to_mat(tm[0, 0, :2], -1))
