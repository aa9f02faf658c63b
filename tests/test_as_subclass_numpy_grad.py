"""Tensor.as_subclass as an alias autograd records (AliasBackward0), and
Tensor.numpy()'s refusal of a tensor that requires grad only while grad mode
is on (unless force=True), compared with torch."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

LIBS = [mt, torch]


def leaf(lib, shape=(3,), requires_grad=True):
    data = np.random.default_rng(0).standard_normal(shape)
    return lib.tensor(data, dtype=lib.float32, requires_grad=requires_grad)


def subclass(lib):
    class Sub(lib.Tensor):
        pass
    return Sub


@pytest.mark.parametrize("shape", [(3,), (2, 3), ()])
def test_as_subclass_of_a_leaf_is_a_recorded_alias(shape):
    seen = []
    for lib in LIBS:
        x = leaf(lib, shape)
        z = x.as_subclass(subclass(lib))
        info = (type(z).__name__, z.requires_grad, z.is_leaf, type(z.grad_fn).__name__,
                z.data_ptr() == x.data_ptr())
        (z * 3).sum().backward()
        (z.as_subclass(lib.Tensor) * 2).sum().backward()
        seen.append((info, x.grad.numpy()))
    assert seen[0][0] == seen[1][0] == ("Sub", True, False, "AliasBackward0", True)
    np.testing.assert_array_equal(seen[0][1], seen[1][1])


def test_as_subclass_of_a_non_leaf_and_chained():
    seen = []
    for lib in LIBS:
        Sub = subclass(lib)
        x = leaf(lib)
        y = (x * 2).as_subclass(Sub).as_subclass(lib.Tensor)
        (y.exp()).sum().backward()
        seen.append((type(y.grad_fn).__name__, x.grad.numpy()))
    assert seen[0][0] == seen[1][0]
    np.testing.assert_allclose(seen[0][1], seen[1][1], rtol=1e-6)


def test_as_subclass_without_grad():
    seen = []
    for lib in LIBS:
        Sub = subclass(lib)
        plain = leaf(lib, requires_grad=False).as_subclass(Sub)
        with lib.no_grad():
            quiet = leaf(lib).as_subclass(Sub)
        seen.append((plain.requires_grad, plain.grad_fn, plain.is_leaf,
                     quiet.requires_grad, quiet.grad_fn, quiet.is_leaf))
    assert seen[0] == seen[1] == (False, None, True, True, None, True)


def test_as_subclass_refuses_a_non_type():
    for lib in LIBS:
        with pytest.raises(TypeError):
            leaf(lib).as_subclass(3)


MESSAGE = ("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
           "instead.")


def test_numpy_refused_while_grad_mode_is_on():
    for lib in LIBS:
        x = leaf(lib)
        with pytest.raises(RuntimeError) as e:
            x.numpy()
        assert str(e.value) == MESSAGE
        with pytest.raises(RuntimeError):
            (x * 2).numpy()


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode", "set_grad_enabled", "force"])
def test_numpy_allowed(mode):
    seen = []
    for lib in LIBS:
        x = leaf(lib, (2, 3))
        if mode == "force":
            a = x.numpy(force=True)
        elif mode == "no_grad":
            with lib.no_grad():
                a = x.numpy()
        elif mode == "inference_mode":
            with lib.inference_mode():
                a = x.numpy()
        else:
            with lib.set_grad_enabled(False):
                a = x.numpy()
        a[0, 0] = 42.0  # the array shares the tensor's memory
        seen.append((a.shape, a.dtype, x.detach().numpy()[0, 0]))
    assert seen[0] == seen[1]
    assert seen[0][2] == 42.0


def test_numpy_force_on_plain_tensor_shares_memory():
    for lib in LIBS:
        x = leaf(lib, requires_grad=False)
        a = x.numpy(force=True)
        a[1] = -7.0
        assert x[1].item() == -7.0
