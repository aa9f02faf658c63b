"""minitorch.optim: the fused C steps against torch's optimizers on the same
numbers, the Optimizer bookkeeping, and the learning-rate schedules."""
import math
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch import optim

torch = pytest.importorskip("torch")

DTYPES = [(mt.float32, torch.float32, np.float32, 2e-6), (mt.float64, torch.float64, np.float64, 1e-13)]


def param_with_grad(data):
    """A minitorch Parameter whose .grad is set by hand (no autograd here)."""
    p = mt.nn.Parameter(mt.tensor(data))
    p.grad = None
    return p


def run_both(make_torch, make_mt, shapes, np_dtype, layout="contiguous", steps=4, seed=0):
    """Runs the same optimizer for a few steps in torch and in minitorch on the
    same values and gradients; returns the final parameters of both."""
    rng = np.random.default_rng(seed)
    inits = [rng.standard_normal(s).astype(np_dtype) for s in shapes]
    tp = [torch.nn.Parameter(torch.tensor(x)) for x in inits]
    if layout == "transposed":
        mp = [mt.nn.Parameter(mt.tensor(x.T.copy()).t()) for x in inits]
    else:
        mp = [mt.nn.Parameter(mt.tensor(x)) for x in inits]
    topt, mopt = make_torch(tp), make_mt(mp)
    for _ in range(steps):
        grads = [rng.standard_normal(s).astype(np_dtype) for s in shapes]
        for t, m, g in zip(tp, mp, grads):
            t.grad = torch.tensor(g)
            m.grad = mt.tensor(g)
        topt.step()
        mopt.step()
    return [t.detach().numpy() for t in tp], [m.detach().numpy() for m in mp], topt, mopt


CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1, maximize=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.02, betas=(0.3, 0.5), weight_decay=0.5, amsgrad=True)),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.01, alpha=0.3, weight_decay=0.1, momentum=0.9)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, maximize=True)),
    ("RMSprop", dict(lr=0.01, centered=True, alpha=0.7)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1, weight_decay=0.2, initial_accumulator_value=0.5)),
    ("Adagrad", dict(lr=0.1, eps=1e-3, maximize=True)),
]


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
@pytest.mark.parametrize("dt", DTYPES, ids=["float32", "float64"])
def test_matches_torch(name, kw, dt):
    _, _, np_dtype, tol = dt
    shapes = [(3, 4), (5,), (), (0, 2)]
    tout, mout, topt, mopt = run_both(lambda p: getattr(torch.optim, name)(p, **kw),
                                      lambda p: getattr(optim, name)(p, **kw), shapes, np_dtype)
    for t, m in zip(tout, mout):
        assert m.dtype == np_dtype
        np.testing.assert_allclose(m, t, rtol=tol, atol=tol)
    # Same state structure and values as torch's.
    tsd, msd = topt.state_dict(), mopt.state_dict()
    assert tsd["param_groups"] == msd["param_groups"]
    assert tsd["state"].keys() == msd["state"].keys()
    for k in tsd["state"]:
        assert tsd["state"][k].keys() == msd["state"][k].keys()
        for key, tv in tsd["state"][k].items():
            np.testing.assert_allclose(msd["state"][k][key].numpy(), tv.numpy(), rtol=tol,
                                       atol=tol)
            assert str(msd["state"][k][key].dtype).split(".")[1] == str(tv.dtype).split(".")[1]


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)),
                                     ("Adam", dict(lr=0.01, amsgrad=True)),
                                     ("RMSprop", dict(centered=True, momentum=0.3)),
                                     ("Adagrad", dict(lr=0.1))])
