"""Runs one nn.functional call in minitorch and in torch on the same random
inputs and checks the forward values and the gradients of every input."""
import numpy as np

import minitorch as mt


def check_against_torch(torch, rng, name, shapes, *args, dtype=np.float64, **kwargs):
    """F.<name>(*inputs, *args, **kwargs) with inputs of the given shapes
    (None passes None): equal outputs (indices exactly) and input gradients."""
    arrays = [None if s is None else rng.standard_normal(s).astype(dtype) for s in shapes]
    ours = [None if a is None else mt.tensor(a, requires_grad=True) for a in arrays]
    theirs = [None if a is None else torch.tensor(a, requires_grad=True) for a in arrays]
    ya = getattr(mt.nn.functional, name)(*ours, *args, **kwargs)
    yb = getattr(torch.nn.functional, name)(*theirs, *args, **kwargs)
    if isinstance(yb, tuple):
        np.testing.assert_array_equal(ya[1].numpy(), yb[1].numpy())
        ya, yb = ya[0], yb[0]
    tol = 1e-5 if dtype == np.float32 else 1e-10
    assert tuple(ya.shape) == tuple(yb.shape)
    assert ya.detach().numpy().dtype == yb.detach().numpy().dtype
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=tol, atol=tol)
    up = rng.standard_normal(tuple(yb.shape)).astype(dtype)
    ya.backward(mt.tensor(up))
    yb.backward(torch.tensor(up))
    for a, b in zip(ours, theirs):
        if a is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol, atol=tol)


def check_same_error(torch, call):
    """call(namespace) raises the same exception type and message in both."""
    try:
        call(torch)
    except Exception as e:  # noqa: BLE001  (whatever torch raises)
        expected = e
    else:
        raise AssertionError("torch raised nothing")
    try:
        call(mt)
    except Exception as e:  # noqa: BLE001
        assert type(e) is type(expected), (e, expected)
        assert str(e).splitlines()[0] == str(expected).splitlines()[0]
    else:
        raise AssertionError(f"minitorch raised nothing; torch raised {expected!r}")
