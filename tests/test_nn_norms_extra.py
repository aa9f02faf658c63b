"""RMSNorm, InstanceNorm1d/2d/3d and their functional forms against torch: values,
gradients, running statistics, printing and errors."""
import warnings

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from test_nn_attention import same_error
from test_nn_grads import check, rand

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("make, shape", [
    (lambda n: n.RMSNorm(5), (3, 5)),
    (lambda n: n.RMSNorm([4, 5], eps=1e-3), (2, 4, 5)),
    (lambda n: n.RMSNorm((5,), elementwise_affine=False), (2, 3, 5)),
    (lambda n: n.RMSNorm(5), (5,)),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rms_norm_module(make, shape, dtype):
    tol = {"atol": 1e-5, "rtol": 1e-5} if dtype == np.float32 else {}
    m, t = check(make, rand(*shape), dtype=dtype, **tol)
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())


def test_rms_norm_functional():
    check(lambda n: n.functional.rms_norm, rand(2, 3, 4), rand(4),
          call=lambda f, x, w: f(x, [4], w))
    check(lambda n: n.functional.rms_norm, rand(2, 3, 4),
          call=lambda f, x: f(x, (3, 4), eps=0.5))
    # eps=None is the dtype's machine epsilon, which dominates tiny inputs
    for dtype in (np.float32, np.float64):
        x = np.full((2, 3), 1e-5, dtype=dtype)
        a = F.rms_norm(mt.tensor(x), [3]).numpy()
        b = torch.nn.functional.rms_norm(torch.tensor(x), [3]).numpy()
        np.testing.assert_allclose(a, b, rtol=1e-6)


INSTANCE = [
    ("InstanceNorm1d", (2, 3, 6)), ("InstanceNorm1d", (3, 6)), ("InstanceNorm2d", (2, 3, 4, 5)),
    ("InstanceNorm2d", (3, 4, 5)), ("InstanceNorm3d", (2, 3, 2, 3, 4)),
]


@pytest.mark.parametrize("name, shape", INSTANCE)
@pytest.mark.parametrize("kw", [{}, {"affine": True}, {"track_running_stats": True},
                                {"affine": True, "track_running_stats": True, "momentum": None},
                                {"affine": True, "bias": False, "eps": 1e-3}], ids=str)
def test_instance_norm_modules(name, shape, kw):
    def make(n):
        return getattr(n, name)(3, **kw)
    x = rand(*shape)
    m, t = check(make, x)
    assert repr(m) == repr(t)
    for key, value in t.state_dict().items():
        np.testing.assert_allclose(m.state_dict()[key].numpy(), value.numpy(), rtol=1e-6)
    if kw.get("track_running_stats"):
        m.eval()
        t.eval()
        a = m(mt.tensor(x))
        b = t(torch.tensor(x))
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-8)


def test_instance_norm_functional():
    x = rand(2, 3, 5)
    check(lambda n: n.functional.instance_norm, x, rand(3), rand(3),
          call=lambda f, x, w, b: f(x, weight=w, bias=b, eps=1e-3))
    rm_a, rv_a = mt.zeros(3, dtype=mt.float64), mt.ones(3, dtype=mt.float64)
    rm_b, rv_b = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    a = F.instance_norm(mt.tensor(x), rm_a, rv_a, momentum=0.3)
    b = torch.nn.functional.instance_norm(torch.tensor(x), rm_b, rv_b, momentum=0.3)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10)
    np.testing.assert_allclose(rm_a.numpy(), rm_b.numpy(), rtol=1e-10)
    np.testing.assert_allclose(rv_a.numpy(), rv_b.numpy(), rtol=1e-10)
    a = F.instance_norm(mt.tensor(x), rm_a, rv_a, use_input_stats=False)
    b = torch.nn.functional.instance_norm(torch.tensor(x), rm_b, rv_b, use_input_stats=False)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10)


def test_instance_norm_feature_mismatch_warns():
    for lib in (mt, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.InstanceNorm1d(5)(lib.zeros(3, 4) + 1)
        assert "does not match num_features" in str(w[0].message)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3, 4), [5]),
    lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3, 4), [3, 5]),
    lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3, 4), 4),
    lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3, 4), [4], lib.ones(3)),
    lambda lib: lib.nn.functional.instance_norm(lib.zeros(3, 4)),
    lambda lib: lib.nn.functional.instance_norm(lib.zeros(2, 3, 1)),
    lambda lib: lib.nn.functional.instance_norm(lib.zeros(2, 3, 4), lib.zeros(4),
                                                lib.ones(4)),
    lambda lib: lib.nn.functional.instance_norm(lib.zeros(2, 3, 4), use_input_stats=False),
    lambda lib: lib.nn.InstanceNorm1d(3)(lib.zeros(4)),
    lambda lib: lib.nn.InstanceNorm2d(3)(lib.zeros(3, 4)),
    lambda lib: lib.nn.InstanceNorm3d(3)(lib.zeros(3, 4)),
    lambda lib: lib.nn.InstanceNorm1d(5, affine=True)(lib.zeros(3, 4)),
])
def test_errors(call):
    same_error(call)
