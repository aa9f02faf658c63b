"""The univariate distributions beyond the first set, against
torch.distributions on the same random parameters (float32 and float64,
batched and with broadcast scalars): moments, log_prob, cdf, icdf, entropy,
enumerate_support, reprs, shapes, sample statistics, gradients of log_prob
and entropy, rsample gradients against the implicit reparameterisation
gradient -dF/dtheta / f that torch's cdf and density give, and validation errors."""
import math

import numpy as np
import pytest

import minitorch as mt
import minitorch.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions

DTYPES = {"float32": (mt.float32, torch.float32), "float64": (mt.float64, torch.float64)}


def real(rng, shape):
    return rng.uniform(-2.0, 2.0, shape)


def pos(lo=0.3, hi=3.0):
    return lambda rng, shape: rng.uniform(lo, hi, shape)


UNIT = pos(0.05, 0.95)

# name: {parameter: generator}, the parameters each torch constructor takes by keyword
CASES = {
    "Exponential": {"rate": pos()},
    "Laplace": {"loc": real, "scale": pos()},
    "LogNormal": {"loc": real, "scale": pos(0.3, 1.5)},
    "Cauchy": {"loc": real, "scale": pos()},
    "HalfNormal": {"scale": pos()},
    "HalfCauchy": {"scale": pos()},
    "Gumbel": {"loc": real, "scale": pos()},
    "StudentT": {"df": pos(0.5, 8.0), "loc": real, "scale": pos()},
    "Chi2": {"df": pos(0.5, 8.0)},
    "Poisson": {"rate": pos(0.5, 20.0)},
    "Geometric": {"probs": UNIT},
    "Binomial": {"total_count": lambda rng, shape: np.full(shape, 10.0), "probs": UNIT},
    "NegativeBinomial": {"total_count": pos(0.5, 10.0), "probs": pos(0.05, 0.8)},
    "Weibull": {"scale": pos(), "concentration": pos(0.5, 4.0)},
    "Pareto": {"scale": pos(), "alpha": pos(0.5, 5.0)},
    "VonMises": {"loc": real, "concentration": pos(0.1, 8.0)},
    "ContinuousBernoulli": {"probs": UNIT},
    "FisherSnedecor": {"df1": pos(0.5, 10.0), "df2": pos(0.5, 10.0)},
    "Kumaraswamy": {"concentration1": pos(0.5, 4.0), "concentration0": pos(0.5, 4.0)},
    "InverseGamma": {"concentration": pos(0.5, 5.0), "rate": pos()},
    "GeneralizedPareto": {"loc": real, "scale": pos(), "concentration": lambda rng, shape:
                          rng.uniform(-0.4, 0.4, shape)},
    "RelaxedBernoulli": {"temperature": pos(0.3, 2.0), "probs": UNIT},
}
NAMES = sorted(CASES)
# rsample draws of one noise variable per element, through the quantile function:
# its gradient is the implicit one for these parameters
IMPLICIT = {"Exponential": ("rate",), "Laplace": ("loc", "scale"), "LogNormal": ("loc", "scale"),
            "Cauchy": ("loc", "scale"), "Gumbel": ("loc", "scale"), "HalfNormal": ("scale",),
            "HalfCauchy": ("scale",), "Chi2": ("df",), "Weibull": ("scale", "concentration"),
            "Pareto": ("scale", "alpha"),
            "Kumaraswamy": ("concentration1", "concentration0"),
            "InverseGamma": ("concentration", "rate"),
            "GeneralizedPareto": ("loc", "scale", "concentration"),
            "ContinuousBernoulli": ("probs",)}


@pytest.fixture(autouse=True)
def _torch_gpd_float64(request):
    """torch's GeneralizedPareto compares its shape with a default-dtype zero,
    which fails on float64 parameters unless float64 is the default."""
    spec = getattr(request.node, "callspec", None)
    params = spec.params if spec else {}
    if (params.get("name") != "GeneralizedPareto" or params.get("dtype") == "float32"
            or request.function.__name__ in ("test_each_invalid_parameter_is_refused_as_torch",
                                             "test_value_outside_support_is_refused_as_torch")):
        yield
        return
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(old)


