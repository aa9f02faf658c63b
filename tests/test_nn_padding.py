"""F.pad's reflect, replicate and circular modes and the padding modules against torch:
values, input gradients, printing and errors."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn as nn
import minitorch.nn.functional as F

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)

MODES = ["reflect", "replicate", "circular"]

CASES = [
    ((3, 5), (2, 1)), ((2, 3, 6), (0, 4)), ((2, 3, 6), (-1, 3)),
    ((3, 4, 5), (1, 2, 3, 0)), ((2, 2, 4, 5), (2, 1, -1, 3)), ((2, 2, 4, 5), (-2, -1, 2, -1)),
    ((2, 3, 4, 5), (1, 1, 2, 2, 0, 2)), ((2, 1, 3, 4, 5), (2, 0, 1, 3, 2, 1)),
    ((0, 2, 3, 3), (1, 1, 1, 1)),
]


def _pair(shape, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    return mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,pad", CASES)
def test_pad_values_and_gradients(mode, shape, pad, dtype):
    a, b = _pair(shape, dtype)
    ya, yb = F.pad(a, pad, mode=mode), torch.nn.functional.pad(b, pad, mode=mode)
    assert ya.detach().numpy().dtype == yb.detach().numpy().dtype
    np.testing.assert_array_equal(ya.detach().numpy(), yb.detach().numpy())
    up = RNG.standard_normal(tuple(yb.shape))
    ya.backward(mt.tensor(up.astype(dtype)))
    yb.backward(torch.tensor(up.astype(dtype)))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol, atol=tol)


def test_pad_hand_computed():
    x = mt.tensor([[[0.0, 1.0, 2.0, 3.0]]])
    assert F.pad(x, (2, 1), mode="reflect").tolist() == [[[2.0, 1.0, 0.0, 1.0, 2.0, 3.0, 2.0]]]
    assert F.pad(x, (2, 1), mode="replicate").tolist() == [[[0.0, 0.0, 0.0, 1.0, 2.0, 3.0,
                                                             3.0]]]
    assert F.pad(x, (2, 1), mode="circular").tolist() == [[[2.0, 3.0, 0.0, 1.0, 2.0, 3.0,
                                                            0.0]]]
    assert F.pad(x, (1, 1), mode="reflect", value=0.0).shape == (1, 1, 6)


BAD = [
    ((2, 3, 4), (4, 0), "reflect", {}), ((2, 3), (3, 0), "reflect", {}),
    ((1, 2, 3, 5), (1, 1, 3, 0), "reflect", {}), ((1, 2, 3, 5, 5), (1, 1, 1, 1, 3, 0),
                                                  "reflect", {}),
    ((4,), (1, 1), "reflect", {}), ((4,), (1, 1), "replicate", {}),
    ((1, 2, 3, 4, 5), (1, 1), "circular", {}), ((2, 3, 4), (5, 0), "circular", {}),
    ((3,), (1, 1, 1, 1), "reflect", {}), ((2, 3, 4), (1, 1, 1), "replicate", {}),
    ((2, 3, 4), (1, 1), "foo", {}), ((2, 3, 4), (1, 1), "reflect", {"value": 1.0}),
    ((2, 0, 3), (1, 1), "reflect", {}), ((2, 3, 0), (1, 1), "replicate", {}),
    ((1, 1, 3, 1, 1), (0, 0, 0, 3, 0, 0), "reflect", {}),
    ((1, 1, 3, 1, 1), (0, 3, 0, 0, 0, 0), "reflect", {}),
    ((2, 0, 3, 3), (1, 1, 1, 1), "reflect", {}), ((2, 2, 0, 3, 3), (1,) * 6, "replicate", {}),
]


@pytest.mark.parametrize("shape,pad,mode,kw", BAD)
def test_pad_errors_match_torch(shape, pad, mode, kw):
    with pytest.raises(Exception) as expected:
        torch.nn.functional.pad(torch.zeros(shape), pad, mode=mode, **kw)
    with pytest.raises(expected.type) as got:
        F.pad(mt.zeros(shape), pad, mode=mode, **kw)
    assert str(got.value) == str(expected.value)


MODULES = [
    ("ReflectionPad1d", (2,), (2, 3, 5)), ("ReflectionPad2d", ((1, 2, 0, 3),), (1, 2, 4, 5)),
    ("ReflectionPad3d", (1,), (1, 2, 3, 3, 3)), ("ReplicationPad1d", ((3, 1),), (3, 4)),
    ("ReplicationPad2d", (2,), (2, 3, 3)), ("ReplicationPad3d", (1,), (1, 1, 2, 3, 4)),
    ("CircularPad1d", (2,), (2, 3, 5)), ("CircularPad2d", ((1, 0, 2, 1),), (1, 2, 4, 5)),
    ("CircularPad3d", (1,), (1, 2, 3, 3, 3)), ("ConstantPad1d", (2, 3.5), (2, 3, 5)),
    ("ConstantPad2d", ((1, 0, 2, 1), -1.0), (1, 2, 4, 5)), ("ConstantPad3d", (1, 0), (2, 2, 2, 2)),
    ("ZeroPad1d", ((0, 2),), (3, 4)), ("ZeroPad2d", (1,), (1, 2, 3)),
    ("ZeroPad3d", (1,), (1, 2, 2, 2)),
]


@pytest.mark.parametrize("name,args,shape", MODULES, ids=[m[0] for m in MODULES])
def test_modules_print_and_compute_as_torch(name, args, shape):
    m, t = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(m) == repr(t)
    a, b = _pair(shape, np.float64)
    np.testing.assert_array_equal(m(a).detach().numpy(), t(b).detach().numpy())
