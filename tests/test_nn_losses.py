"""Loss functions and modules against torch, plus hand-computed values."""
import math
import warnings

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn as nn
import minitorch.nn.functional as F

RNG = np.random.default_rng(1)


def test_hand_computed_without_torch():
    x = mt.tensor([[0.0, 0.0]])
    assert abs(F.cross_entropy(x, mt.tensor([1])).item() - math.log(2)) < 1e-6
    assert F.mse_loss(mt.tensor([1.0, 3.0]), mt.tensor([0.0, 0.0])).item() == 5.0
    assert F.l1_loss(mt.tensor([1.0, -3.0]), mt.tensor([0.0, 0.0]), reduction="sum").item() == 4
    assert F.smooth_l1_loss(mt.tensor([0.5, 3.0]), mt.zeros(2), reduction="none").tolist() == \
        [0.125, 2.5]
    assert F.nll_loss(mt.tensor([[-1.0, -2.0]]), mt.tensor([1])).item() == 2.0
    with pytest.raises(IndexError, match="^Target 12 is out of bounds.$"):
        F.cross_entropy(mt.randn(4, 3), mt.tensor([0, 1, 12, 2]))
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.mse_loss(mt.zeros(2), mt.zeros(2), reduction="foo")


torch = pytest.importorskip("torch")


def both(name, *arrays, **kwargs):
    a = getattr(F, name)(*(mt.tensor(x) for x in arrays),
                         **{k: mt.tensor(v) if isinstance(v, np.ndarray) else v
                            for k, v in kwargs.items()})
    b = getattr(torch.nn.functional, name)(
        *(torch.tensor(x) for x in arrays),
        **{k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()})
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses(reduction):
    x, y = rand(4, 3), rand(4, 3) * 2
    both("mse_loss", x, y, reduction=reduction)
    both("l1_loss", x, y, reduction=reduction)
    for beta in (1.0, 0.5, 0.0):
        both("smooth_l1_loss", x, y, reduction=reduction, beta=beta)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("opts", [{}, {"weight": np.array([0.2, 1.0, 3.0], np.float32)},
                                  {"ignore_index": 1}, {"label_smoothing": 0.2},
                                  {"label_smoothing": 0.1, "ignore_index": 0,
                                   "weight": np.array([0.5, 2.0, 1.0], np.float32)}])
def test_cross_entropy_and_nll_class_indices(reduction, opts):
    x = rand(5, 3)
    t = np.array([0, 2, 1, 1, 2])
    both("cross_entropy", x, t, reduction=reduction, **opts)
    both("cross_entropy", rand(2, 3, 4, 2), RNG.integers(0, 3, (2, 4, 2)), reduction=reduction,
         **opts)
    both("cross_entropy", rand(3), np.array(1), reduction=reduction, **opts)
    if "label_smoothing" not in opts:
        both("nll_loss", x, t, reduction=reduction, **opts)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("opts", [{}, {"weight": np.array([0.2, 1.0, 3.0], np.float32)},
                                  {"label_smoothing": 0.3}])
def test_cross_entropy_probabilities(reduction, opts):
    p = np.abs(rand(4, 3))
    both("cross_entropy", rand(4, 3), p / p.sum(1, keepdims=True), reduction=reduction, **opts)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_losses(reduction):
    p = 1 / (1 + np.exp(-rand(6)))
    y = (RNG.random(6) > 0.5).astype(np.float32)
    w = np.abs(rand(6))
    both("binary_cross_entropy", p, y, reduction=reduction)
    both("binary_cross_entropy", p, y, weight=w, reduction=reduction)
    both("binary_cross_entropy", np.array([0.0, 1.0], np.float32),
         np.array([1.0, 0.0], np.float32), reduction=reduction)
    x = rand(6) * 30
    both("binary_cross_entropy_with_logits", x, y, reduction=reduction)
    both("binary_cross_entropy_with_logits", rand(2, 3), np.abs(rand(2, 3)),
         pos_weight=np.array([1.0, 2.0, 0.5], np.float32), weight=np.abs(rand(2, 3)),
         reduction=reduction)