def tol(dtype):
    return 1e-9 if dtype == "float64" else 2e-5


def close(ours, theirs, rtol, atol=None):
    ours = np.asarray(ours.detach().tolist() if hasattr(ours, "detach") else ours, dtype=np.float64)
    theirs = np.asarray(theirs.detach().double().numpy() if hasattr(theirs, "detach") else theirs,
                        dtype=np.float64)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol if atol is None else atol)


def build(name, dtype="float64", scalar=None, requires_grad=False, seed=0, shape=(2, 3)):
    """The same distribution in minitorch and torch; `scalar` names a parameter
    given as a Python float (broadcast against the others)."""
    rng = np.random.default_rng(seed)
    mdt, tdt = DTYPES[dtype]
    ours, theirs, leaves = {}, {}, []
    for k, gen in CASES[name].items():
        a = gen(rng, shape)
        if k == scalar:
            ours[k] = theirs[k] = float(a.flat[0])
            continue
        o = mt.tensor(a.tolist(), dtype=mdt, requires_grad=requires_grad and k != "total_count")
        t = torch.tensor(a, dtype=tdt, requires_grad=requires_grad and k != "total_count")
        ours[k], theirs[k] = o, t
        if o.requires_grad:
            leaves.append((k, o, t))
    return getattr(D, name)(**ours), getattr(TD, name)(**theirs), leaves


def values(t, n=4):
    torch.manual_seed(0)
    with torch.no_grad():
        v = t.sample((n,))
    if isinstance(t, TD.RelaxedBernoulli):
        v = v.clamp(1e-4, 1 - 1e-4)
    return v


def mt_of(t):
    return mt.tensor(t.double().numpy().tolist(), dtype={torch.float32: mt.float32,
                                                          torch.float64: mt.float64}[t.dtype])


def both(fn_ours, fn_theirs):
    """Both results, or both NotImplementedError (then None)."""
    try:
        theirs = fn_theirs()
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            fn_ours()
        return None, None
    return fn_ours(), theirs


def test_public_names_match_torch():
    assert sorted(D.__all__) == sorted(TD.__all__)
    for name in TD.__all__:
        assert hasattr(D, name), name
    for module in ("exponential", "laplace", "log_normal", "studentT", "one_hot_categorical",
                   "relaxed_categorical", "constraint_registry", "exp_family", "von_mises"):
        sub = __import__(f"minitorch.distributions.{module}", fromlist=["x"])
        assert sub is getattr(D, module)
    assert D.exponential.Exponential is D.Exponential


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_values_match_torch(name, dtype):
    ours, theirs, _ = build(name, dtype)
    rt = tol(dtype)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert ours.has_rsample == theirs.has_rsample
    assert repr(ours) == repr(theirs).replace("torch.", "minitorch.")
    assert list(ours.arg_constraints) == list(theirs.arg_constraints)
    if torch.get_default_dtype() == torch.float32:  # else torch's reprs drop float64's dtype
        assert repr(ours.support) == repr(theirs.support).replace("torch.", "minitorch.")
    for attr in ("mean", "mode", "variance", "stddev"):
        o, t = both(lambda: getattr(ours, attr), lambda: getattr(theirs, attr))
        if t is not None:
            assert o.dtype == DTYPES[dtype][0], attr
            close(o, t, rt if attr != "variance" or name != "VonMises" else 1e-5)
    v = values(theirs)
    close(ours.log_prob(mt_of(v)), theirs.log_prob(v), rt * 10)
    o, t = both(lambda: ours.entropy(), lambda: theirs.entropy())
    if t is not None:
        close(o, t, rt * 10)
    o, t = both(lambda: ours.cdf(mt_of(v)), lambda: theirs.cdf(v))
    if t is not None:
        close(o, t, rt * 10)
    q = torch.tensor(np.random.default_rng(1).uniform(0.05, 0.95, (4, 2, 3)),
                     dtype=DTYPES[dtype][1])
    o, t = both(lambda: ours.icdf(mt_of(q)), lambda: theirs.icdf(q))
    if t is not None:
        close(o, t, rt * 100)
    if theirs.has_enumerate_support:
        close(ours.enumerate_support(), theirs.enumerate_support(), 0)
        close(ours.enumerate_support(False), theirs.enumerate_support(False), 0)


