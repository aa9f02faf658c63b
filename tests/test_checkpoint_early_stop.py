"""utils.checkpoint.set_checkpoint_early_stop and checkpoint(early_stop=...)
compared with torch: with early stop the non-reentrant recomputation stops
once it has saved as many tensors as the forward did (code after the last
saving op does not run again); without it the whole function runs again. The
setting is read when the forward runs; results and gradients are the same."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

LIBS = [mt, torch]


def traced(log):
    def f(x, w):
        log.append("start")
        h = (x @ w).tanh()
        log.append("mid")
        out = h.sin() * 2
        log.append("end")  # after the last op that saves a tensor
        return out
    return f


def inputs(lib, n=3):
    rng = np.random.default_rng(n)
    x = lib.tensor(rng.standard_normal((n, 4)), dtype=lib.float32, requires_grad=True)
    w = lib.tensor(rng.standard_normal((4, 2)), dtype=lib.float32, requires_grad=True)
    return x, w


def run(lib, setting, kwarg, backward_inside, n=3):
    log = []
    x, w = inputs(lib, n)
    kwargs = {} if kwarg is None else {"early_stop": kwarg}
    cp = lib.utils.checkpoint
    if setting is None:
        out = cp.checkpoint(traced(log), x, w, use_reentrant=False, **kwargs)
        out.sum().backward()
    else:
        with cp.set_checkpoint_early_stop(setting):
            out = cp.checkpoint(traced(log), x, w, use_reentrant=False, **kwargs)
            if backward_inside:
                out.sum().backward()
        if not backward_inside:
            out.sum().backward()
    return log, out.detach().numpy(), x.grad.numpy(), w.grad.numpy()


@pytest.mark.parametrize("setting", [None, True, False])
@pytest.mark.parametrize("kwarg", [None, True, False])
@pytest.mark.parametrize("backward_inside", [True, False])
def test_recompute_log_and_gradients_match_torch(setting, kwarg, backward_inside):
    got = [run(lib, setting, kwarg, backward_inside) for lib in LIBS]
    assert got[0][0] == got[1][0]
    for a, b in zip(got[0][1:], got[1][1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_early_stop_skips_the_tail_and_off_runs_it():
    stopped = run(mt, True, None, False)[0]
    full = run(mt, False, None, False)[0]
    assert stopped == ["start", "mid", "end", "start", "mid"]
    assert full == ["start", "mid", "end", "start", "mid", "end"]


def test_setting_applies_to_the_forward_not_the_backward():
    for lib in LIBS:
        log = []
        x, w = inputs(lib)
        cp = lib.utils.checkpoint
        with cp.set_checkpoint_early_stop(False):
            out = cp.checkpoint(traced(log), x, w, use_reentrant=False)
        with cp.set_checkpoint_early_stop(True):
            out.sum().backward()
        assert log.count("end") == 2


def test_setting_is_restored_after_an_error():
    for lib in LIBS:
        cp = lib.utils.checkpoint
        with pytest.raises(KeyError):
            with cp.set_checkpoint_early_stop(False):
                raise KeyError("x")
        log = []
        x, w = inputs(lib)
        cp.checkpoint(traced(log), x, w, use_reentrant=False).sum().backward()
        assert log.count("end") == 1


@pytest.mark.parametrize("early", [True, False])
def test_nested_checkpoints(early):
    seen = []
    for lib in LIBS:
        cp = lib.utils.checkpoint
        counter = [0]

        def inner(t):
            counter[0] += 1
            return t.sin().exp()

        def outer(t):
            return cp.checkpoint(inner, t.cos(), use_reentrant=False).tanh()

        x = lib.tensor(np.linspace(-1, 1, 5), dtype=lib.float32, requires_grad=True)
        with cp.set_checkpoint_early_stop(early):
            out = cp.checkpoint(outer, x, use_reentrant=False)
        out.sum().backward()
        seen.append((counter[0], x.grad.numpy()))
    assert seen[0][0] == seen[1][0]
    np.testing.assert_allclose(seen[0][1], seen[1][1], rtol=1e-5)


def test_fewer_tensors_saved_in_recomputation_is_an_error():
    for lib in LIBS:
        cp = lib.utils.checkpoint
        runs = [0]

        def f(t):
            runs[0] += 1
            return t.exp().sin() if runs[0] == 1 else t.exp() + 1.0

        x = lib.tensor([0.5, 1.0], requires_grad=True)
        out = cp.checkpoint(f, x, use_reentrant=False)
        with pytest.raises(RuntimeError, match="A different number of tensors was saved"):
            out.sum().backward()


@pytest.mark.parametrize("early", [True, False])
def test_two_backward_runs_over_a_retained_graph_recompute_each(early):
    seen = []
    for lib in LIBS:
        log = []
        x, w = inputs(lib, 2)
        cp = lib.utils.checkpoint
        out = cp.checkpoint(traced(log), x, w, use_reentrant=False, early_stop=early)
        out.sum().backward(retain_graph=True)
        out.sum().backward()
        seen.append((log, x.grad.numpy(), w.grad.numpy()))
    assert seen[0][0] == seen[1][0]
    for a, b in zip(seen[0][1:], seen[1][1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
