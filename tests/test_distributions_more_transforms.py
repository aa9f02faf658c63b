"""The transforms beyond exp/sigmoid/tanh/affine and the constraint
registry (biject_to, transform_to) against torch.distributions: forward,
inverse, log_abs_det_jacobian, shapes, domains and codomains, reprs, and
the gradients of the log Jacobian."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.distributions as D
from minitorch.distributions import constraints as C

torch = pytest.importorskip("torch")
TD = torch.distributions
TC = torch.distributions.constraints

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
SQ = RNG.standard_normal((2, 3, 3))


def close(a, b, tol=1e-10):
    a = np.asarray(a.detach().tolist() if hasattr(a, "detach") else a, dtype=np.float64)
    b = np.asarray(b.detach().double().numpy() if hasattr(b, "detach") else b, dtype=np.float64)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def t64(lib, a):
    return lib.tensor(np.asarray(a).tolist(), dtype=lib.float64)


# name: (builder given (distributions module, tensor lib), input, has a log Jacobian)
CASES = {
    "abs": (lambda d, lib: d.AbsTransform(), X, False),
    "power": (lambda d, lib: d.PowerTransform(t64(lib, [0.5, 2.0, -1.0, 3.0])), np.abs(X) + 0.1,
              True),
    "power_number": (lambda d, lib: d.PowerTransform(2.5), np.abs(X) + 0.1, True),
    "softplus": (lambda d, lib: d.SoftplusTransform(), X, True),
    "softmax": (lambda d, lib: d.SoftmaxTransform(), X, False),
    "stick_breaking": (lambda d, lib: d.StickBreakingTransform(), X, True),
    "lower_cholesky": (lambda d, lib: d.LowerCholeskyTransform(), SQ, False),
    "positive_definite": (lambda d, lib: d.PositiveDefiniteTransform(), SQ, False),
    "reshape": (lambda d, lib: d.ReshapeTransform((4,), (2, 2)), X, True),
    "independent": (lambda d, lib: d.IndependentTransform(d.ExpTransform(), 1), X, True),
    "cat": (lambda d, lib: d.CatTransform([d.ExpTransform(), d.AffineTransform(1.0, 3.0)],
                                          dim=-1, lengths=[1, 3]), X, True),
    "cat_batch_dim": (lambda d, lib: d.CatTransform([d.ExpTransform(), d.SoftplusTransform()],
                                                    dim=0, lengths=[1, 2]), X, True),
    "stack": (lambda d, lib: d.StackTransform([d.ExpTransform(), d.SigmoidTransform(),
                                               d.AffineTransform(0.0, 2.0)], dim=0), X, True),
    "cdf": (lambda d, lib: d.CumulativeDistributionTransform(
        d.Normal(t64(lib, [0.0, 1.0, -1.0, 0.5]), t64(lib, [1.0, 2.0, 0.5, 1.0]))), X, True),
    "identity": (lambda d, lib: d.identity_transform, X, True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_transform_matches_torch(name):
    make, x, has_jacobian = CASES[name]
    ours, theirs = make(D, mt), make(TD, torch)
    mx = mt.tensor(x.tolist(), dtype=mt.float64, requires_grad=True)
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    my, ty = ours(mx), theirs(tx)
    close(my, ty)
    close(ours.inv(my), theirs.inv(ty), 1e-9)
    assert tuple(ours.forward_shape(x.shape)) == tuple(theirs.forward_shape(x.shape))
    assert tuple(ours.inverse_shape(tuple(ty.shape))) == tuple(theirs.inverse_shape(ty.shape))
    assert repr(ours) == repr(theirs)
    assert repr(ours.domain) == repr(theirs.domain)
    assert repr(ours.codomain) == repr(theirs.codomain)
    assert ours.bijective == theirs.bijective
    assert ours.domain.event_dim == theirs.domain.event_dim
    assert ours.codomain.event_dim == theirs.codomain.event_dim
    if has_jacobian:
        jo, jt = ours.log_abs_det_jacobian(mx, my), theirs.log_abs_det_jacobian(tx, ty)
        close(jo, jt)
        assert jo.requires_grad == jt.requires_grad
        if jt.requires_grad:
            jo.sum().backward()
            jt.sum().backward()
            close(mx.grad, tx.grad, 1e-9)
    else:
        with pytest.raises(NotImplementedError):
            ours.log_abs_det_jacobian(mx, my)
    cached, tcached = ours.with_cache(1), theirs.with_cache(1)
    y = cached(mx)
    assert cached.inv(y) is mx
    assert cached == cached and tcached == tcached


def test_transform_signs_and_equality():
    assert D.SoftplusTransform().sign == 1 and D.AbsTransform() == D.AbsTransform()
    p = D.PowerTransform(mt.tensor([2.0, -1.0]))
    close(p.sign, torch.tensor([1.0, -1.0]))
    assert p == D.PowerTransform(mt.tensor([2.0, -1.0]))
    assert p != D.PowerTransform(mt.tensor([2.0, 1.0]))
    assert D.StickBreakingTransform() == D.StickBreakingTransform()
    assert D.CumulativeDistributionTransform(D.Normal(0.0, 1.0)).sign == 1


def test_transform_shape_errors_match_torch():
    for make, shape in [(lambda d: d.ReshapeTransform((4,), (2, 2)), (3, 5)),
                        (lambda d: d.ReshapeTransform((4,), (2, 2)), ()),
                        (lambda d: d.StickBreakingTransform(), ())]:
        with pytest.raises(ValueError) as e1:
            make(D).forward_shape(shape)
        with pytest.raises(ValueError) as e2:
            make(TD).forward_shape(torch.Size(shape))
        assert str(e1.value) == str(e2.value).replace("torch.", "minitorch.")
    with pytest.raises(ValueError, match="different numbers of elements"):
        D.ReshapeTransform((4,), (3,))


def test_transformed_distribution_with_the_new_transforms():
    loc, tloc = mt.tensor([0.1, -0.4, 0.3], dtype=mt.float64), torch.tensor([0.1, -0.4, 0.3],
                                                                          dtype=torch.float64)
    ours = D.TransformedDistribution(D.Independent(D.Normal(loc, mt.ones_like(loc)), 1),
                                     D.StickBreakingTransform())
    theirs = TD.TransformedDistribution(TD.Independent(TD.Normal(tloc, torch.ones_like(tloc)), 1),
                                        TD.StickBreakingTransform())
    torch.manual_seed(0)
    v = theirs.sample((5,))
    close(ours.log_prob(mt.tensor(v.tolist(), dtype=mt.float64)), theirs.log_prob(v))
    e = ours.expand((2, 5))
    assert tuple(e.batch_shape) == (2, 5) and tuple(e.event_shape) == (4,)


CONSTRAINTS = {
    "real": lambda c, lib: c.real,
    "real_vector": lambda c, lib: c.real_vector,
    "positive": lambda c, lib: c.positive,
    "nonnegative": lambda c, lib: c.nonnegative,
    "greater_than": lambda c, lib: c.greater_than(1.5),
    "greater_than_eq": lambda c, lib: c.greater_than_eq(-1.0),
    "less_than": lambda c, lib: c.less_than(2.0),
    "unit_interval": lambda c, lib: c.unit_interval,
    "interval": lambda c, lib: c.interval(-1.0, 3.0),
    "half_open_interval": lambda c, lib: c.half_open_interval(0.0, 2.0),
    "simplex": lambda c, lib: c.simplex,
    "lower_cholesky": lambda c, lib: c.lower_cholesky,
    "positive_definite": lambda c, lib: c.positive_definite,
    "positive_semidefinite": lambda c, lib: c.positive_semidefinite,
    "corr_cholesky": lambda c, lib: c.corr_cholesky,
    "independent_positive": lambda c, lib: c.independent(c.positive, 1),
    "cat": lambda c, lib: c.cat([c.positive, c.real, c.unit_interval], dim=-1, lengths=[1, 2, 1]),
    "stack": lambda c, lib: c.stack([c.positive, c.real, c.unit_interval], dim=0),
}


def _input_for(transform, lib):
    shape = tuple(transform.inverse_shape((3, 4) if transform.codomain.event_dim < 2 else (3, 3)))
    if transform.domain.event_dim == 2:
        return lib.tensor(SQ[0].tolist(), dtype=lib.float64)
    return lib.tensor(RNG.standard_normal(shape).tolist(), dtype=lib.float64)


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", sorted(CONSTRAINTS))
def test_constraint_registry_matches_torch(name, registry):
    c, tc = CONSTRAINTS[name](C, mt), CONSTRAINTS[name](TC, torch)
    try:
        theirs = getattr(TD, registry)(tc)
    except NotImplementedError as e:
        with pytest.raises(NotImplementedError) as ours_e:
            getattr(D, registry)(c)
        assert str(ours_e.value) == str(e)
        return
    ours = getattr(D, registry)(c)
    assert repr(ours) == repr(theirs)
    x = _input_for(theirs, torch)
    y, ty = ours(mt.tensor(x.tolist(), dtype=mt.float64)), theirs(x)
    close(y, ty, 1e-9)
    assert bool(c.check(y).all())
    assert repr(ours.codomain) == repr(theirs.codomain)


def test_constraint_registry_register_and_errors():
    reg = D.constraint_registry.ConstraintRegistry()

    @reg.register(C.positive)
    def _factory(constraint):
        return D.ExpTransform()
    assert isinstance(reg(C.greater_than(3.0)), D.ExpTransform)
    with pytest.raises(NotImplementedError, match="Cannot transform _Simplex constraints"):
        reg(C.simplex)
    with pytest.raises(TypeError):
        reg.register(3, _factory)


def test_new_constraints_check_like_torch():
    v = np.array([[1.0, 2.0, 0.0], [0.5, 1.0, 1.0], [-1.0, 2.0, 3.0]])
    m, t = mt.tensor(v.tolist()), torch.tensor(v, dtype=torch.float32)
    for make in (lambda c: c.multinomial(3), lambda c: c.cat([c.positive, c.nonnegative],
                                                             dim=1, lengths=[1, 2]),
                 lambda c: c.stack([c.positive, c.real, c.unit_interval], dim=1),
                 lambda c: c.MixtureSameFamilyConstraint(c.positive)):
        close(make(C).check(m).to(mt.float64), make(TC).check(t).double(), 0)
        assert repr(make(C)) == repr(make(TC)) or not repr(make(TC)).startswith("Mixture")
    pd = np.array([[[2.0, 1.0], [1.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]])
    close(C.positive_semidefinite.check(mt.tensor(pd.tolist())).to(mt.float64),
          TC.positive_semidefinite.check(torch.tensor(pd)).double(), 0)
