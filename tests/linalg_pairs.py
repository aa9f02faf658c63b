"""Random matrices built the same in minitorch and torch for the linalg
tests, and the comparisons they share (values, LinAlgError)."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def rand(*shape, dtype="float64", seed=0, kind="general"):
    """A (minitorch, torch) pair of random matrices: general (well
    conditioned), spd (symmetric positive-definite), or tri (a dominant
    diagonal, for triangular solves)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if kind == "spd":
        a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    elif kind in ("general", "tri") and len(shape) >= 2 and shape[-1] == shape[-2]:
        a = a + 3 * np.eye(shape[-1])
    return (mt.tensor(a, dtype=getattr(mt, dtype)), torch.tensor(a, dtype=getattr(torch, dtype)))


def to_np(t):
    # torch's lazily conjugated results (its adjoint solves) resolve first
    return t.detach().resolve_conj().numpy()


def same(got, want, rtol=1e-7, atol=1e-9):
    """got (minitorch) matches want (torch): dtype, shape, values."""
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w, rtol, atol)
        return
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    np.testing.assert_allclose(to_np(got), to_np(want), rtol=rtol, atol=atol, equal_nan=True)


def tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-7, atol=1e-9)


def raises_like(fn_mt, fn_torch):
    """Both raise; the same message; LinAlgError where torch raises its
    LinAlgError, else the same type."""
    with pytest.raises(Exception) as want:
        fn_torch()
    expected = mt.linalg.LinAlgError if isinstance(want.value, torch.linalg.LinAlgError) \
        else type(want.value)
    with pytest.raises(Exception) as got:
        fn_mt()
    assert type(got.value) is expected, (type(got.value), expected, str(got.value))
    assert str(got.value) == str(want.value)
