"""The lr schedules added for issue #17 against torch's: the same schedule on
both libraries, lr (and cycled momentum) compared at every step, plus
state_dict round trips and torch's errors."""
import math
import warnings

import pytest

import minitorch as mt
from minitorch import optim

torch = pytest.importorskip("torch")


def make_opts(kind="sgd", lrs=(0.1, 0.05)):
    """The same two-group optimizer in torch and minitorch."""
    def build(lib, params):
        groups = [{"params": [params[0]], "lr": lrs[0]}, {"params": [params[1]], "lr": lrs[1]}]
        if kind == "adam":
            return lib.optim.Adam(groups, lr=lrs[0])
        return lib.optim.SGD(groups, lr=lrs[0], momentum=0.9)
    tp = [torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(3))]
    mp = [mt.nn.Parameter(mt.ones(2)), mt.nn.Parameter(mt.ones(3))]
    return build(torch, tp), build(mt, mp)


def group_values(opt):
    """lr and momentum (or beta1) of every group."""
    out = []
    for g in opt.param_groups:
        out.append(g["lr"])
        out.append(g["betas"][0] if "betas" in g else g.get("momentum"))
    return out


def assert_close_lists(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if x is None or y is None:
            assert x is y
        else:
            assert x == pytest.approx(y, rel=1e-12, abs=1e-15)


def run_both(make, steps=25, kind="sgd", metrics=None):
    """Builds the scheduler with make(lib, opt) on both sides and compares
    the lrs after construction and after each step."""
    topt, mopt = make_opts(kind)
    ts, ms = make(torch, topt), make(mt, mopt)
    assert_close_lists(ts.get_last_lr(), ms.get_last_lr())
    assert_close_lists(group_values(topt), group_values(mopt))
    for i in range(steps):
        topt.step()
        mopt.step()
        if metrics is None:
            ts.step()
            ms.step()
        else:
            ts.step(metrics[i])
            ms.step(metrics[i])
        assert_close_lists(ts.get_last_lr(), ms.get_last_lr())
        assert_close_lists(group_values(topt), group_values(mopt))
        assert getattr(ts, "last_epoch", None) == getattr(ms, "last_epoch", None)
    return ts, ms, topt, mopt


def sched(name):
    return lambda lib, *a, **k: getattr(lib.optim.lr_scheduler, name)(*a, **k)


CASES = [
    ("MultiplicativeLR", lambda lib, o: sched("MultiplicativeLR")(lib, o, lambda e: 0.95)),
    ("MultiplicativeLR", lambda lib, o: sched("MultiplicativeLR")(
        lib, o, [lambda e: 0.9, lambda e: 1.0 - 0.01 * e])),
    ("ConstantLR", lambda lib, o: sched("ConstantLR")(lib, o)),
    ("ConstantLR", lambda lib, o: sched("ConstantLR")(lib, o, factor=0.5, total_iters=3)),
    ("LinearLR", lambda lib, o: sched("LinearLR")(lib, o)),
    ("LinearLR", lambda lib, o: sched("LinearLR")(lib, o, start_factor=1.0, end_factor=0.1,
                                                  total_iters=7)),
    ("PolynomialLR", lambda lib, o: sched("PolynomialLR")(lib, o)),
    ("PolynomialLR", lambda lib, o: sched("PolynomialLR")(lib, o, total_iters=10, power=2.0)),
    ("CyclicLR", lambda lib, o: sched("CyclicLR")(lib, o, 0.01, 0.1, step_size_up=4)),
    ("CyclicLR", lambda lib, o: sched("CyclicLR")(lib, o, [0.01, 0.02], [0.1, 0.3],
                                                  step_size_up=3, step_size_down=5,
                                                  mode="triangular2")),
    ("CyclicLR", lambda lib, o: sched("CyclicLR")(lib, o, 0.01, 0.1, step_size_up=3,
                                                  mode="exp_range", gamma=0.9,
                                                  base_momentum=0.7, max_momentum=0.95)),
    ("CyclicLR", lambda lib, o: sched("CyclicLR")(lib, o, 0.01, 0.1, step_size_up=2,
                                                  scale_fn=lambda x: 0.5 ** x,
                                                  scale_mode="iterations",
                                                  cycle_momentum=False)),
    ("CosineAnnealingWarmRestarts", lambda lib, o: sched("CosineAnnealingWarmRestarts")(
        lib, o, 5)),
    ("CosineAnnealingWarmRestarts", lambda lib, o: sched("CosineAnnealingWarmRestarts")(
        lib, o, T_0=3, T_mult=2, eta_min=0.001)),
    ("SequentialLR", lambda lib, o: sched("SequentialLR")(
        lib, o, [sched("LinearLR")(lib, o, start_factor=0.1, total_iters=4),
                 sched("CosineAnnealingLR")(lib, o, T_max=10)], milestones=[4])),
    ("SequentialLR", lambda lib, o: sched("SequentialLR")(
        lib, o, [sched("ConstantLR")(lib, o, factor=0.2, total_iters=3),
                 sched("ExponentialLR")(lib, o, gamma=0.9),
                 sched("StepLR")(lib, o, step_size=2)], milestones=[3, 8])),
    ("ChainedScheduler", lambda lib, o: sched("ChainedScheduler")(
        lib, [sched("ConstantLR")(lib, o, factor=0.1, total_iters=2),
              sched("ExponentialLR")(lib, o, gamma=0.9)])),
    ("ChainedScheduler", lambda lib, o: sched("ChainedScheduler")(
        lib, [sched("LinearLR")(lib, o, total_iters=3),
              sched("PolynomialLR")(lib, o, total_iters=12)], optimizer=o)),
]


@pytest.mark.parametrize("name,make", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_schedule_matches_torch(name, make):
    run_both(make)


def test_cyclic_lr_cycles_adam_beta1():
    run_both(lambda lib, o: sched("CyclicLR")(lib, o, 0.001, 0.01, step_size_up=3),
             kind="adam")


PLATEAU_METRICS = [1.0, 0.9, 0.9, 0.91, 0.95, 0.9, 0.89, 0.95, 0.96, 0.97, 0.98, 0.85,
                   0.85, 0.85, 0.85, 0.85, 0.85, 0.84, 0.99, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize("kw", [
    {},
    dict(patience=1),
    dict(mode="max", patience=2, factor=0.5),
    dict(patience=0, threshold=0.05, threshold_mode="abs", cooldown=2),
    dict(mode="max", patience=1, threshold=0.01, threshold_mode="abs", min_lr=0.02),
    dict(patience=0, factor=0.5, min_lr=[0.03, 0.001], cooldown=1),
    dict(patience=0, factor=0.9, eps=0.01),
])
def test_reduce_lr_on_plateau_matches_torch(kw):
    def make(lib, o):
        return lib.optim.lr_scheduler.ReduceLROnPlateau(o, **kw)
    ts, ms, _, _ = run_both(make, metrics=PLATEAU_METRICS)
    for key in ("best", "num_bad_epochs", "cooldown_counter", "mode_worse", "min_lrs"):
        assert getattr(ts, key) == getattr(ms, key)
    assert set(ts.state_dict()) == set(ms.state_dict())


def test_reduce_lr_on_plateau_accepts_tensor_metric_and_state_dict():
    _, mopt = make_opts()
    s = optim.lr_scheduler.ReduceLROnPlateau(mopt, patience=0)
    s.step(mt.tensor(1.0))
    s.step(mt.tensor(2.0))
    assert s.get_last_lr() == pytest.approx([0.01, 0.005])
    s2 = optim.lr_scheduler.ReduceLROnPlateau(make_opts()[1], mode="max")
    s2.load_state_dict(s.state_dict())
    assert s2.mode == "min" and s2.mode_worse == math.inf and s2.best == 1.0


@pytest.mark.parametrize("idx", range(len(CASES)))
def test_state_dict_round_trip(idx):
    """A scheduler restored from a state_dict taken mid-run continues like
    torch's; the state_dict has torch's keys."""
    name, make = CASES[idx]
    ts, ms, topt, mopt = run_both(make, steps=6)
    tsd, msd = ts.state_dict(), ms.state_dict()
    assert set(tsd) == set(msd)
    if "_schedulers" in tsd:
        for a, b in zip(tsd["_schedulers"], msd["_schedulers"]):
            assert set(a) == set(b)
    # A fresh pair of schedulers over the same optimizers, loaded from it.
    ts2, ms2 = make(torch, topt), make(mt, mopt)
    ts2.load_state_dict(tsd)
    ms2.load_state_dict(msd)
    for group, saved in zip(topt.param_groups, ts.get_last_lr()):
        group["lr"] = saved
    for group, saved in zip(mopt.param_groups, ms.get_last_lr()):
        group["lr"] = saved
    assert_close_lists(ts2.get_last_lr(), ms2.get_last_lr())
    for _ in range(8):
        ts2.step()
        ms2.step()
        assert_close_lists(ts2.get_last_lr(), ms2.get_last_lr())


def test_callable_objects_are_saved():
    class Decay:
        def __init__(self):
            self.rate = 0.9

        def __call__(self, epoch):
            return self.rate

    _, mopt = make_opts()
    s = optim.lr_scheduler.MultiplicativeLR(mopt, Decay())
    s.lr_lambdas[0].rate = 0.5
    sd = s.state_dict()
    assert sd["lr_lambdas"][0] == {"rate": 0.5}
    s2 = optim.lr_scheduler.MultiplicativeLR(make_opts()[1], Decay())
    s2.load_state_dict(sd)
    assert s2.lr_lambdas[0].rate == 0.5 and s2.lr_lambdas[1].rate == 0.5

    class Scale:
        def __init__(self):
            self.k = 1.0

        def __call__(self, x):
            return self.k

    c = optim.lr_scheduler.CyclicLR(make_opts()[1], 0.01, 0.1, scale_fn=Scale())
    c._scale_fn_custom.k = 0.25
    sd = c.state_dict()
    assert sd["_scale_fn_custom"] == {"k": 0.25} and "_scale_fn_ref" not in sd
    c2 = optim.lr_scheduler.CyclicLR(make_opts()[1], 0.01, 0.1, scale_fn=Scale())
    c2.load_state_dict(sd)
    assert c2._scale_fn_custom.k == 0.25


def test_epoch_argument_uses_closed_form():
    for name, kw in [("ConstantLR", {}), ("LinearLR", {}), ("PolynomialLR", dict(power=2.0))]:
        topt, mopt = make_opts()
        ts = getattr(torch.optim.lr_scheduler, name)(topt, **kw)
        ms = getattr(optim.lr_scheduler, name)(mopt, **kw)
        for epoch in (3, 1, 7, 2):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ts.step(epoch)
            with pytest.warns(UserWarning, match="epoch parameter"):
                ms.step(epoch)
            assert_close_lists(ts.get_last_lr(), ms.get_last_lr())


def test_warm_restarts_fractional_epochs():
    topt, mopt = make_opts()
    ts = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(topt, T_0=2, T_mult=3)
    ms = optim.lr_scheduler.CosineAnnealingWarmRestarts(mopt, T_0=2, T_mult=3)
    for epoch in (0.5, 1.25, 2.0, 5.5, 9.0, 30.7, 1.0):
        ts.step(epoch)
        ms.step(epoch)
        assert_close_lists(ts.get_last_lr(), ms.get_last_lr())
        assert ts.last_epoch == ms.last_epoch and ts.T_i == ms.T_i
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        ms.step(-1)


def errors_match(make):
    """make(lib) raises the same error type and message in both libraries."""
    with pytest.raises(Exception) as te:
        make(torch)
    with pytest.raises(type(te.value)) as me:
        make(mt)
    assert str(me.value) == str(te.value).replace("torch.optim.sgd.SGD", "minitorch.optim.sgd.SGD")


def _opt(lib):
    return lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=0.1, momentum=0.9)


@pytest.mark.parametrize("make", [
    lambda lib: lib.optim.lr_scheduler.ConstantLR(_opt(lib), factor=1.5),
    lambda lib: lib.optim.lr_scheduler.LinearLR(_opt(lib), start_factor=0),
    lambda lib: lib.optim.lr_scheduler.LinearLR(_opt(lib), end_factor=2),
    lambda lib: lib.optim.lr_scheduler.MultiplicativeLR(_opt(lib), 0.5),
    lambda lib: lib.optim.lr_scheduler.MultiplicativeLR(_opt(lib), [lambda e: 1] * 2),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(_opt(lib), 0.1, 1.0, mode="bad"),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(
        lib.optim.Adagrad([lib.nn.Parameter(lib.ones(2))]), 0.1, 1.0),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(_opt(lib), [0.1, 0.2], 1.0),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(3, 0.1, 1.0),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(lib), 0),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(lib), 2, T_mult=0),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(lib), 2, T_mult=1.5),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(lib), 2, eta_min="x"),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_opt(lib), factor=1.0),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_opt(lib), mode="avg"),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_opt(lib), threshold_mode="x"),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(_opt(lib), min_lr=[0.1, 0.2]),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau("opt"),
    lambda lib: lib.optim.lr_scheduler.SequentialLR(_opt(lib), [], milestones=[]),
    lambda lib: lib.optim.lr_scheduler.ChainedScheduler([]),
])
def test_errors_match_torch(make):
    errors_match(make)


