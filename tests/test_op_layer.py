"""The op layer runs below __torch_function__: derivative formulas call ops
in C, so modes and subclass handlers see `backward` and nothing inside it,
as torch's do; and double backward still records through those C calls."""
import pytest

import minitorch
from dispatch_log import recording_mode, recording_subclass
from minitorch.overrides import TorchFunctionMode

# Each builds a scalar loss from leaves that require grad; between them they
# reach formulas of the pointwise, reduction, linalg, shape, index and nn
# families.
LOSSES = {
    "mul_sum": lambda lib, x, w: (x * w).sum(),
    "exp_mean": lambda lib, x, w: (x.exp() / w.abs().add(1)).mean(),
    "matmul_relu": lambda lib, x, w: lib.relu(x.reshape(2, 3) @ w.reshape(3, 2)).pow(2).sum(),
    "softmax_xent": lambda lib, x, w: lib.nn.functional.cross_entropy(
        (x * w).reshape(2, 3), lib.tensor([0, 2])),
    "index_cumsum": lambda lib, x, w: (x[lib.tensor([0, 2, 2])].cumsum(0) * w[:3]).max(),
    "var_norm": lambda lib, x, w: x.var() + w.norm(),
}


def leaves(lib):
    x = lib.tensor([0.5, -1.25, 2.0, 0.75, -0.3, 1.1], requires_grad=True)
    w = lib.tensor([1.5, 0.25, -0.8, 2.2, 0.6, -1.4], requires_grad=True)
    return x, w


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_mode_sees_backward_and_nothing_inside_it(name):
    x, w = leaves(minitorch)
    loss = LOSSES[name](minitorch, x, w)
    log = []
    with recording_mode(TorchFunctionMode, log):
        loss.backward()
    assert log == ["backward"]
    assert x.grad is not None and w.grad is not None


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_grads_under_a_mode_equal_grads_without_one(name):
    x, w = leaves(minitorch)
    LOSSES[name](minitorch, x, w).backward()
    plain = (x.grad.clone(), w.grad.clone())
    x2, w2 = leaves(minitorch)
    with recording_mode(TorchFunctionMode, []):
        LOSSES[name](minitorch, x2, w2).backward()
    assert minitorch.equal(x2.grad, plain[0]) and minitorch.equal(w2.grad, plain[1])


def test_subclass_handler_is_not_called_from_inside_backward():
    x, w = leaves(minitorch)
    calls = []
    xs = x.as_subclass(recording_subclass(minitorch, calls))
    loss = (xs * w).exp().sum()
    calls.clear()
    loss.backward()
    assert calls == ["backward"]
    assert minitorch.allclose(x.grad, (x * w).exp().detach() * w.detach())


def test_double_backward_through_c_formulas_matches_analytic():
    x = minitorch.tensor([0.5, -1.5, 2.0], dtype=minitorch.float64, requires_grad=True)
    log = []
    with recording_mode(TorchFunctionMode, log):
        g, = minitorch.autograd.grad((x ** 3).sin().sum(), x, create_graph=True)
    # the forward ops and the call of grad, nothing grad runs inside
    assert log == ["__pow__", "sin", "sum", "grad"]
    gg, = minitorch.autograd.grad(g.sum(), x)
    expected = 6 * x * (x ** 3).cos() - 9 * x ** 4 * (x ** 3).sin()
    assert minitorch.allclose(gg, expected.detach())


def test_gradgradcheck_under_a_logging_mode():
    x = minitorch.tensor([[0.3, -0.7], [1.2, 0.4]], dtype=minitorch.float64, requires_grad=True)
    w = minitorch.tensor([[0.9, 0.1], [-0.5, 1.3]], dtype=minitorch.float64, requires_grad=True)

    def fn(a, b):
        return (a @ b).tanh().logsumexp(1)

    with recording_mode(TorchFunctionMode, []):
        assert minitorch.autograd.gradcheck(fn, (x, w))
        assert minitorch.autograd.gradgradcheck(fn, (x, w))


def test_torch_agrees_on_what_a_mode_sees_during_backward():
    torch = pytest.importorskip("torch")
    from torch.overrides import TorchFunctionMode as TorchMode

    for name in ("mul_sum", "exp_mean", "softmax_xent"):
        x, w = leaves(torch)
        loss = LOSSES[name](torch, x, w)
        log = []
        with recording_mode(TorchMode, log):
            loss.backward()
        assert log == ["backward"], name
