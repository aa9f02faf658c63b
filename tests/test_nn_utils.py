"""nn.utils gradient clipping and parameter/vector conversion against torch on
the same gradients: returned norms, clipped gradients, warnings and errors."""
import math
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.nn import utils as mu
from minitorch.testing import assert_close

torch = pytest.importorskip("torch")
tu = torch.nn.utils
RNG = np.random.default_rng(5)


def _params(*shapes, scale=1.0, dtype=np.float64):
    """Parameters with gradients set, as (minitorch list, torch list)."""
    ms, ts = [], []
    for shape in shapes:
        g = (RNG.standard_normal(shape) * scale).astype(dtype)
        m, t = mt.zeros(shape, dtype=getattr(mt, g.dtype.name)), torch.zeros(shape,
                                                                          dtype=torch.float64)
        m.requires_grad_()
        t = t.to(getattr(torch, g.dtype.name)).requires_grad_()
        m.grad, t.grad = mt.tensor(g), torch.tensor(g)
        ms.append(m)
        ts.append(t)
    return ms, ts


def _same(m, t):
    assert_close(m, mt.tensor(t.numpy()))


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, -math.inf, 0.0, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
@pytest.mark.parametrize("foreach", [None, False, True])
def test_clip_grad_norm_(norm_type, max_norm, foreach):
    ms, ts = _params((3, 4), (5,), ())
    m_total = mu.clip_grad_norm_(ms, max_norm, norm_type, foreach=foreach)
    t_total = tu.clip_grad_norm_(ts, max_norm, norm_type, foreach=foreach)
    _same(m_total, t_total)
    assert not m_total.requires_grad and m_total.dim() == 0
    for m, t in zip(ms, ts):
        _same(m.grad, t.grad)


def test_clip_grad_norm_single_tensor_none_grads_and_float32():
    ms, ts = _params((4,), (2, 2), dtype=np.float32)
    ms.append(mt.zeros(3, requires_grad=True))  # no grad: skipped
    ts.append(torch.zeros(3, requires_grad=True))
    _same(mu.clip_grad_norm_(ms, 1.0), tu.clip_grad_norm_(ts, 1.0))
    assert ms[0].grad.dtype == mt.float32
    m, t = _params((6,), scale=10)
    _same(mu.clip_grad_norm_(m[0], 2.0), tu.clip_grad_norm_(t[0], 2.0))
    _same(m[0].grad, t[0].grad)
    total = mu.clip_grad_norm_([mt.zeros(2, requires_grad=True)], 1.0)
    assert total.item() == 0.0 and total.dtype == mt.float32


def test_clip_grad_norm_empty_generator_warns():
    with pytest.warns(UserWarning, match="`parameters` is an empty generator"):
        mu.clip_grad_norm_((p for p in []), 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mu.clip_grad_norm_([], 1.0)


def test_clip_grad_norm_nonfinite():
    ms, ts = _params((3,))
    ms[0].grad[1] = float("nan")
    ts[0].grad[1] = float("nan")
    with pytest.raises(RuntimeError) as theirs:
        tu.clip_grad_norm_(ts, 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError) as ours:
        mu.clip_grad_norm_(ms, 1.0, error_if_nonfinite=True)
    assert str(ours.value) == str(theirs.value)
    assert math.isnan(mu.clip_grad_norm_(ms, 1.0).item())


def test_get_total_norm_and_clip_grads_with_norm_():
    ms, ts = _params((3, 2), (4,), scale=3)
    m_total = mu.get_total_norm([p.grad for p in ms], 3.0)
    t_total = tu.get_total_norm([p.grad for p in ts], 3.0)
    _same(m_total, t_total)
    mu.clip_grads_with_norm_(ms, 1.5, m_total)
    tu.clip_grads_with_norm_(ts, 1.5, t_total)
    for m, t in zip(ms, ts):
        _same(m.grad, t.grad)


def test_clip_grad_norm_deprecated_alias():
    ms, ts = _params((3,), scale=5)
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        m_total = mu.clip_grad_norm(ms, 1.0)
    _same(m_total, tu.clip_grad_norm_(ts, 1.0))


@pytest.mark.parametrize("foreach", [None, True])
def test_clip_grad_value_(foreach):
    ms, ts = _params((3, 4), (5,), scale=2)
    assert mu.clip_grad_value_(ms, 0.7, foreach=foreach) is None
    tu.clip_grad_value_(ts, 0.7, foreach=foreach)
    for m, t in zip(ms, ts):
        _same(m.grad, t.grad)
    m, t = _params((4,), scale=2)
    mu.clip_grad_value_(m[0], 1)
    tu.clip_grad_value_(t[0], 1)
    _same(m[0].grad, t[0].grad)


def test_parameters_to_vector_and_back():
    lin = mt.nn.Linear(3, 2)
    tlin = torch.nn.Linear(3, 2)
    lin.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in tlin.state_dict().items()})
    mv, tv = mu.parameters_to_vector(lin.parameters()), tu.parameters_to_vector(tlin.parameters())
    _same(mv.detach(), tv.detach())
    assert mv.requires_grad
    mv.sum().backward()
    assert lin.weight.grad.tolist() == [[1.0] * 3] * 2
    new = np.arange(8.0, dtype=np.float32)
    mu.vector_to_parameters(mt.tensor(new), lin.parameters())
    tu.vector_to_parameters(torch.tensor(new), tlin.parameters())
    for (name, m), t in zip(lin.named_parameters(), tlin.parameters()):
        _same(m.detach(), t.detach())
        assert isinstance(m, mt.nn.Parameter), name
    for bad in ([1.0], 3):
        with pytest.raises(TypeError) as theirs:
            tu.vector_to_parameters(bad, tlin.parameters())
        with pytest.raises(TypeError) as ours:
            mu.vector_to_parameters(bad, lin.parameters())
        assert str(ours.value) == str(theirs.value)


def test_parameter_from_a_computed_tensor_is_a_leaf():
    x = mt.ones(2, requires_grad=True) * 2
    p, tp = mt.nn.Parameter(x), torch.nn.Parameter(torch.ones(2, requires_grad=True) * 2)
    assert (p.is_leaf, p.grad_fn, p.requires_grad) == (tp.is_leaf, tp.grad_fn, tp.requires_grad)
    p.sum().backward()
    assert p.grad.tolist() == [1.0, 1.0]
