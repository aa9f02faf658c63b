import numpy as np
import pytest

from autograd_check import check

torch = pytest.importorskip("torch")
R = np.random.default_rng(2).standard_normal
X = (4, 5, 6)

CASES = [
    (lambda m, x: x.narrow(1, 1, 3), "SliceBackward0"),
    (lambda m, x: x.select(1, -2), "SelectBackward0"),
    (lambda m, x: x.unbind(1), "UnbindBackward0"),
    (lambda m, x: x.split(2, 1), "SplitBackward0"),
    (lambda m, x: x.split([2, 3], 1), "SplitWithSizesBackward0"),
    (lambda m, x: x.chunk(3, 2), "SplitBackward0"),
    (lambda m, x: x.diagonal(1, 0, 2), "DiagonalBackward0"),
    (lambda m, x: x.movedim(0, 2), "PermuteBackward0"),
    (lambda m, x: x.moveaxis([0, 1], [2, 0]), "PermuteBackward0"),
    (lambda m, x: x.swapaxes(0, 1), "TransposeBackward0"),
    (lambda m, x: x.swapdims(2, 1), "TransposeBackward0"),
    (lambda m, x: x.as_strided((3, 4), (2, 5), 1), "AsStridedBackward0"),
    (lambda m, x: x.flatten(1), "ViewBackward0"),
    (lambda m, x: x.unflatten(2, (2, 3)), "ViewBackward0"),
    (lambda m, x: x[:, :1].squeeze(1), "SqueezeBackward1"),
    (lambda m, x: x[:1, :1].squeeze((0, 1)), "SqueezeBackward2"),
    (lambda m, x: x[:, :1].squeeze(), "SqueezeBackward0"),
    (lambda m, x: x[0].adjoint(), "TransposeBackward0"),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_views(case):
    f, name = CASES[case]
    check(torch, f, R(X), name=name, double=case % 3 == 0)


# Data movement built from copies: gradients and grad_fn names as torch's.
COPIES = [
    (lambda m, x: m.hstack([x, x[:, :1]]), "CatBackward0"),
    (lambda m, x: m.hstack([x[0], x[1, :2], x[2, 0]]), "CatBackward0"),
    (lambda m, x: m.vstack([x[0], x]), "CatBackward0"),
    (lambda m, x: m.row_stack([x, x]), "CatBackward0"),
    (lambda m, x: m.diag(x[0], 1), "DiagEmbedBackward0"),
    (lambda m, x: m.diag(x, -1), "DiagonalBackward0_copy"),
    (lambda m, x: m.diag(x[:, :2], 1), "DiagonalBackward0_copy"),
    (lambda m, x: m.nn.functional.pad(x, (1, -1)), "ConstantPadNdBackward0"),
    (lambda m, x: m.nn.functional.pad(x, (2, 0, -1, 3), value=3.0), "ConstantPadNdBackward0"),
    (lambda m, x: x.repeat_interleave(2, 0), "ViewBackward0"),
    (lambda m, x: x.repeat_interleave(3), "ViewBackward0"),
    (lambda m, x: x.repeat_interleave(m.tensor([1, 0, 2]), 1), "IndexSelectBackward0"),
]


@pytest.mark.parametrize("case", range(len(COPIES)))
def test_copies(case):
    f, name = COPIES[case]
    check(torch, f, R((3, 3)), name=name, double=True)


def test_unused_outputs_and_noncontiguous():
    check(torch, lambda m, x: x.split(2, 1)[1], R((5, 4)).T.copy(), transpose=(0,))
    check(torch, lambda m, x: x.unbind(0)[2] * 3, R((4, 3)))
    check(torch, lambda m, x: x.t().narrow(0, 1, 2), R((4, 3)), transpose=(0,))


def test_view_dtype_and_copy():
    x = __import__("minitorch").randn(3, dtype=__import__("minitorch").float64,
                                      requires_grad=True)
    assert x.view(__import__("minitorch").int64).grad_fn is None

    def f(m, base, src):
        y = base * 1
        y.copy_(src)
        return y * 2
    check(torch, f, R((3, 4)), R((4,)))
    mt = __import__("minitorch")
    y = mt.ones(2, dtype=mt.float64, requires_grad=True) * 1
    y.copy_(mt.zeros(2, dtype=mt.float64, requires_grad=True))
    assert type(y.grad_fn).__name__ == "CopyBackwards"