@pytest.mark.parametrize("name", [n for n in NAMES if n != "RelaxedBernoulli"])
def test_broadcast_scalar_parameter(name):
    """The first parameter as a Python float (RelaxedBernoulli's temperature
    is never broadcast, so a scalar probs with a batched temperature is no case)."""
    first = next(iter(CASES[name]))
    ours, theirs, _ = build(name, scalar=first)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    v = values(theirs)
    rt = 1e-9 if theirs.log_prob(v).dtype == torch.float64 else 2e-5
    close(ours.log_prob(mt_of(v)), theirs.log_prob(v), rt)
    o, t = both(lambda: ours.mean, lambda: theirs.mean)
    if t is not None:
        close(o, t, rt)


@pytest.mark.parametrize("name", NAMES)
def test_all_scalar_parameters(name):
    kw = {k: float(g(np.random.default_rng(3), (1,))[0]) for k, g in CASES[name].items()}
    if name == "RelaxedBernoulli":
        kw["temperature"] = torch.tensor(kw["temperature"])
        ours = D.RelaxedBernoulli(mt.tensor(kw["temperature"].item()), probs=kw["probs"])
    else:
        ours = getattr(D, name)(**kw)
    theirs = getattr(TD, name)(**kw)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    s = ours.sample()
    assert tuple(s.shape) == tuple(theirs.sample().shape)
    assert s.dtype == mt.float32
    v = values(theirs)
    close(ours.log_prob(mt_of(v)), theirs.log_prob(v), 2e-5)


@pytest.mark.parametrize("name", NAMES)
def test_log_prob_and_entropy_gradients_match_torch(name):
    ours, theirs, leaves = build(name, requires_grad=True)
    v = values(theirs)
    lo, lt = ours.log_prob(mt_of(v)).sum(), theirs.log_prob(v).sum()
    o_ent, t_ent = both(lambda: ours.entropy(), lambda: theirs.entropy())
    if t_ent is not None:
        lo, lt = lo + o_ent.sum(), lt + t_ent.sum()
    lo.backward()
    lt.backward()
    for k, o, t in leaves:
        close(o.grad, t.grad, 1e-7)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_sample_shapes_dtype_expand_and_mean(name, dtype):
    ours, theirs, _ = build(name, dtype)
    mt.manual_seed(0)
    s = ours.sample((5,))
    assert tuple(s.shape) == (5, 2, 3)
    assert s.dtype == DTYPES[dtype][0]
    assert not s.requires_grad
    assert bool(ours.support.check(s).all())
    e, te = ours.expand((4, 2, 3)), theirs.expand((4, 2, 3))
    assert type(e) is type(ours)
    assert tuple(e.batch_shape) == (4, 2, 3)
    assert tuple(e.sample().shape) == (4, 2, 3)
    v = values(te, 2)
    close(e.log_prob(mt_of(v)), te.log_prob(v), tol(dtype) * 10)
    if dtype == "float32":
        return
    try:
        mean, var = theirs.mean.double().numpy(), theirs.variance.double().numpy()
    except NotImplementedError:
        return
    n = 20000
    draws = np.asarray(ours.sample((n,)).tolist())
    if name == "VonMises":
        # angles wrap into [-pi, pi): E cos(x - loc) = I1 / I0 = 1 - circular variance
        draws = np.cos(draws - np.asarray(ours.loc.tolist()))
        mean, var = 1 - var, np.full_like(var, 0.5)
    ok = np.isfinite(mean) & np.isfinite(var)
    bound = 6 * np.sqrt(var / n) + 1e-9
    assert ok.any() or name in ("Cauchy", "HalfCauchy")
    assert (np.abs(draws.mean(0) - mean)[ok] < bound[ok]).all()


