"""Tensor.data as torch's untracked alias, compared with torch: it shares the
memory but has no history and its own version counter, so writes through it
(and through its views) between forward and backward do not trip autograd's
in-place check; ``x.data = y`` replaces the values, shape and dtype."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

LIBS = [mt, torch]


def leaf(lib, shape=(3,), seed=0, dtype="float32"):
    data = np.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=True)


def test_data_is_a_detached_alias():
    seen = []
    for lib in LIBS:
        w = leaf(lib)
        d = w.data
        d[0] = 5.0
        seen.append((d.requires_grad, d.grad_fn is None, d.is_leaf, type(d).__name__,
                     w.detach().numpy()[0], d.data_ptr() == w.data_ptr()))
    assert seen[0][:3] == seen[1][:3] == (False, True, True)
    assert seen[0][4] == seen[1][4] == 5.0
    assert seen[0][5] and seen[1][5]


@pytest.mark.parametrize("write", ["mul_", "add_", "view_fill", "index", "copy_", "zero_"])
@pytest.mark.parametrize("shape", [(3,), (2, 3)])
def test_writes_through_data_between_forward_and_backward(write, shape):
    seen = []
    for lib in LIBS:
        w = leaf(lib, shape)
        x = leaf(lib, shape, seed=1).detach()
        y = (w * x).sin() * w.exp()  # saves w (as input and via exp's output)
        v0 = w._version
        if write == "mul_":
            w.data.mul_(7)
        elif write == "add_":
            w.data.add_(1.5)
        elif write == "view_fill":
            w.data.view(-1)[0:1].fill_(2.0)
        elif write == "index":
            w.data[0] = 3.0
        elif write == "copy_":
            w.data.copy_(lib.ones(shape))
        else:
            w.data.zero_()
        y.sum().backward()
        seen.append((w._version - v0, w.grad.numpy(), w.detach().numpy()))
    assert seen[0][0] == seen[1][0] == 0
    np.testing.assert_allclose(seen[0][1], seen[1][1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(seen[0][2], seen[1][2], rtol=1e-6)


def test_write_to_the_tensor_itself_is_still_tracked():
    messages = []
    for lib in LIBS:
        w = leaf(lib)
        y = w.sin()  # saves w itself
        with lib.no_grad():
            w.mul_(2)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        messages.append(str(e.value).replace("minitorch.", "torch."))
    assert messages[0].split("Hint")[0] == messages[1].split("Hint")[0]


def test_data_saved_then_written_through_itself_is_caught():
    for lib in LIBS:
        a = leaf(lib)
        d = leaf(lib, seed=1).data
        y = a * d  # saves d
        d.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_custom_function_returning_its_input_then_data_write():
    seen = []
    for lib in LIBS:
        class Identity(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        w = leaf(lib)
        z = w * 2
        y = Identity.apply(z)
        out = (y * y).sum()
        y.data.mul_(3)
        out.backward()
        seen.append(w.grad.numpy())
    np.testing.assert_allclose(seen[0], seen[1], rtol=1e-6)


def test_parameter_update_loop_through_data():
    seen = []
    for lib in LIBS:
        w = leaf(lib, (4,))
        x = leaf(lib, (4,), seed=3).detach()
        losses = []
        for _ in range(3):
            loss = ((w * x).tanh() * w).sum()
            loss.backward()
            w.data.add_(w.grad, alpha=-0.1)
            w.grad = None
            losses.append(loss.item())
        seen.append((losses, w._version))
    np.testing.assert_allclose(seen[0][0], seen[1][0], rtol=1e-5)
    assert seen[0][1] == seen[1][1] == 0


@pytest.mark.parametrize("new", [((2,), "float64"), ((3, 2), "float32"), ((), "float64")])
def test_assigning_data_replaces_values_shape_and_dtype(new):
    shape, dtype = new
    seen = []
    for lib in LIBS:
        w = leaf(lib)
        w.data = lib.ones(shape, dtype=getattr(lib, dtype))
        seen.append((tuple(w.shape), str(w.dtype).split(".")[-1], w.requires_grad, w.is_leaf,
                     w.detach().numpy().tolist()))
    assert seen[0] == seen[1]


def test_assigning_integer_data_to_a_tensor_requiring_grad_is_refused():
    messages = []
    for lib in LIBS:
        w = leaf(lib)
        with pytest.raises(RuntimeError) as e:
            w.data = lib.ones(2, dtype=lib.int64)
        messages.append(str(e.value))
        plain = leaf(lib).detach()
        plain.data = lib.ones(2, dtype=lib.int64)
        assert plain.dtype == lib.int64
    assert messages[0] == messages[1]


def test_alias_and_tensor_count_their_own_writes():
    seen = []
    for lib in LIBS:
        w = leaf(lib)
        d = w.data
        steps = [(w._version, d._version)]
        d.add_(1)
        d[0] = 2.0
        steps.append((w._version, d._version))
        with lib.no_grad():
            w.mul_(3)
        steps.append((w._version, d._version))
        seen.append(steps)
    assert seen[0] == seen[1] == [(0, 0), (0, 2), (1, 2)]


def test_tensor_write_does_not_trip_a_graph_that_saved_its_alias():
    seen = []
    for lib in LIBS:
        a = leaf(lib)
        w = leaf(lib, seed=1)
        d = w.data
        y = a * d  # saves d
        with lib.no_grad():
            w.mul_(2)
        y.sum().backward()
        seen.append(a.grad.numpy())
    np.testing.assert_allclose(seen[0], seen[1], rtol=1e-6)
