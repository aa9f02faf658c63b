"""Comparing a minitorch result with torch's, for tests that build the same
inputs in both libraries: the pair of inputs, the values (dtype, shape,
values to a tolerance) and the error each raises."""
import numpy as np
import pytest
import torch

import minitorch as mt


def pair(values, dtype="float64", grad=False):
    """The same values as a minitorch and a torch tensor."""
    m = mt.tensor(values, dtype=getattr(mt, dtype))
    t = torch.tensor(values, dtype=getattr(torch, dtype))
    if grad:
        m.requires_grad_()
        t.requires_grad_()
    return m, t


def random_pair(shape, dtype, seed=0):
    """Standard-normal values of shape (both parts for a complex dtype, named
    as a string) as a minitorch and a torch tensor of their own memory."""
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        v = v + 1j * rng.standard_normal(shape)
    v = np.asarray(v).astype(dtype)
    return mt.from_numpy(v.copy()), torch.from_numpy(v.copy())


def same(got, want, rtol=1e-6, atol=1e-6):
    """got (minitorch) has want's (torch) dtype, shape and values; tuples
    are compared item by item."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w, rtol, atol)
        return
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol, atol=atol,
                               equal_nan=True)


def close(got, want):
    """got (minitorch) has want's (torch) dtype and, within torch's default
    tolerance for that dtype, its values."""
    assert got.dtype == getattr(mt, str(want.dtype).split(".")[1])
    w = torch.tensor(got.detach().tolist(), dtype=want.dtype).reshape(want.shape)
    torch.testing.assert_close(w, want, equal_nan=True)


def raises_as_torch(fn_mt, fn_torch, exact=True):
    """fn_mt raises what fn_torch raises: its type, and (exact) its text."""
    with pytest.raises(Exception) as want:
        fn_torch()
    with pytest.raises(type(want.value)) as got:
        fn_mt()
    if exact:
        assert str(got.value) == str(want.value)
