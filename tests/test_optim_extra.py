"""The optimizers added for issue #17 (NAdam, RAdam, Adamax, Rprop, ASGD,
LBFGS, SparseAdam) against torch's: the same small model on the same data,
K steps in both libraries, parameters and state compared."""
import numpy as np
import pytest

import minitorch as mt
from minitorch import optim

torch = pytest.importorskip("torch")

TOL = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-10, atol=1e-12)}


def models(dtype):
    """A two-layer net in both libraries, with the same weights, and data."""
    rng = np.random.default_rng(0)
    tdt, mdt = getattr(torch, dtype), getattr(mt, dtype)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1))
    mm = mt.nn.Sequential(mt.nn.Linear(4, 3), mt.nn.Tanh(), mt.nn.Linear(3, 1))
    tm.to(tdt)
    mm.to(mdt)
    with torch.no_grad(), mt.no_grad():
        for tp, mp in zip(tm.parameters(), mm.parameters()):
            value = rng.standard_normal(tuple(tp.shape)).astype(dtype)
            tp.copy_(torch.tensor(value))
            mp.copy_(mt.tensor(value))
    x = rng.standard_normal((8, 4)).astype(dtype)
    y = rng.standard_normal((8, 1)).astype(dtype)
    return (tm, torch.tensor(x), torch.tensor(y)), (mm, mt.tensor(x), mt.tensor(y))


def closure_for(lib, opt, model, x, y):
    def closure():
        opt.zero_grad()
        loss = lib.nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss
    return closure


def assert_params_close(tm, mm, tol):
    for tp, mp in zip(tm.parameters(), mm.parameters()):
        np.testing.assert_allclose(mp.detach().numpy(), tp.detach().numpy(), **tol)


def run_both(name, kw, dtype="float32", steps=12, tol=None):
    (tm, tx, ty), (mm, mx, my) = models(dtype)
    topt = getattr(torch.optim, name)(tm.parameters(), **kw)
    mopt = getattr(optim, name)(mm.parameters(), **kw)
    tclosure = closure_for(torch, topt, tm, tx, ty)
    mclosure = closure_for(mt, mopt, mm, mx, my)
    tol = tol or TOL[dtype]
    for _ in range(steps):
        tloss = topt.step(tclosure)
        mloss = mopt.step(mclosure)
        np.testing.assert_allclose(float(mloss), float(tloss), **tol)
        assert_params_close(tm, mm, tol)
    return topt, mopt


def assert_state_dicts_match(topt, mopt, dtype):
    tsd, msd = topt.state_dict(), mopt.state_dict()
    assert [sorted(g) for g in tsd["param_groups"]] == [sorted(g) for g in msd["param_groups"]]
    for tg, mg in zip(tsd["param_groups"], msd["param_groups"]):
        assert {k: v for k, v in tg.items()} == {k: v for k, v in mg.items()}
    assert sorted(tsd["state"]) == sorted(msd["state"])
    for key, tstate in tsd["state"].items():
        mstate = msd["state"][key]
        assert sorted(tstate) == sorted(mstate)
        for k, tv in tstate.items():
            mv = mstate[k]
            if isinstance(tv, torch.Tensor):
                assert mv.shape == tuple(tv.shape) and str(mv.dtype) == str(tv.dtype).replace(
                    "torch", "minitorch")
                np.testing.assert_allclose(mv.numpy(), tv.numpy(), **TOL[dtype])
            else:
                assert mv == tv


