"""Adadelta, Adafactor and Muon against torch: parameters and state after
several steps over shapes, dtypes and configurations, their state_dict
round trip, and their argument checks (type and message)."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

CONFIGS = [
    ("Adadelta", {}, [(3, 2), (4,)]),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "eps": 1e-3, "weight_decay": 0.1}, [(3, 2), (4,)]),
    ("Adadelta", {"maximize": True, "lr": ("tensor", 0.8)}, [(2, 2, 2), ()]),
    ("Adafactor", {}, [(3, 2), (4,)]),
    ("Adafactor", {"lr": 0.1, "beta2_decay": -0.5, "d": 1.5, "weight_decay": 0.1},
     [(3, 4), (5,), (2, 3, 4)]),
    ("Adafactor", {"eps": (1e-4, 1e-2), "maximize": True}, [(4, 3), (2,)]),
    ("Adafactor", {"lr": ("tensor", 0.05)}, [(2, 5), (3, 1, 2)]),
    ("Muon", {}, [(3, 2), (2, 5)]),
    ("Muon", {"lr": 0.02, "momentum": 0.9, "nesterov": False, "weight_decay": 0.0},
     [(4, 4), (6, 2)]),
    ("Muon", {"adjust_lr_fn": "match_rms_adamw", "ns_steps": 3}, [(3, 5), (5, 3)]),
    ("Muon", {"adjust_lr_fn": "original", "ns_coefficients": (2.0, -1.5, 0.5),
              "eps": 1e-5}, [(2, 3)]),
]


def _kwargs(lib, kwargs):
    return {k: lib.tensor(v[1]) if isinstance(v, tuple) and v[0] == "tensor" else v
            for k, v in kwargs.items()}


def _steps(lib, name, kwargs, xs, gs, dtype):
    params = [lib.tensor(x, dtype=dtype, requires_grad=True) for x in xs]
    opt = getattr(lib.optim, name)(params, **_kwargs(lib, kwargs))
    for grads in gs:
        for p, g in zip(params, grads):
            p.grad = lib.tensor(g, dtype=dtype)
        opt.step()
    return [p.detach().numpy() for p in params], opt


def _state_arrays(opt):
    return [{k: np.asarray(v.detach().float().numpy() if hasattr(v, "detach") else v)
             for k, v in s.items()} for s in opt.state_dict()["state"].values()]


@pytest.mark.parametrize("name,kwargs,shapes", CONFIGS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CONFIGS)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_steps_match_torch(name, kwargs, shapes, dtype):
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal(s) for s in shapes]
    gs = [[rng.standard_normal(s) for s in shapes] for _ in range(6)]
    got, m_opt = _steps(mt, name, kwargs, xs, gs, getattr(mt, dtype))
    want, t_opt = _steps(torch, name, kwargs, xs, gs, getattr(torch, dtype))
    tol = 1e-5 if dtype == "float32" else 1e-10
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    ms, ts = _state_arrays(m_opt), _state_arrays(t_opt)
    assert [sorted(s) for s in ms] == [sorted(s) for s in ts]
    for a, b in zip(ms, ts):
        for k in a:
            np.testing.assert_allclose(a[k], b[k], rtol=1e-4, atol=1e-6, err_msg=k)


@pytest.mark.parametrize("name,kwargs,shapes", CONFIGS[::3],
                         ids=[c[0] for c in CONFIGS[::3]])
def test_state_dict_round_trip(name, kwargs, shapes):
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal(s) for s in shapes]
    gs = [[rng.standard_normal(s) for s in shapes] for _ in range(4)]
    ref, _ = _steps(mt, name, kwargs, xs, gs, mt.float64)
    params = [mt.tensor(x, requires_grad=True) for x in xs]
    opt = getattr(mt.optim, name)(params, **_kwargs(mt, kwargs))
    for k, grads in enumerate(gs):
        if k == 2:  # continue in a fresh optimizer from the saved state
            saved = opt.state_dict()
            opt = getattr(mt.optim, name)(params, **_kwargs(mt, kwargs))
            opt.load_state_dict(saved)
        for p, g in zip(params, grads):
            p.grad = mt.tensor(g)
        opt.step()
    for p, r in zip(params, ref):
        np.testing.assert_array_equal(p.detach().numpy(), r)


ERRORS = [
    ("Adadelta", {"rho": 1.1}), ("Adadelta", {"rho": -0.1}), ("Adadelta", {"lr": -1.0}),
    ("Adadelta", {"eps": -1.0}), ("Adadelta", {"weight_decay": -1.0}),
    ("Adadelta", {"lr": [0.1, 0.2]}),
    ("Adafactor", {"lr": -1.0}), ("Adafactor", {"beta2_decay": 0.8}),
    ("Adafactor", {"eps": (-1e-30, 1e-3)}), ("Adafactor", {"eps": (None, -1.0)}),
    ("Adafactor", {"d": 0.5}), ("Adafactor", {"weight_decay": -0.1}),
    ("Adafactor", {"lr": [0.1, 0.2]}),
    ("Muon", {"lr": -1.0}), ("Muon", {"momentum": -0.5}), ("Muon", {"weight_decay": -1.0}),
    ("Muon", {"adjust_lr_fn": "arbitrary"}), ("Muon", {"lr": [0.1, 0.2]}),
]


@pytest.mark.parametrize("name,kwargs", ERRORS, ids=[f"{n}{k}" for n, k in ERRORS])
def test_argument_checks(name, kwargs):
    def make(lib):
        kw = {k: lib.tensor(v) if isinstance(v, list) else v for k, v in kwargs.items()}
        return getattr(lib.optim, name)([lib.zeros(2, 2, requires_grad=True)], **kw)
    with pytest.raises(Exception) as want:
        make(torch)
    with pytest.raises(want.type) as got:
        make(mt)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("shape", [(3,), (2, 2, 2), ()])
def test_muon_refuses_other_than_2d(shape):
    with pytest.raises(ValueError) as want:
        torch.optim.Muon([torch.zeros(shape, requires_grad=True)])
    with pytest.raises(ValueError) as got:
        mt.optim.Muon([mt.zeros(shape, requires_grad=True)])
    assert str(got.value).replace("minitorch", "torch") == str(want.value)


def test_muon_orthogonalizes():
    # one step from zero momentum without nesterov: the update's singular
    # values sit near one, whatever the gradient's scale
    p = mt.zeros(4, 6, requires_grad=True)
    opt = mt.optim.Muon([p], lr=1.0, momentum=0.0, nesterov=False, weight_decay=0.0)
    p.grad = mt.tensor(np.random.default_rng(2).standard_normal((4, 6)) * 100,
                       dtype=mt.float32)
    opt.step()
    s = np.linalg.svd(p.detach().numpy(), compute_uv=False)
    assert np.all((s > 0.5) & (s < 1.5))
