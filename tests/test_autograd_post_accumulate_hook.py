"""Post-accumulate-grad hooks run once per accumulation, on the leaf, after its
.grad is updated (DistributedDataParallel starts its bucket reductions from them)."""
import pytest

import minitorch


def _run(lib):
    w = lib.nn.Parameter(lib.ones(3))
    calls = []
    w.register_post_accumulate_grad_hook(lambda p: calls.append((p is w, p.grad.tolist())))
    w.register_hook(lambda g: g * 3)
    (w * 2).sum().backward()
    (w * w).sum().backward()
    return calls, w.grad.tolist()


def test_post_accumulate_hook_runs_once_on_the_leaf():
    calls, grad = _run(minitorch)
    assert calls == [(True, [6.0, 6.0, 6.0]), (True, [12.0, 12.0, 12.0])]
    assert grad == [12.0, 12.0, 12.0]


def test_post_accumulate_hook_matches_torch():
    torch = pytest.importorskip("torch")
    assert _run(minitorch) == _run(torch)
