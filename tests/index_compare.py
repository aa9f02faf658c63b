"""Comparing index results with torch's: operands made alike in both
libraries, values read with the sign of zero kept, equality that is exact
where minitorch adds in torch's order, and a fixture that runs a module's
tests at 1 and 2 threads (autouse where imported)."""
import numpy as np
import pytest
import torch

import minitorch as mt


@pytest.fixture(params=[1, 2], autouse=True)
def threads(request):
    before = mt.get_num_threads()
    mt.set_num_threads(request.param)
    yield request.param
    mt.set_num_threads(before)


def both(arr, dtype, requires_grad=False):
    t = torch.tensor(np.ascontiguousarray(arr)).to(getattr(torch, dtype))
    m = mt.tensor(t.float().numpy() if dtype in ("float16", "bfloat16") else t.numpy())
    m = m.to(getattr(mt, dtype))
    if requires_grad:
        m.requires_grad_(True)
        t.requires_grad_(True)
    return m, t


def bits(x):
    """Values with the sign of zero kept, as float64 (exact for every float dtype)."""
    if isinstance(x, mt.Tensor):
        return x.detach().to(mt.float64).numpy()
    return x.detach().to(torch.float64).numpy()


def assert_same(m, t, exact):
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    a, b = bits(m), bits(t)
    assert a.shape == b.shape
    if exact:
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(np.signbit(a), np.signbit(b))
    else:
        tol = 1e-2 if t.dtype == torch.float16 else 6e-2
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