def test_non_contiguous_params_match_torch(name, kw):
    tout, mout, _, _ = run_both(lambda p: getattr(torch.optim, name)(p, **kw),
                                lambda p: getattr(optim, name)(p, **kw), [(3, 5), (4, 2)],
                                np.float32, layout="transposed")
    for t, m in zip(tout, mout):
        np.testing.assert_allclose(m, t, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("mdt,tdt", [(mt.float16, torch.float16), (mt.bfloat16, torch.bfloat16)])
def test_reduced_precision_params_go_through_float32(mdt, tdt):
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    g = np.linspace(0.5, -0.3, 12, dtype=np.float32).reshape(3, 4)
    tp = torch.nn.Parameter(torch.tensor(x, dtype=tdt))
    mp = mt.nn.Parameter(mt.tensor(x, dtype=mdt))
    topt, mopt = torch.optim.SGD([tp], lr=0.1), optim.SGD([mp], lr=0.1)
    tp.grad, mp.grad = torch.tensor(g, dtype=tdt), mt.tensor(g, dtype=mdt)
    topt.step()
    mopt.step()
    assert mp.dtype == mdt
    np.testing.assert_allclose(mp.detach().float().numpy(), tp.detach().float().numpy(), rtol=1e-2,
                               atol=1e-2)


def test_fused_adam_kernel_directly_against_torch_math():
    rng = np.random.default_rng(1)
    p, g, m, v = (rng.standard_normal(1000).astype(np.float64) for _ in range(4))
    v = np.abs(v)
    vmax = v + 0.1
    mp, mm, mv, mvmax = (mt.tensor(a) for a in (p, m, v, vmax))
    mt._fused_adam_step(mp, mt.tensor(g), mm, mv, mvmax, 0.01, 0.9, 0.999, 1e-8, 0.1, 3,
                        True, False, True)
    # AdamW with amsgrad, step 3, written out with torch ops.
    tp, tm, tv, tvmax, tg = (torch.tensor(a) for a in (p, m, v, vmax, g))
    tp.mul_(1 - 0.01 * 0.1)
    tm.lerp_(tg, 1 - 0.9)
    tv.mul_(0.999).addcmul_(tg, tg, value=1 - 0.999)
    torch.maximum(tvmax, tv, out=tvmax)
    denom = (tvmax.sqrt() / math.sqrt(1 - 0.999 ** 3)).add_(1e-8)
    tp.addcdiv_(tm, denom, value=-0.01 / (1 - 0.9 ** 3))
    for ours, ref in [(mp, tp), (mm, tm), (mv, tv), (mvmax, tvmax)]:
        np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-14, atol=1e-15)


def test_fused_step_is_in_place_and_bumps_version():
    p = mt.ones(4)
    base = p._version
    buf = mt.zeros(4)
    mt._fused_sgd_step(p, mt.ones(4), buf, 0.5, 0.9, 0.0, 0.0, False, False, True)
    assert p.tolist() == [0.5] * 4 and buf.tolist() == [1.0] * 4
    assert p._version > base


def test_fused_step_errors():
    p = mt.ones(3)
    with pytest.raises(RuntimeError, match="grad to have the shape of param"):
        mt._fused_sgd_step(p, mt.ones(4), None, 0.1, 0.0, 0.0, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="expected grad to have dtype Float, but got Double"):
        mt._fused_sgd_step(p, mt.ones(3, dtype=mt.float64), None, 0.1, 0.0, 0.0, 0.0, False,
                           False, False)
    with pytest.raises(RuntimeError, match="floating-point param"):
        mt._fused_sgd_step(mt.ones(3, dtype=mt.int64), mt.ones(3, dtype=mt.int64), None, 0.1,
                           0.0, 0.0, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="momentum_buffer is required"):
        mt._fused_sgd_step(p, mt.ones(3), None, 0.1, 0.9, 0.0, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="max_exp_avg_sq is required"):
        mt._fused_adam_step(p, mt.ones(3), mt.zeros(3), mt.zeros(3), None, 0.1, 0.9, 0.99,
                            1e-8, 0.0, 1, True, False, False)
    with pytest.raises(RuntimeError, match="more than one element"):
        mt._fused_sgd_step(mt.ones(1).expand(3), mt.ones(3), None, 0.1, 0.0, 0.0, 0.0, False,
                           False, False)
    with pytest.raises(TypeError):
        mt._fused_adam_step(p, "x", mt.zeros(3), mt.zeros(3), None, 0.1, 0.9, 0.99, 1e-8,
                            0.0, 1, False, False, False)
    assert p.tolist() == [1.0, 1.0, 1.0]


