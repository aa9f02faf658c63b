"""differentiable=True against torch: the optimizers step non-leaf parameters
inside autograd, so that after a few steps the gradient of a loss of the
stepped parameters reaches the leaves they were cloned from, tensor
hyperparameters that require grad (lr, betas) and gradients made with
create_graph; values and gradients compared, for each optimizer over several
configurations. Where torch's own differentiable update cannot be
differentiated (an in-place write to a buffer a previous step saved for
backward), minitorch raises the same error."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

CONFIGS = [
    ("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "nesterov": True, "maximize": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.3}),
    ("Adam", {"lr": 0.05}), ("Adam", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.05, "maximize": True, "betas": (0.8, 0.9)}),
    ("AdamW", {"lr": 0.05}), ("AdamW", {"lr": 0.05, "amsgrad": True}),
    ("Adagrad", {"lr": 0.1}), ("Adagrad", {"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.1}),
    ("Adamax", {"lr": 0.1}), ("Adamax", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("ASGD", {"lr": 0.1}), ("ASGD", {"lr": 0.1, "t0": 1, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.1}), ("NAdam", {"lr": 0.1, "weight_decay": 0.1,
                                       "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.1}), ("RAdam", {"lr": 0.1, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.05}), ("RMSprop", {"lr": 0.05, "momentum": 0.5, "centered": True}),
    ("RMSprop", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    ("Rprop", {"lr": 0.05}), ("Rprop", {"lr": 0.05, "maximize": True, "etas": (0.3, 1.5)}),
    ("Adadelta", {"lr": 0.5}), ("Adadelta", {"lr": 0.5, "rho": 0.5, "weight_decay": 0.1}),
]
STEPS = 12  # enough for RAdam's rectified branch


def _agree(run):
    """run(lib) for both libraries: the same results, or the same exception
    type where torch raises."""
    try:
        want = run(torch)
    except Exception as e:  # noqa: BLE001 - the oracle's failure is the expectation
        with pytest.raises(type(e)):
            run(mt)
        return None, None
    return run(mt), want


def _run(lib, name, kwargs, x, g, w):
    leaf = lib.tensor(x, requires_grad=True)
    p = leaf.clone()
    opt = getattr(lib.optim, name)([p], differentiable=True, **kwargs)
    for k in range(STEPS):
        p.grad = lib.tensor(g[k])
        opt.step()
    (p * lib.tensor(w)).sum().backward()
    return p.detach().numpy(), leaf.grad.numpy()


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=[f"{n}{k}" for n, k in CONFIGS])
@pytest.mark.parametrize("shape", [(3, 2), (5,)])
def test_gradient_reaches_the_leaf(name, kwargs, shape):
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal(shape), rng.standard_normal(shape)
    g = rng.standard_normal((STEPS,) + shape)
    got, want = _agree(lambda lib: _run(lib, name, kwargs, x, g, w))
    if want is not None:
        np.testing.assert_allclose(got[0], want[0], rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("name,kwargs", [("SGD", {}), ("SGD", {"momentum": 0.9}),
                                         ("Adam", {}), ("Adam", {"amsgrad": True})])
def test_gradient_reaches_a_tensor_lr(name, kwargs):
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((4,)), rng.standard_normal((4,))
    g = rng.standard_normal((3, 4))

    def run(lib):
        lr = lib.tensor(0.05, dtype=lib.float64, requires_grad=True)
        p = lib.tensor(x, requires_grad=True).clone()
        opt = getattr(lib.optim, name)([p], lr=lr, differentiable=True, **kwargs)
        for k in range(3):
            p.grad = lib.tensor(g[k])
            opt.step()
        (p * lib.tensor(w)).sum().backward()
        return p.detach().numpy(), lr.grad.item()
    got, want = _agree(run)
    if want is not None:
        np.testing.assert_allclose(got[0], want[0], rtol=1e-10)
        assert got[1] == pytest.approx(want[1], rel=1e-8)


def test_gradient_reaches_adam_betas():
    rng = np.random.default_rng(3)
    x, w, g = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal((4, 3))
    got = []
    for lib in (mt, torch):
        betas = (lib.tensor(0.9, dtype=lib.float64, requires_grad=True),
                 lib.tensor(0.99, dtype=lib.float64, requires_grad=True))
        p = lib.tensor(x, requires_grad=True).clone()
        opt = lib.optim.Adam([p], lr=0.1, betas=betas, differentiable=True)
        for k in range(4):
            p.grad = lib.tensor(g[k])
            opt.step()
        (p * lib.tensor(w)).sum().backward()
        got.append([p.detach().numpy()] + [b.grad.item() for b in betas])
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-6)
    np.testing.assert_allclose(got[0][1:], got[1][1:], rtol=1e-4)


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad", "RMSprop", "Rprop"])
@pytest.mark.parametrize("steps", [1, 2])
def test_gradient_through_a_create_graph_gradient(name, steps):
    x = np.random.default_rng(4).standard_normal(3)

    def run(lib):
        leaf = lib.tensor(x, requires_grad=True)
        p = leaf.clone()
        opt = getattr(lib.optim, name)([p], lr=0.1, differentiable=True)
        for _ in range(steps):
            (gp,) = lib.autograd.grad((p ** 3).sum(), p, create_graph=True)
            p.grad = gp
            opt.step()
        p.sum().backward()
        return p.detach().numpy(), leaf.grad.numpy()
    got, want = _agree(run)
    if want is not None:
        np.testing.assert_allclose(got[0], want[0], rtol=1e-10)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-8)


@pytest.mark.parametrize("name", ["SGD", "Adam", "Rprop", "ASGD"])
def test_without_differentiable_nothing_is_recorded(name):
    leaf = mt.ones(3, requires_grad=True)
    p = mt.nn.Parameter(leaf.detach().clone())
    opt = getattr(mt.optim, name)([p], lr=0.1)
    p.grad = mt.ones(3)
    opt.step()
    assert p.is_leaf and p.grad_fn is None
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        getattr(mt.optim, name)([leaf.clone()], lr=0.1)