def test_discrete_samplers_follow_the_pmf():
    """Chi-square goodness of fit of Poisson and Binomial draws, small and large means."""
    mt.manual_seed(1)
    for ours, theirs in [(D.Poisson(mt.tensor([2.5, 40.0])), TD.Poisson(torch.tensor([2.5, 40.0]))),
                         (D.Binomial(mt.tensor([12.0, 300.0]), mt.tensor([0.3, 0.6])),
                          TD.Binomial(torch.tensor([12.0, 300.0]), torch.tensor([0.3, 0.6]),
                                      validate_args=False))]:
        n = 40000
        draws = np.asarray(ours.sample((n,)).tolist())
        for j in range(2):
            ks, counts = np.unique(draws[:, j], return_counts=True)
            full = torch.tensor(ks, dtype=torch.float32)
            lp = theirs.log_prob(full.unsqueeze(-1).expand(-1, 2))[:, j]
            expected = n * lp.exp().double().numpy()
            keep = expected > 20
            chi2 = ((counts[keep] - expected[keep]) ** 2 / expected[keep]).sum()
            dof = keep.sum()
            assert chi2 < dof + 6 * math.sqrt(2 * dof), (ours, j, chi2, dof)


@pytest.mark.parametrize("name", sorted(IMPLICIT))
def test_rsample_gradient_is_the_implicit_one(name):
    """d x / d theta = -(dF/dtheta)(x) / f(x) at each draw x, with torch's cdf
    differentiated by central differences and torch's density."""
    ours, _, leaves = build(name, requires_grad=True)
    mt.manual_seed(0)
    x = ours.rsample((3,))
    x.sum().backward()
    xt = torch.tensor(np.asarray(x.detach().tolist()), dtype=torch.float64)
    base = {k: np.asarray(o.detach().tolist()) for k, o, _ in leaves}

    def theirs(**shift):
        kw = {k: torch.tensor(v + shift.get(k, 0.0)) for k, v in base.items()}
        return getattr(TD, name)(**kw, validate_args=False)
    density = theirs().log_prob(xt).exp()
    for k, o, _ in leaves:
        if k not in IMPLICIT[name]:
            continue
        h = 1e-6 * np.maximum(1.0, np.abs(base[k]))
        dF = (theirs(**{k: h}).cdf(xt) - theirs(**{k: -h}).cdf(xt)) / torch.tensor(2 * h)
        close(o.grad, (-dF / density).sum(0), 1e-5)


def test_studentt_and_fishersnedecor_rsample_gradients_flow():
    loc = mt.tensor([0.5, -1.0], dtype=mt.float64, requires_grad=True)
    scale = mt.tensor([2.0, 0.5], dtype=mt.float64, requires_grad=True)
    x = D.StudentT(mt.tensor([3.0, 7.0], dtype=mt.float64), loc, scale).rsample((4,))
    x.sum().backward()
    close(loc.grad, [4.0, 4.0], 1e-12)
    close(scale.grad, ((x.detach() - loc.detach()) / scale.detach()).sum(0), 1e-12)
    df = mt.tensor([2.0, 5.0], requires_grad=True)
    D.StudentT(df).rsample((3,)).sum().backward()
    assert df.grad is not None and bool(mt.isfinite(df.grad).all())
    d1 = mt.tensor([3.0, 6.0], requires_grad=True)
    D.FisherSnedecor(d1, mt.tensor([4.0, 9.0])).rsample((3,)).sum().backward()
    assert d1.grad is not None and bool(mt.isfinite(d1.grad).all())