# ---------------------------------------------------------------- bookkeeping

def test_param_groups_defaults_and_repr():
    a, b = param_with_grad([1.0, 2.0]), param_with_grad([3.0])
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[1]["lr"] == 0.5
    assert opt.param_groups[1]["params"] == [b]
    assert opt.param_groups[0]["momentum"] == 0.9
    tp = [torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(1))]
    topt = torch.optim.SGD([{"params": [tp[0]]}, {"params": tp[1], "lr": 0.5}], lr=0.1,
                           momentum=0.9)
    assert repr(opt) == repr(topt)
    assert opt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]


def test_add_param_group_errors_match_torch():
    a, b = param_with_grad([1.0]), param_with_grad([2.0])
    opt = optim.Adam([a])
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a, b]})
    with pytest.raises(TypeError, match="optimizer parameters need to be organized in ordered"):
        opt.add_param_group({"params": {b}})
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the "
                                        "params is builtins.int|int"):
        opt.add_param_group({"params": [3]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([b])
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts, but got "
                                        "minitorch.Tensor"):
        optim.SGD(mt.ones(2), lr=0.1)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.Adam([b], lr=-1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        optim.Adam([b], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero"):
        optim.SGD([b], lr=0.1, nesterov=True)
    opt.add_param_group({"params": [b], "lr": 0.3})
    assert opt.param_groups[1]["betas"] == (0.9, 0.999) and opt.param_groups[1]["lr"] == 0.3


def test_named_params():
    a, b = param_with_grad([1.0]), param_with_grad([2.0])
    opt = optim.SGD([("a", a), ("b", b)], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["a", "b"]
    assert opt.param_groups[0]["params"] == [a, b]
    with pytest.raises(ValueError, match="cannot add param group without names"):
        opt.add_param_group({"params": [param_with_grad([0.0])]})


def test_zero_grad_and_missing_grads_skip_the_step():
    a, b = param_with_grad([1.0, 2.0]), param_with_grad([3.0])
    opt = optim.Adam([a, b], lr=0.1)
    a.grad = mt.ones(2)
    opt.step()
    assert b.tolist() == [3.0] and b not in opt.state
    assert a.tolist() != [1.0, 2.0] and float(opt.state[a]["step"]) == 1.0
    opt.zero_grad(set_to_none=False)
    assert a.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert a.grad is None


def test_step_closure_returns_loss():
    a = param_with_grad([1.0])
    opt = optim.SGD([a], lr=0.5)

    def closure():
        a.grad = mt.tensor([2.0])
        return 7.0

    assert opt.step(closure) == 7.0
    assert a.tolist() == [0.0]


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)),
                                     ("Adam", dict(lr=0.1, amsgrad=True)),
                                     ("RMSprop", dict(momentum=0.5, centered=True)),
                                     ("Adagrad", dict(lr=0.1))])
def test_state_dict_round_trip_resumes_identically(name, kw):
    def make():
        return [param_with_grad([1.0, -2.0, 3.0]), param_with_grad([[0.5]])]

    def grads(i):
        return [mt.tensor([0.1 * i, -0.2, 0.3]), mt.tensor([[0.7 - i]])]

    ps = make()
    opt = getattr(optim, name)(ps, **kw)
    for i in range(2):
        for p, g in zip(ps, grads(i)):
            p.grad = g
        opt.step()
    sd = opt.state_dict()
    assert all(isinstance(k, int) for k in sd["state"])
    assert sd["param_groups"][0]["params"] == [0, 1]

    qs = [param_with_grad(p.tolist()) for p in ps]
    opt2 = getattr(optim, name)(qs, **kw)
    opt2.load_state_dict(sd)
    assert opt2.state[qs[0]].keys() == opt.state[ps[0]].keys()
    for i in range(2, 4):
        for p, q, g in zip(ps, qs, grads(i)):
            p.grad, q.grad = g, g.clone()
        opt.step()
        opt2.step()
    for p, q in zip(ps, qs):
        assert p.tolist() == q.tolist()
    # The loaded state is a copy, not an alias of the saved one.
    key = next(k for k in opt2.state[qs[0]] if k != "step")
    assert opt2.state[qs[0]][key] is not sd["state"][0][key]


