"""utils.checkpoint (reentrant and not) and autograd.graph.saved_tensors_hooks,
compared with torch: same gradients as without checkpointing, the function
run again in backward from the random state it first saw, torch's errors."""
import numpy as np
import pytest

import minitorch as mt


def libs():
    return [mt, pytest.importorskip("torch")]


def net(lib, calls):
    def f(x, w, scale=1.0):
        calls.append(1)
        h = (x @ w).tanh()
        noise = lib.rand(h.shape, dtype=h.dtype)  # the recompute must draw the same
        return (h * noise * scale).sin()
    return f


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_gradients_equal_plain_backward(use_reentrant):
    for lib in libs():
        rng = np.random.default_rng(0)
        x = lib.tensor(rng.standard_normal((3, 4)), requires_grad=True)
        w = lib.tensor(rng.standard_normal((4, 2)), requires_grad=True)
        calls = []
        f = net(lib, calls)
        lib.manual_seed(7)
        out = lib.utils.checkpoint.checkpoint(f, x, w, use_reentrant=use_reentrant)
        assert out.grad_fn is not None
        out.sum().backward()
        assert len(calls) == 2
        got = [x.grad.numpy().copy(), w.grad.numpy().copy()]
        x.grad = w.grad = None
        lib.manual_seed(7)
        f(x, w).sum().backward()
        np.testing.assert_allclose(got[0], x.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(got[1], w.grad.numpy(), rtol=1e-12)


def test_non_reentrant_checkpoint_with_grad_kwargs_and_module_parameters():
    for lib in libs():
        lib.manual_seed(0)
        lin = lib.nn.Linear(4, 3).double()
        x = lib.randn(2, 4, dtype=lib.float64, requires_grad=True)
        out = lib.utils.checkpoint.checkpoint(lambda a, k=1.0: lin(a).exp() * k, x, k=2.0,
                                              use_reentrant=False)
        gx, gw = lib.autograd.grad(out.sum(), (x, lin.weight))
        rx, rw = lib.autograd.grad((lin(x).exp() * 2.0).sum(), (x, lin.weight))
        np.testing.assert_allclose(gx.numpy(), rx.numpy(), rtol=1e-12)
        np.testing.assert_allclose(gw.detach().numpy(), rw.detach().numpy(), rtol=1e-12)


def test_reentrant_checkpoint_errors():
    got = []
    for lib in libs():
        a = lib.randn(2, 2, requires_grad=True)
        row = []
        with pytest.raises(RuntimeError) as info:
            b = lib.utils.checkpoint.checkpoint(lib.exp, a, use_reentrant=True).sum()
            lib.autograd.grad(b, (a,))
        row.append(str(info.value))
        c = lib.utils.checkpoint.checkpoint(lib.exp, a, use_reentrant=True).sum()
        c.backward()  # a failed pass leaves nothing behind

        def no_grad_fn(t):
            with lib.no_grad():
                return t * 2

        with pytest.raises(RuntimeError) as info:
            out = lib.utils.checkpoint.checkpoint(no_grad_fn, a, use_reentrant=True)
            (out + a).sum().backward()
        row.append(str(info.value))
        with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed"):
            lib.utils.checkpoint.checkpoint(lambda t: t * 2, a)
        got.append(row)
    assert got[0] == got[1]


def test_saved_tensors_hooks():
    got = []
    for lib in libs():
        log = []

        def pack(t):
            log.append(("pack", tuple(t.shape)))
            return t * 2

        def unpack(t):
            log.append(("unpack", tuple(t.shape)))
            return t / 2

        a = lib.randn(5, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = a * a
        y.sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), 2 * a.detach().numpy(), rtol=1e-6)
        row = [log]
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 1):
            y = a.exp()
        with pytest.raises(TypeError) as info:
            y.sum().backward()
        row.append(str(info.value))

        def inplace(t):
            t += 1
            return t

        with pytest.raises(RuntimeError) as info:
            with lib.autograd.graph.saved_tensors_hooks(inplace, lambda t: t):
                lib.randn(5, requires_grad=True) * 2 * a
        row.append(str(info.value).split(".")[0])
        got.append(row)
    assert got[0] == got[1]