CASES = [
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.01, betas=(0.5, 0.7), weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.2, decoupled_weight_decay=True, maximize=True)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, betas=(0.7, 0.9), weight_decay=0.1, eps=1e-3, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, lambd=1e-2, alpha=0.5, t0=4, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, t0=0, maximize=True)),
    ("NAdam", dict(foreach=False)),
    ("RAdam", dict(foreach=None)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_optimizer_matches_torch(name, kw, dtype):
    topt, mopt = run_both(name, kw, dtype)
    assert_state_dicts_match(topt, mopt, dtype)
    assert repr(mopt).replace("minitorch", "torch") == repr(topt)


@pytest.mark.parametrize("name,kw", CASES[:13:2])
def test_state_dict_round_trip_continues_like_torch(name, kw):
    (tm, tx, ty), (mm, mx, my) = models("float64")
    topt = getattr(torch.optim, name)(tm.parameters(), **kw)
    mopt = getattr(optim, name)(mm.parameters(), **kw)
    for _ in range(3):
        topt.step(closure_for(torch, topt, tm, tx, ty))
        mopt.step(closure_for(mt, mopt, mm, mx, my))
    # Loading casts floating state to the parameters' dtype on both sides.
    topt2 = getattr(torch.optim, name)(tm.parameters(), **kw)
    topt2.load_state_dict(topt.state_dict())
    mopt2 = getattr(optim, name)(mm.parameters(), **kw)
    mopt2.load_state_dict(mopt.state_dict())
    for _ in range(3):
        topt2.step(closure_for(torch, topt2, tm, tx, ty))
        mopt2.step(closure_for(mt, mopt2, mm, mx, my))
    assert_params_close(tm, mm, TOL["float64"])


LBFGS_CASES = [
    dict(),
    dict(line_search_fn="strong_wolfe"),
    dict(lr=0.5, max_iter=5, history_size=3),
    dict(lr=0.8, max_iter=4, history_size=2, line_search_fn="strong_wolfe"),
    dict(max_iter=30, max_eval=12, line_search_fn="strong_wolfe", tolerance_grad=1e-5),
]


@pytest.mark.parametrize("kw", LBFGS_CASES)
def test_lbfgs_matches_torch_exactly_on_a_smooth_function(kw):
    """On a closure whose value and gradient both libraries compute to the
    last bit, every iterate matches."""
    results = []
    for lib in (torch, mt):
        x = lib.nn.Parameter(lib.tensor([1.0, 2.0, -1.5], dtype=lib.float64))
        opt = lib.optim.LBFGS([x], **kw)

        def closure():
            opt.zero_grad()
            loss = ((x - 3) ** 2).sum() + (x ** 4).sum() * 0.1 + (x[0] * x[1]).sin()
            loss.backward()
            return loss
        losses = [float(opt.step(closure)) for _ in range(3)]
        state = opt.state[x]
        results.append((losses, x.detach().numpy(), state["func_evals"], state["n_iter"],
                        sorted(state), type(state["t"])))
    (tl, tx, tf, tn, tk, tt), (ml, mx, mf, mn, mk, mt_) = results
    np.testing.assert_allclose(ml, tl, rtol=1e-13)
    np.testing.assert_allclose(mx, tx, rtol=1e-13)
    assert (mf, mn, mk) == (tf, tn, tk)
    assert (mt_ is mt.Tensor) == (tt is torch.Tensor)


@pytest.mark.parametrize("kw", LBFGS_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lbfgs_trains_the_model_like_torch(kw, dtype):
    """On the model, the losses' last-bit differences (reduction order) grow
    over L-BFGS's iterations, so the comparison is looser than for one-step
    optimizers: in float32 a line search can already pick a slightly
    different step within one call (20 iterations), hence 1e-2 there."""
    tol = dict(rtol=1e-2, atol=1e-4) if dtype == "float32" else dict(rtol=1e-6, atol=1e-9)
    topt, mopt = run_both("LBFGS", kw, dtype, steps=1 if dtype == "float32" else 4, tol=tol)
    tstate, mstate = topt.state_dict()["state"][0], mopt.state_dict()["state"][0]
    assert sorted(tstate) == sorted(mstate)
    if dtype == "float64":
        assert tstate["func_evals"] == mstate["func_evals"]
        assert tstate["n_iter"] == mstate["n_iter"]
        assert len(tstate["old_dirs"]) == len(mstate["old_dirs"])


def test_lbfgs_stops_at_optimum_and_returns_first_loss():
    x = mt.nn.Parameter(mt.zeros(3))
    opt = optim.LBFGS([x])
    calls = []

    def closure():
        opt.zero_grad()
        loss = (x * x).sum()
        loss.backward()
        calls.append(1)
        return loss

    assert float(opt.step(closure)) == 0.0 and len(calls) == 1
    assert opt.state[x]["func_evals"] == 1 and opt.state[x]["n_iter"] == 0


def errors_match(make):
    """make(lib) raises the same error type and message in both libraries."""
    with pytest.raises(Exception) as te:
        make(torch)
    with pytest.raises(type(te.value)) as me:
        make(mt)
    assert str(me.value) == str(te.value)


def _p(lib):
    return [lib.nn.Parameter(lib.ones(2))]


@pytest.mark.parametrize("make", [
    lambda lib: lib.optim.NAdam(_p(lib), lr=-1),
    lambda lib: lib.optim.NAdam(_p(lib), eps=-1),
    lambda lib: lib.optim.NAdam(_p(lib), betas=(1.0, 0.9)),
    lambda lib: lib.optim.NAdam(_p(lib), betas=(0.9, -0.1)),
    lambda lib: lib.optim.NAdam(_p(lib), weight_decay=-1),
    lambda lib: lib.optim.NAdam(_p(lib), momentum_decay=-1),
    lambda lib: lib.optim.RAdam(_p(lib), betas=(0.9, 1.0)),
    lambda lib: lib.optim.RAdam(_p(lib), weight_decay=-0.5),
    lambda lib: lib.optim.Adamax(_p(lib), lr=-0.1),
    lambda lib: lib.optim.Adamax(_p(lib), eps=-0.1),
    lambda lib: lib.optim.Rprop(_p(lib), etas=(1.5, 2.0)),
    lambda lib: lib.optim.Rprop(_p(lib), etas=(0.5, 0.9)),
    lambda lib: lib.optim.Rprop(_p(lib), lr=-1),
    lambda lib: lib.optim.ASGD(_p(lib), lr=-1),
    lambda lib: lib.optim.ASGD(_p(lib), weight_decay=-1),
    lambda lib: lib.optim.LBFGS(_p(lib), lr=-1),
    lambda lib: lib.optim.LBFGS([{"params": _p(lib)}, {"params": _p(lib)}]),
    lambda lib: lib.optim.SparseAdam(_p(lib), lr=0),
    lambda lib: lib.optim.SparseAdam(_p(lib), eps=0),
    lambda lib: lib.optim.SparseAdam(_p(lib), betas=(0.9, 1.5)),
])
def test_constructor_errors_match_torch(make):
    errors_match(make)


def test_sparse_adam_rejects_dense_gradients():
    def step(lib):
        params = _p(lib)
        opt = lib.optim.SparseAdam(params)
        params[0].sum().backward()
        opt.step()
    errors_match(step)
    # No gradient: nothing to do, as in torch.
    opt = optim.SparseAdam(_p(mt))
    assert opt.step() is None
    assert sorted(opt.defaults) == sorted(torch.optim.SparseAdam(_p(torch)).defaults)


def test_lbfgs_rejects_unknown_line_search():
    def step(lib):
        params = _p(lib)
        opt = lib.optim.LBFGS(params, line_search_fn="armijo")

        def closure():
            opt.zero_grad()
            loss = (params[0] ** 2).sum()
            loss.backward()
            return loss
        opt.step(closure)
    errors_match(step)


@pytest.mark.parametrize("name", ["NAdam", "RAdam", "Adamax", "Rprop", "ASGD"])
def test_flags_that_need_devices_are_refused(name):
    with pytest.raises(RuntimeError, match="capturable=True is not supported"):
        getattr(optim, name)(_p(mt), capturable=True)


@pytest.mark.parametrize("name", ["NAdam", "RAdam", "Adamax", "Rprop", "ASGD"])
def test_non_contiguous_parameters_and_nan_gradients(name):
    """Transposed parameters go through the working-copy path; NaN gradients
    propagate as in torch."""
    rng = np.random.default_rng(1)
    value = rng.standard_normal((3, 4)).astype(np.float32)
    tp = torch.nn.Parameter(torch.tensor(value))
    mp = mt.nn.Parameter(mt.tensor(value.T.copy()).t())
    topt = getattr(torch.optim, name)([tp], lr=0.01)
    mopt = getattr(optim, name)([mp], lr=0.01)
    for i in range(4):
        g = rng.standard_normal((3, 4)).astype(np.float32)
        if i == 2:
            g[0, 0] = np.nan
        tp.grad = torch.tensor(g)
        mp.grad = mt.tensor(g)
        topt.step()
        mopt.step()
        np.testing.assert_allclose(mp.detach().numpy(), tp.detach().numpy(), rtol=1e-5,
                                   atol=1e-6, equal_nan=True)