def test_load_state_dict_errors():
    a = param_with_grad([1.0])
    opt = optim.SGD([a], lr=0.1)
    sd = opt.state_dict()
    opt2 = optim.SGD([a, param_with_grad([1.0])], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt2.load_state_dict(sd)
    sd["param_groups"].append(dict(sd["param_groups"][0]))
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict(sd)


def test_unsupported_flags():
    with pytest.raises(RuntimeError, match="capturable=True"):
        optim.Adam([param_with_grad([1.0])], capturable=True)


# ---------------------------------------------------------------- schedulers

SCHEDULERS = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 8], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=5, eta_min=0.001)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=12)),
    ("OneCycleLR", dict(max_lr=[1.0, 0.5], total_steps=12, anneal_strategy="linear",
                        three_phase=True)),
]


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
@pytest.mark.parametrize("name,kw", SCHEDULERS, ids=[n + str(i) for i, (n, _) in enumerate(SCHEDULERS)])
def test_schedulers_match_torch(name, kw, opt_name):
    def groups(P):
        return [{"params": [P([1.0])]}, {"params": [P([2.0])], "lr": 0.2}]

    topt = getattr(torch.optim, opt_name)(groups(lambda x: torch.nn.Parameter(torch.tensor(x))),
                                          lr=0.1, momentum=0.9) if opt_name == "SGD" else \
        torch.optim.Adam(groups(lambda x: torch.nn.Parameter(torch.tensor(x))), lr=0.1)
    mopt = optim.SGD(groups(param_with_grad), lr=0.1, momentum=0.9) if opt_name == "SGD" else \
        optim.Adam(groups(param_with_grad), lr=0.1)
    ts = getattr(torch.optim.lr_scheduler, name)(topt, **kw)
    ms = getattr(optim.lr_scheduler, name)(mopt, **kw)
    for _ in range(11):
        assert ms.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12, abs=1e-15)
        for tg, mg in zip(topt.param_groups, mopt.param_groups):
            assert mg.get("momentum") == pytest.approx(tg.get("momentum"))
            assert mg.get("betas") == pytest.approx(tg.get("betas"))
        topt.step()
        mopt.step()
        ts.step()
        ms.step()
    tsd, msd = ts.state_dict(), ms.state_dict()
    assert tsd.keys() == msd.keys()


def test_lambda_lr_and_state_dict():
    class Scale:
        def __init__(self):
            self.factor = 0.5

        def __call__(self, epoch):
            return self.factor ** epoch

    a = param_with_grad([1.0])
    opt = optim.SGD([a], lr=1.0)
    sched = optim.lr_scheduler.LambdaLR(opt, Scale())
    for _ in range(3):
        opt.step()
        sched.step()
    assert sched.get_last_lr() == [0.125]
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [{"factor": 0.5}] and sd["last_epoch"] == 3
    opt2 = optim.SGD([param_with_grad([1.0])], lr=1.0)
    sched2 = optim.lr_scheduler.LambdaLR(opt2, lambda e: 1.0)
    assert sched2.state_dict()["lr_lambdas"] == [None]
    sched3 = optim.lr_scheduler.LambdaLR(opt2, Scale())
    sched3.lr_lambdas[0].factor = 0.1
    sched3.load_state_dict(sd)
    assert sched3.lr_lambdas[0].factor == 0.5 and sched3.last_epoch == 3
    with pytest.raises(ValueError, match="Expected 1 lr_lambdas, but got 2"):
        optim.lr_scheduler.LambdaLR(opt2, [lambda e: 1, lambda e: 2])


