"""F.multilabel_margin_loss and F.triplet_margin_with_distance_loss, and their
modules, against torch: values, float64 gradients and error messages."""
import numpy as np
import pytest

import minitorch
import minitorch.nn as mnn
import minitorch.nn.functional as MF
from torch_error_helpers import assert_same_error

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _pair(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return minitorch.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _check(mout, tout, mins, tins):
    assert tuple(mout.shape) == tuple(tout.shape)
    np.testing.assert_allclose(mout.detach().numpy(), tout.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    mout.sum().backward()
    tout.sum().backward()
    for m, t in zip(mins, tins):
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


TARGETS = [
    ((), [0]), ((5,), [2, -1, 4, 1, 3]), ((5,), [1, 1, 0, 1, 4]), ((5,), [-1, 0, 1, 2, 3]),
    ((3, 4), [[0, 3, -1, 1], [2, 2, 1, 0], [3, 2, 1, 0]]), ((0, 4), np.zeros((0, 4), int)),
]


@pytest.mark.parametrize("shape,target", TARGETS)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss(shape, target, reduction):
    m, t = _pair(shape)
    target = np.array(target, dtype=np.int64).reshape(shape if shape else ())
    if reduction != "none" and m.numel() == 0:
        # torch's reduction of an empty batch is unwritten memory
        assert MF.multilabel_margin_loss(m, minitorch.tensor(target),
                                         reduction=reduction).item() == 0
        return
    mout = MF.multilabel_margin_loss(m, minitorch.tensor(target), reduction=reduction)
    tout = TF.multilabel_margin_loss(t, torch.tensor(target), reduction=reduction)
    _check(mout, tout, [m], [t])
    module = mnn.MultiLabelMarginLoss(reduction=reduction)
    np.testing.assert_allclose(module(m, minitorch.tensor(target)).detach().numpy(),
                               tout.detach().numpy(), rtol=1e-10)


@pytest.mark.parametrize("make", [
    lambda ns: (ns.ones(5, 0), ns.ones(5, 4, dtype=ns.int64)),
    lambda ns: (ns.ones(0), ns.ones(0, dtype=ns.int64)),
    lambda ns: (ns.ones(5, 4), ns.ones(4, dtype=ns.int64)),
    lambda ns: (ns.ones(5, 4), ns.ones((), dtype=ns.int64)),
    lambda ns: (ns.ones(5), ns.tensor([5, 0, 0, 0, 0])),
    lambda ns: (ns.ones(5), ns.tensor([-2, 0, 0, 0, 0])),
    lambda ns: (ns.ones(5), ns.ones(5)),
])
def test_multilabel_margin_loss_errors(make):
    assert_same_error(lambda ns, F: F.multilabel_margin_loss(*make(ns)), (minitorch, MF),
                      (torch, TF))
    assert_same_error(lambda ns, F: F.multilabel_margin_loss(
        ns.ones(2, 3), ns.zeros(2, 3, dtype=ns.int64), reduction="abc"), (minitorch, MF),
        (torch, TF))


@pytest.mark.parametrize("shape", [(5, 10), (7,), (2, 3, 4)])
@pytest.mark.parametrize("kwargs", [{}, {"margin": 1e-6}, {"margin": 10.0}, {"swap": True},
                                    {"reduction": "sum"}, {"reduction": "none"}])
@pytest.mark.parametrize("distance", [None, "cosine", "module"])
def test_triplet_margin_with_distance_loss(shape, kwargs, distance):
    ins = [_pair(shape, seed) for seed in range(3)]
    fns = {None: (None, None),
           "cosine": (lambda a, b: 1 - MF.cosine_similarity(a, b, dim=-1),
                      lambda a, b: 1 - TF.cosine_similarity(a, b, dim=-1)),
           "module": (mnn.PairwiseDistance(p=1.0), torch.nn.PairwiseDistance(p=1.0))}[distance]
    mout = MF.triplet_margin_with_distance_loss(*(m for m, _ in ins), distance_function=fns[0],
                                                **kwargs)
    tout = TF.triplet_margin_with_distance_loss(*(t for _, t in ins), distance_function=fns[1],
                                                **kwargs)
    _check(mout, tout, [m for m, _ in ins], [t for _, t in ins])
    mm = mnn.TripletMarginWithDistanceLoss(distance_function=fns[0], **kwargs)
    tm = torch.nn.TripletMarginWithDistanceLoss(distance_function=fns[1], **kwargs)
    np.testing.assert_allclose(mm(*(m for m, _ in ins)).detach().numpy(),
                               tm(*(t for _, t in ins)).detach().numpy(), rtol=1e-10)


@pytest.mark.parametrize("shapes,kwargs", [
    (((3, 4), (3, 4), (3, 4)), {"reduction": "abc"}), (((3, 4), (3, 4), (3, 4)), {"margin": -1.0}),
    (((3, 5), (3, 4), (3, 4)), {}), (((3, 4), (3, 4), (3, 5)), {}),
    (((3,), (3, 4), (3, 4)), {}), (((3, 4), (3, 4), (3,)), {})])
def test_triplet_margin_with_distance_loss_errors(shapes, kwargs):
    assert_same_error(lambda ns, F: F.triplet_margin_with_distance_loss(
        *(ns.ones(s) for s in shapes), **kwargs), (minitorch, MF), (torch, TF))
    with pytest.raises(ValueError, match="expected margin to be greater than 0, got 0"):
        mnn.TripletMarginWithDistanceLoss(margin=0)


def test_pairwise_distance_module_keeps_torchs_attribute():
    m, t = mnn.PairwiseDistance(p=3.0, keepdim=True), torch.nn.PairwiseDistance(p=3.0,
                                                                              keepdim=True)
    assert (m.norm, m.eps, m.keepdim) == (t.norm, t.eps, t.keepdim)