def test_relaxed_bernoulli_rsample_gradient():
    """sigmoid((logit u + logit p) / t): check against the formula at the same u."""
    p = mt.tensor([0.2, 0.7], dtype=mt.float64, requires_grad=True)
    t = mt.tensor([0.5, 1.5], dtype=mt.float64)
    mt.manual_seed(0)
    y = D.RelaxedBernoulli(t, probs=p).rsample()
    y.sum().backward()
    x = np.asarray(y.detach().tolist())
    pp, tt = np.array([0.2, 0.7]), np.array([0.5, 1.5])
    expected = x * (1 - x) / tt / (pp * (1 - pp))
    close(p.grad, expected, 1e-9)


@pytest.mark.parametrize("name,kw,bad", [
    ("Exponential", {"rate": [1.0, -1.0]}, None),
    ("Laplace", {"loc": [0.0, 1.0], "scale": [1.0, 0.0]}, None),
    ("StudentT", {"df": [0.0, 1.0]}, None),
    ("Poisson", {"rate": [-0.5, 1.0]}, None),
    ("Geometric", {"probs": [0.0, 0.5]}, None),
    ("Binomial", {"total_count": [2.5, 3.0], "probs": [0.5, 0.5]}, None),
    ("Weibull", {"scale": [1.0, 1.0], "concentration": [1.0, -2.0]}, None),
    ("HalfNormal", {"scale": [1.0, 2.0]}, [-1.0, 1.0]),
    ("Exponential", {"rate": [1.0, 2.0]}, [-1.0, 1.0]),
    ("Poisson", {"rate": [1.0, 2.0]}, [0.5, 1.0]),
    ("Binomial", {"total_count": [3.0, 3.0], "probs": [0.5, 0.5]}, [4.0, 1.0]),
    ("Pareto", {"scale": [1.0, 1.0], "alpha": [1.0, 2.0]}, [0.5, 2.0]),
])
def test_validation_errors_match_torch(name, kw, bad):
    ours_kw = {k: mt.tensor(v) for k, v in kw.items()}
    theirs_kw = {k: torch.tensor(v) for k, v in kw.items()}
    with pytest.raises(ValueError) as theirs:
        d = getattr(TD, name)(**theirs_kw, validate_args=True)
        d.log_prob(torch.tensor(bad))
    with pytest.raises(ValueError) as ours:
        d = getattr(D, name)(**ours_kw, validate_args=True)
        d.log_prob(mt.tensor(bad))
    assert str(ours.value) == str(theirs.value).replace("torch.", "minitorch.")


@pytest.mark.parametrize("name", NAMES)
def test_each_invalid_parameter_is_refused_as_torch(name):
    """Each constrained parameter given one invalid entry: the same error as torch's."""
    for k in CASES[name]:
        constraint = getattr(TD, name).arg_constraints.get(k, TD.constraints.real)
        if constraint is TD.constraints.real:
            continue
        rng = np.random.default_rng(0)
        params = {kk: g(rng, (2, 3)) for kk, g in CASES[name].items()}
        params[k] = params[k].copy()
        params[k][1, 2] = 2.5 if (name, k) == ("Binomial", "total_count") else -1.5
        ours_kw = {kk: mt.tensor(v.tolist(), dtype=mt.float64) for kk, v in params.items()}
        theirs_kw = {kk: torch.tensor(v, dtype=torch.float64) for kk, v in params.items()}
        with pytest.raises(ValueError) as theirs:
            getattr(TD, name)(**theirs_kw, validate_args=True)
        with pytest.raises(ValueError) as ours:
            getattr(D, name)(**ours_kw, validate_args=True)
        assert str(ours.value) == str(theirs.value).replace("torch.", "minitorch."), k


@pytest.mark.parametrize("name", NAMES)
def test_value_outside_support_is_refused_as_torch(name):
    ours, theirs, _ = build(name)
    v = values(build(name)[1], 1).clone()  # a separate sampler: sampling may cache logits
    v[0, 1, 2] = math.nan if theirs.support is TD.constraints.real else -10.0
    ours._validate_args = theirs._validate_args = True
    with pytest.raises(ValueError) as theirs_v:
        theirs.log_prob(v)
    with pytest.raises(ValueError) as ours_v:
        ours.log_prob(mt_of(v))
    assert str(ours_v.value) == str(theirs_v.value).replace("torch.", "minitorch.")