def test_composition_errors_match_torch():
    def seq_plateau(lib):
        o = _opt(lib)
        return lib.optim.lr_scheduler.SequentialLR(
            o, [lib.optim.lr_scheduler.ReduceLROnPlateau(o)], milestones=[])

    def seq_milestones(lib):
        o = _opt(lib)
        return lib.optim.lr_scheduler.SequentialLR(
            o, [lib.optim.lr_scheduler.StepLR(o, 2)], milestones=[3])

    def chained_plateau(lib):
        o = _opt(lib)
        return lib.optim.lr_scheduler.ChainedScheduler(
            [lib.optim.lr_scheduler.StepLR(o, 2), lib.optim.lr_scheduler.ReduceLROnPlateau(o)])

    def seq_no_optimizer(lib):
        return lib.optim.lr_scheduler.SequentialLR(_opt(lib), [object()], milestones=[])

    for make in (seq_plateau, seq_milestones, chained_plateau, seq_no_optimizer):
        errors_match(make)
    o1, o2 = _opt(mt), _opt(mt)
    with pytest.raises(ValueError, match="expects all schedulers to belong to the same "
                                         "optimizer, but got scheduler StepLR at index 0"):
        optim.lr_scheduler.SequentialLR(o1, [optim.lr_scheduler.StepLR(o2, 2)], milestones=[])


def test_plateau_rejects_new_group_with_per_group_min_lr():
    o = _opt(mt)
    s = optim.lr_scheduler.ReduceLROnPlateau(o, patience=0, min_lr=[0.0])
    o.add_param_group({"params": [mt.nn.Parameter(mt.ones(1))]})
    s.step(1.0)
    with pytest.raises(RuntimeError, match=r"The number of param groups in the `optimizer` "
                                           r"\(2\) differs"):
        s.step(2.0)