def test_scheduler_warnings_and_errors():
    a = param_with_grad([1.0])
    opt = optim.SGD([a], lr=1.0)
    sched = optim.lr_scheduler.StepLR(opt, step_size=1)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    with pytest.raises(TypeError, match="int is not an Optimizer"):
        optim.lr_scheduler.StepLR(3, step_size=1)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified"):
        optim.lr_scheduler.ExponentialLR(optim.SGD([a], lr=1.0), gamma=0.5, last_epoch=3)
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0)
    one = optim.lr_scheduler.OneCycleLR(optim.SGD([a], lr=1.0, momentum=0.9), max_lr=1.0,
                                        total_steps=2)
    one.optimizer.step()
    one.step()
    one.step()
    with pytest.raises(ValueError, match="Tried to step 3 times"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            one.step()


# ---- with autograd ----------------------------------------------------------------------

def test_non_leaf_tensors_are_rejected_unless_they_retain_grad():
    x = mt.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(ValueError, match="^can't optimize a non-leaf Tensor$"):
        optim.SGD([y], lr=0.1)
    y.retain_grad()
    optim.SGD([y], lr=0.1)
    optim.SGD([mt.ones(2)], lr=0.1)  # a leaf that does not require grad is accepted


def test_step_runs_without_grad_and_closure_with_grad():
    w = mt.nn.Parameter(mt.tensor([1.0, -2.0]))
    seen = []

    def closure():
        seen.append(mt.is_grad_enabled())
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    for name, kw in [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", {}), ("AdamW", {}),
                     ("RMSprop", {}), ("Adagrad", {})]:
        opt = getattr(optim, name)([w], **kw)
        with mt.no_grad():
            loss = opt.step(closure)
        assert seen.pop() is True and loss.grad_fn is not None
        assert w.is_leaf and w.grad_fn is None and w.requires_grad


class _MLP:
    """The same small MLP in either library, weights given as NumPy arrays."""

    @staticmethod
    def make(n, weights):
        model = n.Sequential(n.Linear(4, 8), n.Tanh(), n.Linear(8, 8), n.ReLU(),
                             n.Linear(8, 3))
        model = model.double()
        lib = mt if n is mt.nn else torch
        model.load_state_dict({k: lib.tensor(v) for k, v in weights.items()})
        return model


@pytest.mark.parametrize("name, kw", [
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=1e-2)),
    ("AdamW", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
    ("Adagrad", dict(lr=0.05, lr_decay=1e-3)),
])
def test_training_loop_matches_torch(name, kw):
    rng = np.random.default_rng(1)
    weights = {k: v.detach().double().numpy() for k, v in
               torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(),
                                   torch.nn.Linear(8, 8), torch.nn.ReLU(),
                                   torch.nn.Linear(8, 3)).state_dict().items()}
    x = rng.standard_normal((16, 4))
    y = rng.integers(0, 3, 16)
    models = {}
    for lib, n in ((mt, mt.nn), (torch, torch.nn)):
        model = _MLP.make(n, weights)
        opt = getattr(lib.optim, name)(model.parameters(), **kw)
        loss_fn = n.CrossEntropyLoss()
        losses = []
        xb, yb = lib.tensor(x), lib.tensor(y)
        for _ in range(20):
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        models[lib] = (model, losses)
    (m_model, m_losses), (t_model, t_losses) = models[mt], models[torch]
    np.testing.assert_allclose(m_losses, t_losses, rtol=1e-5, atol=1e-5)
    assert t_losses[-1] < t_losses[0]
    t_params = dict(t_model.named_parameters())
    for pname, p in m_model.named_parameters():
        np.testing.assert_allclose(p.detach().numpy(), t_params[pname].detach().numpy(),
                                   rtol=1e-5, atol=1e-5, err_msg=pname)
