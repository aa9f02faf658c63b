"""The Python-level activations, distances and their modules against torch:
values, gradients (at the kinks too), printing and errors."""
import re

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck

torch = pytest.importorskip("torch")

# values around every kink: 0, +-lambd (0.5), +-1, +-3, 6
KINKS = np.array([-7.0, -3.0, -2.5, -1.0, -0.5, -0.2, 0.0, 0.3, 0.5, 1.0, 2.9, 3.0, 3.5, 6.0, 8.0])

CALLS = [
    ("elu", (), {}), ("elu", (0.4,), {}), ("selu", (), {}), ("celu", (), {"alpha": 2.0}),
    ("relu6", (), {}), ("hardtanh", (), {}), ("hardtanh", (-2.0, 3.0), {}),
    ("hardsigmoid", (), {}), ("hardswish", (), {}), ("mish", (), {}), ("logsigmoid", (), {}),
    ("softsign", (), {}), ("softshrink", (), {}), ("softshrink", (1.0,), {}),
    ("hardshrink", (), {}), ("tanhshrink", (), {}), ("threshold", (0.3, -5.0), {}),
    ("glu", (), {}), ("glu", (0,), {}), ("softmin", (1,), {}),
    ("normalize", (), {}), ("normalize", (1.0, 0), {}),
]


def _pair(values, shape):
    x = np.asarray(values, np.float64).reshape(shape)
    return mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)


@pytest.mark.parametrize("name,args,kwargs", CALLS, ids=[f"{c[0]}{c[1]}" for c in CALLS])
def test_matches_torch_with_gradients(name, args, kwargs):
    a, b = _pair(np.concatenate([KINKS, -KINKS[::-1] * 0.7, [0.1, 0.2]]), (4, 8))
    ya = getattr(mt.nn.functional, name)(a, *args, **kwargs)
    yb = getattr(torch.nn.functional, name)(b, *args, **kwargs)
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-12, atol=1e-14)
    up = np.random.default_rng(0).standard_normal(tuple(yb.shape))
    ya.backward(mt.tensor(up))
    yb.backward(torch.tensor(up))
    # torch's hardsigmoid gradient multiplies by a float32 1/6
    rtol = 1e-7 if name == "hardsigmoid" else 1e-12
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=1e-14)


@pytest.mark.parametrize("name", ["elu", "selu", "celu", "relu6", "hardtanh", "hardsigmoid",
                                  "hardswish", "mish", "threshold"])
def test_inplace_forms(name):
    args = (0.3, -5.0) if name == "threshold" else ()
    x = np.linspace(-4, 4, 9)
    a, b = mt.tensor(x), torch.tensor(x)
    ra = getattr(mt.nn.functional, name)(a, *args, inplace=True)
    rb = getattr(torch.nn.functional, name)(b, *args, inplace=True)
    assert ra is a and rb is b
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_smooth_ones_pass_gradcheck():
    x = mt.tensor(np.random.default_rng(1).standard_normal((3, 4)), requires_grad=True)
    F = mt.nn.functional
    for f in (F.elu, F.selu, F.mish, F.logsigmoid, F.softsign, F.tanhshrink, F.glu,
              lambda t: F.softmin(t, 1), F.normalize):
        assert gradcheck(f, (x,))


@pytest.mark.parametrize("shapes,kw", [(((4, 5), (4, 5)), {}), (((3, 1, 4), (2, 4)), {"dim": -1}),
                                       (((5,), (5,)), {"dim": 0})])
def test_cosine_similarity(shapes, kw):
    rng = np.random.default_rng(2)
    x1, x2 = (rng.standard_normal(s) for s in shapes)
    x2.reshape(-1)[:2] = 0.0
    a = [mt.tensor(x, requires_grad=True) for x in (x1, x2)]
    b = [torch.tensor(x, requires_grad=True) for x in (x1, x2)]
    ya, yb = mt.nn.functional.cosine_similarity(*a, **kw), torch.nn.functional.cosine_similarity(*b, **kw)
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-12, atol=1e-14)
    ya.sum().backward()
    yb.sum().backward()
    for p, q in zip(a, b):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kw", [{}, {"p": 1.0}, {"p": 3.0, "keepdim": True}, {"eps": 0.0}])