def test_samplers_on_degenerate_parameters_never_hang():
    from minitorch.distributions._discrete_sampler import binomial, poisson
    out = poisson(mt.tensor([0.0, math.inf, 1e12]))
    assert out.tolist()[:2] == [0.0, math.inf] and abs(out.tolist()[2] - 1e12) < 1e7
    with pytest.raises(RuntimeError, match="invalid Poisson rate"):
        poisson(mt.tensor([1.0, math.nan]))
    with pytest.raises(RuntimeError, match="invalid Poisson rate"):
        D.Poisson(mt.tensor([-1.0]), validate_args=False).sample()
    n = mt.tensor([math.nan, 5.0, math.inf, 5.0, -2.0, 1e9, 5.0, 0.0, 7.0])
    p = mt.tensor([0.5, math.nan, 0.5, 1.5, 0.5, 0.5, 0.0, 0.3, 1.0])
    out = binomial(n, p).tolist()
    assert all(math.isnan(v) for v in out[:5])
    assert abs(out[5] - 5e8) < 5e5 and out[6:] == [0.0, 0.0, 7.0]


def test_rejection_samplers_on_degenerate_parameters_never_hang():
    from minitorch.distributions._gamma_sampler import standard_gamma
    tiny = 1.1754943508222875e-38
    out = standard_gamma(mt.tensor([math.nan, math.inf, 0.0, -1.0, 2.0])).tolist()
    assert out[:4] == [tiny, math.inf, tiny, tiny] and out[4] > 0  # torch's _standard_gamma
    d = D.VonMises(mt.tensor([0.0, 1.0, 1.0]), mt.tensor([0.0, math.inf, math.nan]),
                   validate_args=False)
    s = d.sample((500,))
    assert bool(((s[:, 0] >= -math.pi) & (s[:, 0] < math.pi)).all())
    assert float(s[:, 0].std()) > 1.5  # uniform on the circle: std pi / sqrt(3)
    assert bool((s[:, 1] == 1.0).all()) and bool(s[:, 2].isnan().all())


@pytest.mark.parametrize("name", ["RelaxedBernoulli", "RelaxedOneHotCategorical"])
def test_relaxed_wrappers_expand_subclass_and_base_validation_as_torch(name):
    """The two relaxed wrappers: expand keeps the subclass; a subclass with its
    own __init__ must define expand; validate_args=False reaches the base of
    the categorical only (torch's RelaxedBernoulli builds its base without
    it), which shows in log_prob outside the support."""
    probs = [0.2, 0.3, 0.5]
    results = []
    for lib in (mt, torch):
        cls = getattr(lib.distributions, name)
        plain = type("Plain", (cls,), {})
        custom = type("Custom", (cls,), {"__init__": lambda self, t, p: cls.__init__(self, t, p)})
        d = plain(lib.tensor(0.5), lib.tensor(probs))
        e = d.expand((4,) + tuple(d.batch_shape))
        with pytest.raises(NotImplementedError) as err:
            custom(lib.tensor(0.5), lib.tensor(probs)).expand((2, 3))
        outside = lib.tensor([1.5, 0.5, 0.5] if name == "RelaxedBernoulli" else [1.5, -0.5, 0.0])
        try:
            loose = cls(lib.tensor(0.5), lib.tensor(probs), validate_args=False).log_prob(outside)
            refused = np.nan_to_num(np.asarray(loose.tolist()), nan=-123.0).round(4).tolist()
        except ValueError as exc:
            refused = type(exc).__name__
        results.append((type(e).__name__, tuple(e.batch_shape), float(e.temperature),
                        e.probs.tolist(), str(err.value), refused))
    assert results[0] == results[1]
