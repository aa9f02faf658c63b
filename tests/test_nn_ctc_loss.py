"""F.ctc_loss and nn.CTCLoss against torch: padded and concatenated targets,
lists and tensors of lengths, empty targets, repeated labels, short inputs,
impossible alignments with and without zero_infinity, every reduction, the
unbatched form, blank elsewhere than 0; float64 gradients (torch's formula);
argument errors."""
import numpy as np
import pytest

import minitorch
import minitorch.nn as mnn
import minitorch.nn.functional as MF
from torch_error_helpers import assert_same_error

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _run(F, ns, lp, targets, il, tl, as_tensors, **kwargs):
    x = ns.tensor(lp, requires_grad=True)
    lengths = (ns.tensor(il), ns.tensor(tl)) if as_tensors else (il, tl)
    out = F.ctc_loss(x, ns.tensor(targets), *lengths, **kwargs)
    out.backward(ns.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape))))
    return out.detach().numpy(), x.grad.numpy()


CASES = [  # (T, N, C, input_lengths, target_lengths, repeated labels)
    (12, 4, 6, [12, 10, 12, 7], [5, 3, 0, 4], False),
    (8, 3, 5, [8, 8, 8], [3, 3, 3], True),
    (6, 2, 4, [6, 3], [5, 2], True),  # the first cannot align: inf
    (1, 2, 3, [1, 1], [1, 0], False),
]


@pytest.mark.parametrize("T,N,C,il,tl,repeat", CASES)
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("concatenated", [False, True])
def test_against_torch(T, N, C, il, tl, repeat, reduction, zero_infinity, concatenated):
    rng = np.random.default_rng(0)
    lp = torch.randn(T, N, C, dtype=torch.float64).log_softmax(2).numpy()
    labels = rng.integers(1, C, (N, max(tl) + 1))
    if repeat:
        labels[:, 1] = labels[:, 0]
    targets = np.concatenate([labels[n, :tl[n]] for n in range(N)]) if concatenated else labels
    kwargs = dict(reduction=reduction, zero_infinity=zero_infinity)
    for as_tensors in (False, True):
        ours = _run(MF, minitorch, lp, targets, il, tl, as_tensors, **kwargs)
        theirs = _run(TF, torch, lp, targets, il, tl, as_tensors, **kwargs)
        if not zero_infinity and not np.isfinite(theirs[0]).all():
            np.testing.assert_array_equal(ours[0], theirs[0])
            continue
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("blank", [0, 3])
def test_unbatched_float32_blank_and_module(blank):
    lp = torch.randn(9, 5).log_softmax(1).numpy()
    targets = np.array([1, 2, 2, 0]) if blank == 3 else np.array([1, 2, 2, 4])
    for reduction in ("none", "mean"):
        m = mnn.CTCLoss(blank=blank, reduction=reduction)
        t = torch.nn.CTCLoss(blank=blank, reduction=reduction)
        got = m(minitorch.tensor(lp), minitorch.tensor(targets), [9], [4])
        want = t(torch.tensor(lp), torch.tensor(targets), [9], [4])
        assert tuple(got.shape) == tuple(want.shape) and str(got.dtype) == "minitorch.float32"
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)


@pytest.mark.parametrize("call", [
    lambda ns, F: F.ctc_loss(ns.zeros(5, 2, 4), ns.ones(2, 3, dtype=ns.int64), [5, 5], [3, 3],
                             blank=4),
    lambda ns, F: F.ctc_loss(ns.zeros(5, 2, 4), ns.ones(2, 3, dtype=ns.int64), [5], [3, 3]),
    lambda ns, F: F.ctc_loss(ns.zeros(5, 2, 4), ns.ones(2, 3, dtype=ns.int64), [5, 5], [3]),
    lambda ns, F: F.ctc_loss(ns.zeros(5, 2, 4), ns.ones(2, 3, dtype=ns.int64), [5, 5], [3, 3],
                             reduction="avg"),
    lambda ns, F: F.ctc_loss(ns.zeros(5, 2, 4), ns.ones(2, 2, dtype=ns.int64), [5, 5], [3, 3]),
    lambda ns, F: F.ctc_loss(ns.zeros(5, 2, 4), ns.ones(2, 3, dtype=ns.int64), [6, 5], [3, 3]),
])
def test_errors(call):
    assert_same_error(call, (minitorch, MF), (torch, TF))
