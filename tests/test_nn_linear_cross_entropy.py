"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and
LinearCrossEntropyOptions against torch 2.13: class-index and probability
targets, K-dimensional weights, bias, class weights, ignore_index, label
smoothing, every reduction, with and without chunking options (same values);
float64 gradients; errors and the options-ignored warning. Also the
cross_entropy checks the module's errors reach: a non-floating target shaped
like the logits, and a batch-size mismatch reported before the dtype."""
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn as mnn
import minitorch.nn.functional as MF
from torch_error_helpers import assert_same_error

torch = pytest.importorskip("torch")
TF = torch.nn.functional

CASES = [  # (input shape, weight shape, target: "index" | "probs")
    ((8, 5), (4, 5), "index"), ((5,), (4, 5), "index"), ((8, 5), (4, 5), "probs"),
    ((6, 5), (3, 2, 5), "index"), ((6, 5), (3, 2, 5), "probs"), ((4,), (3, 4), "probs"),
]


def _target(kind, logits_shape, rng):
    if kind == "probs":
        p = rng.random(logits_shape)
        return p / p.sum(axis=1 if len(logits_shape) > 1 else 0, keepdims=True)
    classes = logits_shape[1] if len(logits_shape) > 1 else logits_shape[0]
    shape = (logits_shape[0],) + tuple(logits_shape[2:]) if len(logits_shape) > 1 else ()
    return rng.integers(0, classes, shape)


@pytest.mark.parametrize("xshape,wshape,kind", CASES)
@pytest.mark.parametrize("kwargs", [{}, {"reduction": "sum"}, {"reduction": "none"},
                                    {"label_smoothing": 0.2}, {"ignore_index": 1},
                                    {"bias": True}, {"class_weight": True}])
@pytest.mark.parametrize("chunked", [False, True])
def test_against_torch(xshape, wshape, kind, kwargs, chunked):
    if kind == "probs" and "ignore_index" in kwargs:
        return
    rng = np.random.default_rng(0)
    logits_shape = xshape[:-1] + (wshape[0],) + wshape[1:-1]
    x, w = rng.standard_normal(xshape), rng.standard_normal(wshape)
    target = _target(kind, logits_shape, rng)
    b = rng.standard_normal(wshape[:-1]) if kwargs.get("bias") else None
    cw = rng.random(wshape[0]) + 0.5 if kwargs.get("class_weight") else None
    extra = {k: v for k, v in kwargs.items() if k not in ("bias", "class_weight")}
    results = []
    for ns, F, opts in ((minitorch, MF, mnn), (torch, TF, torch.nn)):
        tensors = [ns.tensor(a, requires_grad=True) for a in (x, w)]
        bias = ns.tensor(b, requires_grad=True) if b is not None else None
        options = opts.LinearCrossEntropyOptions(batch_chunk_size=2) if chunked else None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = F.linear_cross_entropy(*tensors, ns.tensor(target), linear_bias=bias,
                                         weight=None if cw is None else ns.tensor(cw),
                                         options=options, **extra)
        out.sum().backward()
        grads = [t.grad.numpy() for t in tensors] + ([bias.grad.numpy()] if b is not None
                                                     else [])
        results.append((out.detach().numpy(), grads,
                        [str(c.message).replace("minitorch.", "torch.") for c in caught]))
    (mo, mg, mw), (to, tg, tw) = results
    np.testing.assert_allclose(mo, to, rtol=1e-10, atol=1e-12)
    for g, h in zip(mg, tg):
        np.testing.assert_allclose(g, h, rtol=1e-10, atol=1e-12)
    assert [m for m in mw if "linear_cross_entropy" in m] == \
        [t for t in tw if "linear_cross_entropy" in t]


@pytest.mark.parametrize("call", [
    lambda ns, F: F.linear_cross_entropy(ns.ones(2, 3, 3), ns.ones(2, 3), ns.ones(3, 2)),
    lambda ns, F: F.linear_cross_entropy(ns.ones(2, 3), ns.ones(2), ns.ones(2, 2)),
    lambda ns, F: F.linear_cross_entropy(ns.ones(2, 3), ns.ones(2, 4), ns.ones(2, 2)),
    lambda ns, F: F.linear_cross_entropy(ns.ones(2, 3), ns.ones(2, 3), ns.ones(2, 2),
                                         ignore_index=0),
    lambda ns, F: F.linear_cross_entropy(ns.ones(3), ns.ones(2, 4, 3), ns.ones(2, 4)),
    lambda ns, F: F.linear_cross_entropy(ns.ones(2, 3), ns.ones(2, 3), ns.ones(2),
                                         linear_bias=ns.ones(3)),
    lambda ns, F: F.cross_entropy(ns.ones(3, 4), ns.ones(3, 4, dtype=ns.int64)),
    lambda ns, F: F.cross_entropy(ns.ones(4, 2), ns.ones(5, 2)),
])
def test_errors(call):
    assert_same_error(call, (minitorch, MF), (torch, TF))


def test_module_and_options():
    m = mnn.LinearCrossEntropyLoss(5, 4, out_features=(3,), bias=True, label_smoothing=0.1)
    t = torch.nn.LinearCrossEntropyLoss(5, 4, out_features=(3,), bias=True, label_smoothing=0.1)
    assert repr(m) == repr(t)
    assert tuple(m.linear.weight.shape) == (12, 5)
    with torch.no_grad():
        t.linear.weight.copy_(torch.tensor(m.linear.weight.detach().numpy()))
        t.linear.bias.copy_(torch.tensor(m.linear.bias.detach().numpy()))
    x, y = np.random.default_rng(0).standard_normal((6, 5)).astype(np.float32), \
        np.random.default_rng(1).integers(0, 4, (6, 3))
    np.testing.assert_allclose(m(minitorch.tensor(x), minitorch.tensor(y)).item(),
                               t(torch.tensor(x), torch.tensor(y)).item(), rtol=1e-5)
    for kwargs in ({"weight": minitorch.ones(3)}, {"label_smoothing": 2.0}):
        torch_kwargs = {k: torch.ones(3) if k == "weight" else v for k, v in kwargs.items()}
        with pytest.raises(RuntimeError) as ours:
            mnn.LinearCrossEntropyLoss(3, 2, **kwargs)
        with pytest.raises(RuntimeError) as theirs:
            torch.nn.LinearCrossEntropyLoss(3, 2, **torch_kwargs)
        assert str(ours.value) == str(theirs.value)
    for bad in ({"acc_policy": "fast"}, {"chunking_method": "rows"}, {"batch_chunk_size": 0},
                {"chunking_method": "aspect_ratio:0"}):
        assert_same_error(lambda nn: nn.LinearCrossEntropyOptions(**bad), (mnn,), (torch.nn,))
    assert mnn.LinearCrossEntropyOptions(chunking_method="aspect_ratio:2").batch_chunk_size \
        is None