def test_pairwise_distance(kw):
    rng = np.random.default_rng(3)
    x1, x2 = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    a, b = mt.tensor(x1, requires_grad=True), torch.tensor(x1, requires_grad=True)
    ya = mt.nn.functional.pairwise_distance(a, mt.tensor(x2), **kw)
    yb = torch.nn.functional.pairwise_distance(b, torch.tensor(x2), **kw)
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-12)
    ya.sum().backward()
    yb.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10)


MODULES = [
    ("ELU", (), {}), ("ELU", (0.5, True), {}), ("CELU", (), {"alpha": 2.0}), ("SELU", (True,), {}),
    ("ReLU6", (), {}), ("ReLU6", (True,), {}), ("Hardtanh", (-2.0, 2.0), {}),
    ("Hardtanh", (), {"inplace": True}), ("Hardsigmoid", (), {}), ("Hardswish", (), {}),
    ("Mish", (), {}), ("LogSigmoid", (), {}), ("Softsign", (), {}), ("Softshrink", (0.3,), {}),
    ("Hardshrink", (), {}), ("Tanhshrink", (), {}), ("Threshold", (0.1, 20.0), {}),
    ("Threshold", (0.1, 20), {"inplace": True}), ("GLU", (), {}), ("GLU", (0,), {}),
    ("Softmin", (), {"dim": 1}), ("Softplus", (), {}), ("Softplus", (2.0, 10.0), {}),
]


@pytest.mark.parametrize("name,args,kwargs", MODULES, ids=[f"{m[0]}{m[1]}{m[2]}" for m in MODULES])
def test_modules_print_and_compute_as_torch(name, args, kwargs):
    ma, mb = getattr(mt.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ma) == repr(mb)
    x = np.linspace(-4, 4, 24).reshape(4, 6)
    np.testing.assert_allclose(ma(mt.tensor(x)).numpy(), mb(torch.tensor(x)).numpy(), rtol=1e-12)


def test_distance_modules():
    rng = np.random.default_rng(4)
    x1, x2 = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    for name, kw in [("CosineSimilarity", {"dim": 0}), ("PairwiseDistance", {"p": 1.0})]:
        ma, mb = getattr(mt.nn, name)(**kw), getattr(torch.nn, name)(**kw)
        assert repr(ma) == repr(mb)
        np.testing.assert_allclose(ma(mt.tensor(x1), mt.tensor(x2)).numpy(),
                                   mb(torch.tensor(x1), torch.tensor(x2)).numpy(), rtol=1e-12)


def test_errors():
    F = mt.nn.functional
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is "
                                           "size 3"):
        F.glu(mt.ones(2, 3))
    with pytest.raises(RuntimeError, match=re.escape(
            "lambda must be in range [0, 3.40282e+38] for input dtype Float, but found -1")):
        F.softshrink(mt.ones(2), -1.0)
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(mt.ones(2), 2.0, 1.0)
    with pytest.raises(TypeError, match=re.escape(
            "Threshold.__init__() missing 2 required positional arguments: 'threshold' and "
            "'value'")):
        mt.nn.Threshold()
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpha'"):
        mt.nn.SELU(alpha=1.0)
    with pytest.raises(AssertionError):  # torch asserts max_val > min_val
        mt.nn.Hardtanh(1.0, -1.0)


def test_dispatch_to_torch_function():
    class Logged(mt.Tensor):
        seen = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = mt.ones(2, 4).as_subclass(Logged)
    y = mt.nn.functional.mish(x)
    assert "mish" in Logged.seen and isinstance(y, Logged)


def test_broadcast_shapes_and_tensors():
    for shapes in [((2, 1), (3,), (1, 1, 1)), ((5,), ()), (4, (2, 1))]:
        assert tuple(mt.broadcast_shapes(*shapes)) == tuple(torch.broadcast_shapes(*shapes))
    for shapes in [((2, 3), (4, 1), (5,)), ((2, 3), (3, 2))]:
        with pytest.raises(RuntimeError) as ours:
            mt.broadcast_shapes(*shapes)
        with pytest.raises(RuntimeError) as theirs:
            torch.broadcast_shapes(*shapes)
        assert str(ours.value) == str(theirs.value)
    a, b = mt.broadcast_tensors(mt.arange(3.0).reshape(3, 1), mt.arange(4.0))
    assert a.shape == b.shape == (3, 4) and a.data_ptr() == a._base.data_ptr()
    np.testing.assert_array_equal(b.numpy(), np.broadcast_to(np.arange(4.0), (3, 4)))
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(4\) at non-singleton dimension 0"):
        mt.broadcast_tensors(mt.ones(3), mt.ones(4))
