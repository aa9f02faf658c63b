"""autograd.graph.register_multi_grad_hook compared with torch: once per
backward with the gradients of every tensor the run reaches (None for the
others) in mode "all", with the first gradient in mode "any"; removable."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

LIBS = [mt, torch]


def setup(lib):
    rng = np.random.default_rng(0)
    a = lib.tensor(rng.standard_normal((2, 3)), dtype=lib.float32, requires_grad=True)
    b = lib.tensor(rng.standard_normal((2, 3)), dtype=lib.float32, requires_grad=True)
    c = a * b
    d = a * b
    return a, b, c, d


def summary(grads):
    return [None if g is None else np.round(g.detach().numpy(), 5).tolist() for g in grads]


def run_all(lib, how):
    a, b, c, d = setup(lib)
    calls = []
    # torch cannot tell which leaves autograd.grad reaches: non-leaves only there
    watched = (c, d, c.exp()) if how == "grad" else (a, b, c, d)
    lib.autograd.graph.register_multi_grad_hook(watched, lambda gs: calls.append(summary(gs)))
    if how == "backward":
        c.sum().backward(retain_graph=True)
    elif how == "inputs":
        c.sum().backward(inputs=(a,), retain_graph=True)
    elif how == "grad":
        lib.autograd.grad((c * d).sum(), (b,))
    elif how == "both":
        (c + d).sum().backward()
    elif how == "twice":
        c.sum().backward(retain_graph=True)
        c.sum().backward()
    return calls


@pytest.mark.parametrize("how", ["backward", "inputs", "grad", "both", "twice"])
def test_mode_all(how):
    got = [run_all(lib, how) for lib in LIBS]
    assert got[0] == got[1]
    assert got[0]  # the hook ran


def test_mode_all_reports_which_grads_came():
    calls = run_all(mt, "backward")
    assert [g is not None for g in calls[0]] == [True, True, True, False]
    calls = run_all(mt, "inputs")
    assert [g is not None for g in calls[0]] == [True, False, True, False]


@pytest.mark.parametrize("how", ["backward", "inputs", "twice"])
def test_mode_any(how):
    seen = []
    for lib in LIBS:
        a, b, c, d = setup(lib)
        calls = []
        lib.autograd.graph.register_multi_grad_hook(
            (a, b, c), lambda g: calls.append(np.round(g.detach().numpy(), 5).tolist()),
            mode="any")
        if how == "inputs":
            (c * 2).sum().backward(inputs=(b,))
        else:
            (c * 2).sum().backward(retain_graph=True)
            if how == "twice":
                (c * 2).sum().backward()
        seen.append(calls)
    assert seen[0] == seen[1]
    assert len(seen[0]) == (2 if how == "twice" else 1)


def test_handle_removes_every_hook():
    for lib in LIBS:
        a, b, c, d = setup(lib)
        calls = []
        handle = lib.autograd.graph.register_multi_grad_hook((a, b), calls.append)
        c.sum().backward(retain_graph=True)
        handle.remove()
        c.sum().backward()
        assert len(calls) == 1


def test_unknown_mode_is_refused():
    messages = []
    for lib in LIBS:
        a, b, c, d = setup(lib)
        with pytest.raises(ValueError) as e:
            lib.autograd.graph.register_multi_grad_hook((a, b), print, mode="some")
        messages.append(str(e.value))
    assert messages[0] == messages[1]


def test_hook_on_tensors_of_a_chain_in_one_backward():
    seen = []
    for lib in LIBS:
        a, b, c, d = setup(lib)
        e = c.exp()
        f = e * d
        calls = []
        lib.autograd.graph.register_multi_grad_hook((c, e, a), lambda gs: calls.append(summary(gs)))
        f.sum().backward()
        seen.append(calls)
    assert seen[0] == seen[1]
    assert len(seen[0]) == 1
