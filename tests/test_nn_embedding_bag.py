"""F.embedding_bag and nn.EmbeddingBag against torch: every mode, 1-D input
with offsets (empty bags, include_last_offset) and 2-D input, padding_idx,
per_sample_weights, scale_grad_by_freq, max_norm; gradients of the weight and
the per-sample weights; argument errors."""
import numpy as np
import pytest

import minitorch
import minitorch.nn as mnn
import minitorch.nn.functional as MF
from torch_error_helpers import assert_same_error

torch = pytest.importorskip("torch")
TF = torch.nn.functional

BAGS = [  # (indices, offsets, kwargs)
    ([5, 1, 6, 5, 6], [0, 3], {}),
    ([1, 5, 4, 5, 9], [0, 0, 3], {}),
    ([1, 5, 4, 5, 9, 2], [0, 2, 2, 6], {"include_last_offset": True}),
    ([0, 1, 1, 0, 1, 4], [0, 3, 4], {"include_last_offset": True}),
    ([4, 1, 1, 0, 4, 4], [0, 3], {"padding_idx": -1}),
    ([4, 4, 1, 0], [0, 2], {"padding_idx": 4}),
    ([[2, 1, 1], [0, 2, 4], [2, 0, 0]], None, {"padding_idx": 2}),
    ([[5, 1, 6, 5], [4, 2, 5, 5]], None, {}),
    # torch's CPU kernel divides some rows' gradients by another row's count
    # when the rows' counts differ; equal counts are compared
    ([2, 5, 2, 5], [0, 1], {"scale_grad_by_freq": True}),
]


@pytest.mark.parametrize("indices,offsets,kwargs", BAGS)
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("weighted", [False, True])
def test_embedding_bag(indices, offsets, kwargs, mode, weighted):
    if weighted and mode != "sum" or mode == "max" and kwargs.get("scale_grad_by_freq"):
        return
    rng = np.random.default_rng(0)
    w = rng.standard_normal((10, 4))
    idx = np.array(indices)
    psw = rng.standard_normal(idx.shape) if weighted else None
    outs, grads = [], []
    for ns, F in ((minitorch, MF), (torch, TF)):
        weight = ns.tensor(w, requires_grad=True)
        sample = ns.tensor(psw, requires_grad=True) if weighted else None
        out = F.embedding_bag(ns.tensor(idx), weight,
                              None if offsets is None else ns.tensor(offsets), mode=mode,
                              per_sample_weights=sample, **kwargs)
        out.backward(ns.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape))))
        outs.append(out.detach().numpy())
        grads.append([weight.grad.numpy()] + ([sample.grad.numpy()] if weighted else []))
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12, atol=1e-12)
    for g, h in zip(*grads):
        np.testing.assert_allclose(g, h, rtol=1e-12, atol=1e-12)


def test_max_norm_renormalises_the_rows_used():
    w = np.random.default_rng(0).standard_normal((6, 3)) * 3
    mw, tw = minitorch.tensor(w), torch.tensor(w)
    idx, off = [0, 2, 2, 5], [0, 2]
    mo = MF.embedding_bag(minitorch.tensor(idx), mw, minitorch.tensor(off), max_norm=1.0)
    to = TF.embedding_bag(torch.tensor(idx), tw, torch.tensor(off), max_norm=1.0)
    np.testing.assert_allclose(mo.numpy(), to.numpy(), rtol=1e-6)
    np.testing.assert_allclose(mw.numpy(), tw.numpy(), rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2]), ns.ones(5, 2), ns.tensor([0]),
                                  mode="median"),
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2]), ns.ones(5, 2), ns.tensor([0]), mode="max",
                                  scale_grad_by_freq=True),
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2]), ns.ones(5, 2), ns.tensor([0]), mode="max",
                                  sparse=True),
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2]), ns.ones(5, 2), ns.tensor([0]),
                                  per_sample_weights=ns.ones(2)),
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2]), ns.ones(5, 2), ns.tensor([0]), mode="sum",
                                  per_sample_weights=ns.ones(3)),
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2]), ns.ones(5)),
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2]), ns.ones(5, 2)),
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2]), ns.ones(5, 2), ns.tensor([[0]])),
    lambda ns, F: F.embedding_bag(ns.tensor([[1, 2]]), ns.ones(5, 2), ns.tensor([0])),
    lambda ns, F: F.embedding_bag(ns.tensor([[[1, 2]]]), ns.ones(5, 2)),
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2, 9]), ns.ones(5, 2), ns.tensor([0])),
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2, 9, 3]), ns.ones(5, 2), ns.tensor([0, 1])),
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2, -1]), ns.ones(5, 2), ns.tensor([0, 1])),
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2, 3]), ns.ones(5, 2), ns.tensor([1, 2])),
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2, 3], dtype=ns.int32), ns.ones(5, 2),
                                  ns.tensor([1, 2], dtype=ns.int32)),
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2, 3]), ns.ones(5, 2), ns.tensor([0, 4])),
    lambda ns, F: F.embedding_bag(ns.tensor([1.0, 2.0]), ns.ones(5, 2), ns.tensor([0])),
    lambda ns, F: F.embedding_bag(ns.tensor([1, 2]), ns.ones(5, 2), ns.tensor([0.0])),
])
def test_errors(call):
    with pytest.raises(Exception) as m:
        call(minitorch, MF)
    # torch numbers a bad index within its bag when its kernel runs on more
    # than one thread (over the whole input on one): compared as on several
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with pytest.raises(Exception) as t:
            call(torch, TF)
    finally:
        torch.set_num_threads(threads)
    assert type(m.value) is type(t.value)
    ours = str(m.value).replace("minitorch.", "torch.").replace("minitorch", "torch")
    assert ours == str(t.value)


def test_module():
    kwargs = dict(max_norm=2.0, norm_type=3, mode="sum", padding_idx=-2)
    m, t = mnn.EmbeddingBag(7, 3, **kwargs), torch.nn.EmbeddingBag(7, 3, **kwargs)
    assert repr(m) == repr(t)
    assert m.padding_idx == 5 and m.weight[5].abs().sum().item() == 0
    w = np.random.default_rng(0).standard_normal((7, 3))
    m = mnn.EmbeddingBag.from_pretrained(minitorch.tensor(w), mode="max")
    t = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(w), mode="max")
    assert m.weight.requires_grad is False
    np.testing.assert_allclose(m(minitorch.tensor([[1, 3], [6, 0]])).numpy(),
                               t(torch.tensor([[1, 3], [6, 0]])).numpy())
    assert_same_error(lambda ns, F: F.embedding_bag(ns.tensor([1]), ns.ones(5, 2),
                                                    ns.tensor([0]), padding_idx=9),
                      (minitorch, MF), (torch, TF))
