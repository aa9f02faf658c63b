"""autograd.graph.saved_tensors_hooks, disable_saved_tensors_hooks and
save_on_cpu compared with torch: pack/unpack call counts, the hook stack put
back whatever happens (exceptions, nesting, hooks entering or leaving contexts
during backward), the unpacked tensor keeping the original's history (double
backward), and torch's errors."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

LIBS = [mt, torch]


def counting(lib, pack_fn=None, unpack_fn=None):
    calls = {"pack": 0, "unpack": 0}

    def pack(x):
        calls["pack"] += 1
        return pack_fn(x) if pack_fn else x

    def unpack(x):
        calls["unpack"] += 1
        return unpack_fn(x) if unpack_fn else x

    return calls, lib.autograd.graph.saved_tensors_hooks(pack, unpack)


def assert_hooks_work(lib):
    """A fresh hooks context packs and unpacks exp's saved output once: the
    stack was left clean by whatever ran before."""
    calls, hooks = counting(lib)
    a = leaf(lib)
    with hooks:
        y = a.exp()
    y.sum().backward()
    assert calls == {"pack": 1, "unpack": 1}


def leaf(lib, shape=(3,), seed=0, dtype="float32"):
    data = np.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=True)


FORWARDS = {
    "mul_self": lambda lib, a: a * a,
    "exp": lambda lib, a: a.exp(),
    "tanh_sin": lambda lib, a: a.tanh().sin(),
    "mul_two": lambda lib, a: a * a.cos(),
    "matmul": lambda lib, a: a.reshape(-1, 1) @ a.reshape(1, -1),
    "pow": lambda lib, a: a.pow(3),
}


@pytest.mark.parametrize("name", sorted(FORWARDS))
@pytest.mark.parametrize("shape", [(3,), (2, 4)])
def test_pack_unpack_counts_and_grads(name, shape):
    seen = []
    for lib in LIBS:
        a = leaf(lib, shape)
        calls, hooks = counting(lib)
        with hooks:
            y = FORWARDS[name](lib, a)
        packed = calls["pack"]
        y.sum().backward()
        seen.append((packed, calls["unpack"], a.grad.detach().numpy()))
    assert seen[0][:2] == seen[1][:2]
    np.testing.assert_allclose(seen[0][2], seen[1][2], rtol=1e-5, atol=1e-6)


def test_hooks_compute_without_recording_and_see_grad_mode_off():
    seen = []
    for lib in LIBS:
        a = leaf(lib)
        info = []

        def pack(x):
            y = x * 2  # saves nothing, records nothing
            info.append((y.requires_grad, lib.is_grad_enabled()))
            return x

        with lib.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
            y = a * a
        y.sum().backward()
        seen.append((info, a.grad.tolist()))
    assert seen[0] == seen[1]
    assert seen[0][0] == [(False, False), (False, False)]


def test_innermost_hooks_apply_and_outer_come_back():
    seen = []
    for lib in LIBS:
        a = leaf(lib)
        outer_calls, outer = counting(lib)
        inner_calls, inner = counting(lib)
        with outer:
            y1 = a.exp()
            with inner:
                y2 = a.sin()
            y3 = a.cos()
        (y1 + y2 + y3).sum().backward()
        seen.append((dict(outer_calls), dict(inner_calls)))
    assert seen[0] == seen[1]
    assert seen[0] == ({"pack": 2, "unpack": 2}, {"pack": 1, "unpack": 1})


def test_exception_in_body_restores_stack():
    for lib in LIBS:
        calls, hooks = counting(lib)
        with pytest.raises(ValueError):
            with hooks:
                raise ValueError("x")
        a = leaf(lib)
        a.exp().sum().backward()
        assert calls == {"pack": 0, "unpack": 0}


def test_context_entered_in_its_own_unpack_does_not_stay_installed():
    seen = []
    for lib in LIBS:
        entered = {"n": 0}

        def unpack(x):
            entered["n"] += 1
            ctx.__enter__()
            return x

        ctx = lib.autograd.graph.saved_tensors_hooks(lambda x: x, unpack)
        x = leaf(lib, (3, 3))
        with ctx:
            x.sin().sum().backward()
        # later graphs are not packed with the leaked context any more
        a = leaf(lib, seed=1)
        later, hooks = counting(lib)
        y = a.exp()
        with hooks:
            z = a.cos()
        (y + z).sum().backward()
        seen.append((entered["n"], dict(later), a.grad.tolist()))
    assert seen[0][:2] == seen[1][:2] == (1, {"pack": 1, "unpack": 1})
    np.testing.assert_allclose(seen[0][2], seen[1][2], rtol=1e-6)


def test_context_left_in_unpack_does_not_crash():
    for lib in LIBS:
        def unpack(x):
            ctx_1.__exit__(None, None, None)
            return x

        ctx_1 = lib.autograd.graph.saved_tensors_hooks(lambda x: x, unpack)
        ctx_2 = lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x)
        for _ in range(10):
            with ctx_2:
                ctx_1.__enter__()
                x = leaf(lib, (3, 3))
                x.sin().sum().backward()
                np.testing.assert_allclose(x.grad.numpy(), np.cos(x.detach().numpy()),
                                           rtol=1e-6)
        for _ in range(10):
            ctx_1.__exit__(None, None, None)
        assert_hooks_work(lib)


def test_same_object_entered_twice_nested():
    for lib in LIBS:
        calls, hooks = counting(lib)
        a = leaf(lib)
        with hooks:
            with hooks:
                y = a.exp()
            z = a.sin()
        w = a.cos()
        (y + z + w).sum().backward()
        assert calls == {"pack": 2, "unpack": 2}


def test_unpack_returning_non_tensor_raises_type_error():
    messages = []
    for lib in LIBS:
        a = leaf(lib)
        with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: 1):
            y = a * a
        with pytest.raises(TypeError) as e:
            y.sum().backward()
        messages.append(str(e.value))
    assert messages[0] == messages[1]
    assert "expected to be a Tensor but got result of type int" in messages[0]


def test_unpack_returning_wrong_shape_fails_in_the_formula():
    messages = []
    for lib in LIBS:
        a = leaf(lib)
        with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: lib.ones(4)):
            y = a * a
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        messages.append(str(e.value))
    assert messages[0] == messages[1]


def test_custom_error_from_unpack_propagates():
    class Boom(Exception):
        pass

    for lib in LIBS:
        def unpack(x):
            raise Boom("unpack failed")

        a = leaf(lib)
        with lib.autograd.graph.saved_tensors_hooks(lambda x: x, unpack):
            y = a.exp()
        with pytest.raises(Boom, match="unpack failed"):
            y.sum().backward()


def test_pack_hook_modifying_input_in_place_is_refused():
    messages = []
    for lib in LIBS:
        a = leaf(lib)

        def pack(x):
            x.add_(1)
            return x

        with pytest.raises(RuntimeError) as e:
            with lib.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
                b = a.clone()
                b.exp()
        messages.append(str(e.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("scale_inner", [True, False])
def test_double_backward_reaches_the_original(scale_inner):
    """The unpacked tensor keeps the saved one's history, so the gradient of
    a gradient computed from it reaches the leaf (torch's double-backward
    test with a pack hook doubling what it saves)."""
    seen = []
    for lib in LIBS:
        a = leaf(lib, (5,))
        hooks = lib.autograd.graph.saved_tensors_hooks(lambda x: 2 * x, lambda x: x)
        with hooks:
            y = a ** 3
            s = y.sum()
        if scale_inner:
            with hooks:
                (g,) = lib.autograd.grad(s, (a,), create_graph=True)
                g.sum().backward()
        else:
            (g,) = lib.autograd.grad(s, (a,), create_graph=True)
            g.sum().backward()
        seen.append((g.detach().numpy(), a.grad.numpy()))
    for x, y in zip(seen[0], seen[1]):
        np.testing.assert_allclose(x, y, rtol=1e-5)


def test_unpacked_tensor_has_its_own_version_counter():
    seen = []
    for lib in LIBS:
        class Fn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.sin()

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                before = a._version
                x.add_(1)
                seen.append(a._version == before)
                return g

        a = lib.tensor(1.0, requires_grad=True)
        replacement = a.detach().clone()
        with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: replacement):
            b = Fn.apply(a)
        b.backward()
    assert seen == [True, True]


def test_custom_function_intermediates_are_packed():
    seen = []
    for lib in LIBS:
        class Fn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                i = x.exp()
                ctx.save_for_backward(i, x)
                return i * 2

            @staticmethod
            def backward(ctx, g):
                i, x = ctx.saved_tensors
                return g * 2 * i

        calls, hooks = counting(lib)
        a = leaf(lib)
        with hooks:
            y = Fn.apply(a)
        y.sum().backward()
        seen.append((dict(calls), a.grad.numpy()))
    assert seen[0][0] == seen[1][0] == {"pack": 2, "unpack": 2}
    np.testing.assert_allclose(seen[0][1], seen[1][1], rtol=1e-6)


def _error_of(fn):
    try:
        fn()
    except RuntimeError as e:
        return str(e)
    return None


def test_disable_saved_tensors_hooks_messages_and_restoration():
    for lib in LIBS:
        graph = lib.autograd.graph

        def enter_inside():
            with graph.disable_saved_tensors_hooks("no hooks here"):
                with graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                    pass

        def disable_inside():
            with graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                with graph.disable_saved_tensors_hooks("hooks are active"):
                    pass

        assert _error_of(enter_inside) == "no hooks here"
        assert _error_of(disable_inside) == "hooks are active"
        # both leave hooks usable again
        assert_hooks_work(lib)


def test_disable_saved_tensors_hooks_nested_keeps_outer_message():
    seen = []
    for lib in LIBS:
        graph = lib.autograd.graph

        def try_enter():
            with graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                pass

        with graph.disable_saved_tensors_hooks("outer"):
            with graph.disable_saved_tensors_hooks("inner"):
                inner = _error_of(try_enter)
            outer = _error_of(try_enter)
        seen.append((inner, outer, _error_of(try_enter)))
    assert seen[0] == seen[1] == ("inner", "outer", None)


def test_disable_saved_tensors_hooks_allows_plain_backward_and_checkpoint_refuses():
    for lib in LIBS:
        a = leaf(lib)
        with lib.autograd.graph.disable_saved_tensors_hooks("checkpoint is off"):
            y = (a * a).sin()
            with pytest.raises(RuntimeError, match="checkpoint is off"):
                lib.utils.checkpoint.checkpoint(lambda t: t.exp(), a, use_reentrant=False)
        y.sum().backward()
        np.testing.assert_allclose(a.grad.numpy(),
                                   (2 * a * (a * a).cos()).detach().numpy(), rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("pin_memory", [False, True])
def test_save_on_cpu_gives_the_same_gradients(dtype, pin_memory):
    if pin_memory and not torch.cuda.is_available():
        pin = {mt: True, torch: False}  # torch cannot pin without an accelerator
    else:
        pin = {mt: pin_memory, torch: pin_memory}
    seen = []
    for lib in LIBS:
        a = leaf(lib, (2, 3), dtype=dtype)
        w = leaf(lib, (3, 4), seed=2, dtype=dtype)
        with lib.autograd.graph.save_on_cpu(pin_memory=pin[lib]):
            y = (a @ w).tanh() * a.sum()
        y.sum().backward()
        seen.append((a.grad.numpy(), w.grad.numpy(), a.grad.dtype == getattr(lib, dtype)))
    for x, y in zip(seen[0][:2], seen[1][:2]):
        np.testing.assert_allclose(x, y, rtol=1e-5)
    assert seen[0][2] and seen[1][2]


def test_hooks_entered_during_a_failing_backward_do_not_outlive_it():
    for lib in LIBS:
        def unpack(x):
            lib.autograd.graph.saved_tensors_hooks(lambda t: 1 / 0, lambda t: t).__enter__()
            raise KeyError("stop")

        a = leaf(lib)
        with lib.autograd.graph.saved_tensors_hooks(lambda x: x, unpack):
            y = a.exp()
        with pytest.raises(KeyError):
            y.sum().backward()
        b = leaf(lib, seed=4)
        b.sin().sum().backward()  # the leaked pack hook would divide by zero
        np.testing.assert_allclose(b.grad.numpy(), np.cos(b.detach().numpy()), rtol=1e-6)


@pytest.mark.parametrize("unpacked", ["double", "shape"])
def test_unpack_of_another_dtype_or_shape(unpacked):
    """First order: the formula uses what unpack returned and the gradient
    comes back in the input's dtype and shape, as torch's. Differentiating
    through it (create_graph) is refused here rather than sending the
    original a gradient of the wrong dtype or shape (torch converts it)."""
    def change(lib, x):
        return x.double() if unpacked == "double" else x[:1]

    seen = []
    for lib in LIBS:
        a = leaf(lib)
        with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: change(lib, x)):
            y = (a * a).sum()
        (g,) = lib.autograd.grad(y, a)
        seen.append((g.dtype == a.dtype, tuple(g.shape), np.round(g.numpy(), 5).tolist()))
    assert seen[0] == seen[1]
    a = leaf(mt)
    with mt.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: change(mt, x)):
        y = (a * a).sum()
    with pytest.raises(RuntimeError, match="unpack_hook returned a tensor of another dtype"):
        mt.autograd.grad(y, a, create_graph=True)


@pytest.mark.parametrize("drop_intermediate", [True, False])
def test_double_backward_through_a_packed_non_leaf(drop_intermediate):
    seen = []
    for lib in LIBS:
        a = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        b = a * 2
        with lib.autograd.graph.saved_tensors_hooks(lambda x: x * 1, lambda x: x):
            y = b * b * b.sin()
        if drop_intermediate:
            del b
        (g,) = lib.autograd.grad(y.sum(), a, create_graph=True)
        g.sum().backward()
        seen.append((g.detach().numpy(), a.grad.numpy()))
    for x, y in zip(seen[0], seen[1]):
        np.testing.assert_allclose(x, y, rtol=1e-5)