@pytest.mark.parametrize("reduction", ["sum", "none", "batchmean", "mean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    x = np.log(np.abs(rand(3, 4)) + 0.1)
    t = np.abs(rand(3, 4))
    t[0, 0] = 0
    if log_target:
        t = np.log(t + 0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both("kl_div", x, t, reduction=reduction, log_target=log_target)


@pytest.mark.parametrize("name, args", [
    ("MSELoss", {}), ("L1Loss", {"reduction": "sum"}), ("SmoothL1Loss", {"beta": 0.5}),
    ("CrossEntropyLoss", {"label_smoothing": 0.1}), ("NLLLoss", {"ignore_index": 0}),
    ("BCELoss", {}), ("BCEWithLogitsLoss", {}), ("KLDivLoss", {"reduction": "batchmean"}),
])
def test_loss_modules(name, args):
    m, t = getattr(nn, name)(**args), getattr(torch.nn, name)(**args)
    assert repr(m) == repr(t)
    assert m.reduction == t.reduction
    if name in ("CrossEntropyLoss", "NLLLoss"):
        x, y = rand(4, 3), np.array([0, 1, 2, 1])
    else:
        x, y = 1 / (1 + np.exp(-rand(4, 3))), np.abs(rand(4, 3)) / 3
    a = m(mt.tensor(x), mt.tensor(y))
    b = t(torch.tensor(x), torch.tensor(y))
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5)


def test_weighted_loss_buffers():
    m = nn.CrossEntropyLoss(weight=mt.ones(3))
    assert list(m.state_dict()) == ["weight"]
    assert list(nn.BCEWithLogitsLoss(pos_weight=mt.ones(2)).state_dict()) == ["pos_weight"]


@pytest.mark.parametrize("call, msg, exc", [
    (lambda f, T: f.cross_entropy(T.randn(4, 3), T.tensor([0, 1, -1, 2])),
     "Target -1 is out of bounds.", IndexError),
    (lambda f, T: f.nll_loss(T.randn(4, 3), T.tensor([0, 1, 2])),
     "Expected input batch_size (4) to match target batch_size (3).", ValueError),
    (lambda f, T: f.cross_entropy(T.randn(4, 3), T.tensor([0, 1, 1, 2]), label_smoothing=1.5),
     "label_smoothing must be between 0.0 and 1.0. Got: 1.5", RuntimeError),
    (lambda f, T: f.cross_entropy(T.randn(4, 3), T.rand(4, 3), ignore_index=1),
     "ignore_index is not supported for floating point target", RuntimeError),
    (lambda f, T: f.cross_entropy(T.randn(4, 3), T.tensor([0.0, 1, 1, 2])),
     "expected target dtype to be Long or Byte, but got Float", RuntimeError),
    (lambda f, T: f.nll_loss(T.randn(4), T.tensor([0, 1, 1, 2])),
     "For 1D input, 1D target must have size 1, but got target size: 4", ValueError),
    (lambda f, T: f.binary_cross_entropy(T.rand(4) * 2 + 1, T.rand(4)),
     "all elements of input should be between 0 and 1", RuntimeError),
    (lambda f, T: f.binary_cross_entropy_with_logits(T.rand(4), T.rand(3)),
     "Target size (torch.Size([3])) must be the same as input size (torch.Size([4]))",
     ValueError),
    (lambda f, T: f.binary_cross_entropy(T.rand(4), T.rand(3)),
     "Using a target size (torch.Size([3])) that is different to the input size "
     "(torch.Size([4])) is deprecated. Please ensure they have the same size.", ValueError),
])
def test_loss_errors_match_torch(call, msg, exc):
    for f, T in ((F, mt), (torch.nn.functional, torch)):
        with pytest.raises(exc) as info:
            call(f, T)
        assert str(info.value) == msg


def test_mse_broadcast_warning():
    with pytest.warns(UserWarning, match=r"Using a target size \(torch.Size\(\[4, 1\]\)\) that "
                      r"is different to the input size \(torch.Size\(\[4, 3\]\)\)"):
        F.mse_loss(mt.randn(4, 3), mt.randn(4, 1))
