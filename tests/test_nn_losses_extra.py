"""The margin, embedding and likelihood losses and their modules against torch:
values and input gradients for each reduction, float32 and float64, and errors."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn as nn
import minitorch.nn.functional as F
from autograd_check import check
from test_nn_losses import REDUCTIONS, both

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)


def signs(*shape):
    return np.where(RNG.random(shape) < 0.5, -1.0, 1.0)


def normal(*shape):
    return RNG.standard_normal(shape)


def labels(n, c):
    return RNG.integers(0, c, n)


# (name, float inputs, constant inputs after them, keyword arguments)
CASES = [
    ("margin_ranking_loss", (normal(6), normal(6)), (signs(6),), {}),
    ("margin_ranking_loss", (normal(3, 4), normal(3, 4)), (signs(3, 4),), {"margin": 0.5}),
    ("hinge_embedding_loss", (normal(5, 3),), (signs(5, 3),), {}),
    ("hinge_embedding_loss", (normal(7),), (np.array([1.0, -1, 0, 2, 1, -1, 1]),),
     {"margin": 0.3}),
    ("soft_margin_loss", (normal(4, 5),), (signs(4, 5),), {}),
    ("multilabel_soft_margin_loss", (normal(4, 5),), ((RNG.random((4, 5)) < 0.5) * 1.0,), {}),
    ("multilabel_soft_margin_loss", (normal(4, 5),), (RNG.random((4, 5)),),
     {"weight": RNG.random(5)}),
    ("cosine_embedding_loss", (normal(6, 4), normal(6, 4)), (signs(6),), {}),
    ("cosine_embedding_loss", (normal(4), normal(4)), (np.array(-1.0),), {"margin": -0.2}),
    ("multi_margin_loss", (normal(6, 4),), (labels(6, 4),), {}),
    ("multi_margin_loss", (normal(6, 4),), (labels(6, 4),),
     {"p": 2, "margin": 0.7, "weight": RNG.random(4)}),
    ("multi_margin_loss", (normal(5),), (np.array([3]),), {}),
    ("triplet_margin_loss", (normal(5, 3), normal(5, 3), normal(5, 3)), (), {}),
    ("triplet_margin_loss", (normal(5, 3), normal(5, 3), normal(5, 3)), (),
     {"p": 1, "swap": True, "margin": 2.0}),
    ("triplet_margin_loss", (normal(4), normal(4), normal(4)), (), {"p": 3.0}),
    ("poisson_nll_loss", (normal(4, 3),), (RNG.poisson(2.0, (4, 3)) * 1.0,), {}),
    ("poisson_nll_loss", (RNG.random((4, 3)) + 0.1,), (RNG.poisson(2.0, (4, 3)) * 1.0,),
     {"log_input": False, "full": True}),
    ("gaussian_nll_loss", (normal(4, 3), normal(4, 3), RNG.random((4, 3)) + 1e-7), (), {}),
    ("gaussian_nll_loss", (normal(4, 3), normal(4, 3), RNG.random((4, 1))), (),
     {"full": True}),
    ("gaussian_nll_loss", (normal(4, 3), normal(4, 3), RNG.random(4)), (), {"eps": 0.3}),
]


def _call(lib, name, floats, consts, kwargs, reduction):
    def tensor(x):
        return lib.tensor(x) if isinstance(x, np.ndarray) else x
    return getattr(lib.nn.functional, name)(
        *floats, *(tensor(c) for c in consts), reduction=reduction,
        **{k: tensor(v) for k, v in kwargs.items()})


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,floats,consts,kwargs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_values_and_gradients_float64(name, floats, consts, kwargs, reduction):
    check(torch, lambda lib, *xs: _call(lib, name, xs, consts, kwargs, reduction), *floats)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,floats,consts,kwargs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_values_float32(name, floats, consts, kwargs, reduction):
    def single(x):
        return x.astype(np.float32) if getattr(x, "dtype", None) == np.float64 else x
    both(name, *(single(x) for x in floats + consts), reduction=reduction,
         **{k: single(v) for k, v in kwargs.items()})


def test_hand_computed():
    x = mt.tensor([[0.0, 2.0, 1.0]])
    # wrong classes 0 and 2: max(0, 1 - 2 + 0) + max(0, 1 - 2 + 1), over 3 classes
    assert F.multi_margin_loss(x, mt.tensor([1])).item() == pytest.approx(0.0)
    assert F.multi_margin_loss(x, mt.tensor([0])).item() == pytest.approx((3 + 0 + 2) / 3)
    assert F.hinge_embedding_loss(mt.tensor([0.25, 3.0]), mt.tensor([-1.0, 1.0]),
                                  reduction="none").tolist() == [0.75, 3.0]
    assert F.margin_ranking_loss(mt.tensor([1.0]), mt.tensor([2.0]), mt.tensor([1.0]),
                                 margin=0.5).item() == 1.5


def _errors(lib):
    r = lib.randn
    return [
        lambda: lib.nn.functional.margin_ranking_loss(r(3), r(3), r(3, 1)),
        lambda: lib.nn.functional.margin_ranking_loss(r(3), r(3), r(3), reduction="foo"),
        lambda: lib.nn.functional.hinge_embedding_loss(r(3), r(3), reduction="foo"),
        lambda: lib.nn.functional.soft_margin_loss(r(3), r(3), reduction="foo"),
        lambda: lib.nn.functional.multilabel_soft_margin_loss(r(3, 4), r(3, 4),
                                                              reduction="foo"),
        lambda: lib.nn.functional.cosine_embedding_loss(r(2, 3, 4), r(2, 3, 4), r(2, 3)),
        lambda: lib.nn.functional.cosine_embedding_loss(r(3), r(3), r(1)),
        lambda: lib.nn.functional.cosine_embedding_loss(r(2, 3), r(2, 3), r(())),
        lambda: lib.nn.functional.multi_margin_loss(r(2, 3), lib.tensor([0, 1]), p=3),
        lambda: lib.nn.functional.multi_margin_loss(r(2, 3), lib.tensor([0, 1, 2])),
        lambda: lib.nn.functional.multi_margin_loss(r(2, 3), lib.tensor([0, 3])),
        lambda: lib.nn.functional.multi_margin_loss(r(2, 3), lib.tensor([-1, 0])),
        lambda: lib.nn.functional.multi_margin_loss(r(2, 3, 4), lib.tensor([0, 1])),
        lambda: lib.nn.functional.multi_margin_loss(r(2, 3), lib.tensor([0, 1]), weight=r(2)),
        lambda: lib.nn.functional.multi_margin_loss(r(2, 3), lib.tensor([0, 1]),
                                                    reduction="foo"),
        lambda: lib.nn.functional.triplet_margin_loss(r(2, 3), r(2, 3), r(3)),
        lambda: lib.nn.functional.triplet_margin_loss(r(2, 3), r(2, 3), r(2, 3), margin=-1),
        lambda: lib.nn.functional.triplet_margin_loss(r(2, 3), r(2, 3), r(2, 3), margin=0.0),
        lambda: lib.nn.functional.triplet_margin_loss(r(2, 3), r(2, 3), r(2, 3),
                                                      reduction="foo"),
        lambda: lib.nn.functional.poisson_nll_loss(r(3), r(3), reduction="foo"),
        lambda: lib.nn.functional.gaussian_nll_loss(r(3, 2), r(3, 2), -lib.ones(3, 2)),
        lambda: lib.nn.functional.gaussian_nll_loss(r(3, 2), r(3, 2), lib.ones(3, 2),
                                                    reduction="foo"),
    ]


@pytest.mark.parametrize("k", range(len(_errors(torch))))
def test_errors_match_torch(k):
    with pytest.raises(Exception) as expected:
        _errors(torch)[k]()
    with pytest.raises(expected.type) as got:
        _errors(mt)[k]()
    assert str(got.value) == str(expected.value)


MODULES = [
    ("MarginRankingLoss", {"margin": 0.5}), ("HingeEmbeddingLoss", {"margin": 2.0}),
    ("SoftMarginLoss", {}), ("MultiLabelSoftMarginLoss", {"weight": True}),
    ("CosineEmbeddingLoss", {"margin": 0.1}), ("MultiMarginLoss", {"p": 2, "weight": True}),
    ("TripletMarginLoss", {"margin": 0.5, "p": 1.0, "swap": True}),
    ("PoissonNLLLoss", {"log_input": False, "full": True}),
    ("GaussianNLLLoss", {"full": True, "eps": 0.1}),
]


def _module_inputs(name):
    x, y, z = (RNG.random((4, 3)) for _ in range(3))
    target = {"MarginRankingLoss": signs(4, 3), "HingeEmbeddingLoss": signs(4, 3),
              "SoftMarginLoss": signs(4, 3), "MultiLabelSoftMarginLoss": signs(4, 3) > 0,
              "CosineEmbeddingLoss": signs(4), "MultiMarginLoss": np.array([0, 2, 1, 1]),
              "PoissonNLLLoss": RNG.poisson(2.0, (4, 3)) * 1.0}.get(name, y)
    return {"MarginRankingLoss": (x, y, target), "CosineEmbeddingLoss": (x, y, target),
            "TripletMarginLoss": (x, y, z), "GaussianNLLLoss": (x, y, z)}.get(
        name, (x, target * 1.0 if target.dtype == bool else target))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,kwargs", MODULES, ids=[m[0] for m in MODULES])
def test_modules_print_and_compute_as_torch(name, kwargs, reduction):
    weight = np.linspace(0.5, 1.5, 3)

    def build(lib):
        kw = {k: lib.tensor(weight) if k == "weight" else v for k, v in kwargs.items()}
        return getattr(lib.nn, name)(reduction=reduction, **kw)
    m, t = build(mt), build(torch)
    assert repr(m) == repr(t)
    inputs = _module_inputs(name)
    np.testing.assert_allclose(m(*map(mt.tensor, inputs)).numpy(),
                               t(*map(torch.tensor, inputs)).numpy(), rtol=1e-12)
    if "weight" in kwargs:
        assert "weight" in dict(m.named_buffers())


def test_legacy_reduction_arguments():
    with pytest.warns(UserWarning, match="reduction='sum'"):
        m = nn.SoftMarginLoss(size_average=False)
    assert m.reduction == "sum"
    x, y = mt.tensor([0.5, -1.0]), mt.tensor([1.0, -1.0])
    with pytest.warns(UserWarning):
        value = F.soft_margin_loss(x, y, size_average=False)
    assert value.item() == pytest.approx(F.soft_margin_loss(x, y, reduction="sum").item())


@pytest.mark.parametrize("name,kwargs", [("MultiMarginLoss", {"p": 3}),
                                         ("MultiMarginLoss", {"weight": np.ones((2, 2))}),
                                         ("TripletMarginLoss", {"margin": 0})])
def test_module_arguments_checked_as_torch(name, kwargs):
    def build(lib):
        return getattr(lib.nn, name)(**{k: lib.tensor(v) if isinstance(v, np.ndarray) else v
                                        for k, v in kwargs.items()})
    with pytest.raises(Exception) as expected:
        build(torch)
    with pytest.raises(expected.type) as got:
        build(mt)
    assert str(got.value) == str(expected.value)
