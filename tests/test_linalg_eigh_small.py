"""linalg.eigh's own solver for small real matrices (csrc/kernels/eigh_small.c)
and the size rule that hands larger ones to LAPACK's syevd, against torch:
sizes on both sides of the rule, batches, either triangle, non-contiguous
inputs, repeated eigenvalues and extreme scales, judged by the invariants
(A V = V diag(w), V orthonormal) and torch's eigenvalues."""
import numpy as np
import pytest

import minitorch as mt
from linalg_pairs import to_np

torch = pytest.importorskip("torch")


def _pair(a, dtype):
    return mt.tensor(a, dtype=getattr(mt, dtype)), torch.tensor(a, dtype=getattr(torch, dtype))


def _sym(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return a + np.swapaxes(a, -1, -2)


def _check(a_mt, t, dtype, uplo="L", scale=1.0):
    """eigh of a_mt against torch's eigenvalues of t and by its invariants."""
    L, V = mt.linalg.eigh(a_mt, UPLO=uplo)
    Lt = torch.linalg.eigvalsh(t, UPLO=uplo)
    assert str(L.dtype) == "minitorch." + dtype and str(V.dtype) == "minitorch." + dtype
    assert tuple(L.shape) == tuple(Lt.shape) and tuple(V.shape) == tuple(t.shape)
    n = t.shape[-1]
    eps = np.finfo(dtype).eps
    bound = 50 * n * eps * scale
    np.testing.assert_allclose(to_np(L), to_np(Lt), rtol=0, atol=bound)
    # the matrix eigh read: its chosen triangle, mirrored
    A = to_np(t).astype(np.float64)
    A = np.triu(A) + np.swapaxes(np.triu(A, 1), -1, -2) if uplo == "U" else \
        np.tril(A) + np.swapaxes(np.tril(A, -1), -1, -2)
    v, w = to_np(V).astype(np.float64), to_np(L).astype(np.float64)
    np.testing.assert_allclose(A @ v, v * w[..., None, :], rtol=0, atol=bound)
    eye = np.broadcast_to(np.eye(n), v.shape)
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, eye, rtol=0, atol=50 * n * eps)
    assert (np.diff(w, axis=-1) >= 0).all()


@pytest.mark.parametrize("n", [1, 2, 3, 5, 16, 31, 32, 33, 64, 111, 112, 113, 160])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sizes_around_the_rule(n, dtype):
    a = _sym((n, n), seed=n)
    _check(*_pair(a, dtype), dtype, scale=np.abs(np.linalg.eigvalsh(a)).max())


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batched_and_one_triangle(uplo, dtype):
    # a non-symmetric input: only the chosen triangle counts
    a = np.random.default_rng(1).standard_normal((3, 4, 24, 24))
    _check(*_pair(a, dtype), dtype, uplo=uplo, scale=10.0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_non_contiguous(dtype):
    a = _sym((20, 40, 40), seed=2)
    m, t = _pair(a, dtype)
    # a strided batch of transposed matrices
    _check(m[::3].mT, t[::3].mT, dtype, scale=20.0)
    _check(m[:, ::2, ::2], t[:, ::2, ::2], dtype, scale=20.0)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_goes_to_lapack(dtype):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 12, 12)) + 1j * rng.standard_normal((2, 12, 12))
    a = a + np.conj(np.swapaxes(a, -1, -2))
    m, t = _pair(a, dtype)
    L, V = mt.linalg.eigh(m)
    eps = np.finfo(dtype).eps
    np.testing.assert_allclose(to_np(L), to_np(torch.linalg.eigvalsh(t)), atol=500 * eps)
    v = to_np(V)
    np.testing.assert_allclose(a @ v, v * to_np(L)[..., None, :], atol=1000 * eps)


def _with_spectrum(w, seed):
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((len(w), len(w))))
    return (q * np.asarray(w, dtype=np.float64)) @ q.T


@pytest.mark.parametrize("spectrum", [
    [1.0] * 10,
    [0.0] * 7,
    [2.0, 2.0, 2.0, -1.0, -1.0, 5.0, 5.0, 5.0, 5.0, 0.0],
    [0.0] * 30 + [1.0, 3.0],
    [1.0, 1.0 + 1e-12, 1.0 - 1e-12, 4.0],
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_repeated_eigenvalues(spectrum, dtype):
    a = _with_spectrum(spectrum, len(spectrum))
    _check(*_pair(a, dtype), dtype, scale=max(1.0, max(abs(x) for x in spectrum)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_diagonal_and_tridiagonal(dtype):
    d = np.diag([3.0, -1.0, 3.0, 0.0, 2.0, -1.0])
    _check(*_pair(d, dtype), dtype, scale=3.0)
    t = np.diag(np.full(9, 2.0)) + np.diag(np.ones(8), 1) + np.diag(np.ones(8), -1)
    _check(*_pair(t, dtype), dtype, scale=4.0)


@pytest.mark.parametrize("scale", [1e-300, 1e300, 1e-160, 1e160])
def test_extreme_scales_float64(scale):
    a = _sym((9, 9), seed=4) * scale
    _check(*_pair(a, "float64"), "float64", scale=10 * scale)


@pytest.mark.parametrize("scale", [1e-30, 1e30])
def test_extreme_scales_float32(scale):
    # squares of these entries under- or overflow float32: the solver scales first
    a = _sym((9, 9), seed=6) * scale
    _check(*_pair(a, "float32"), "float32", scale=10 * scale)


def test_subnormal_float32():
    a = _sym((6, 6), seed=7) * 1e-40
    m, t = _pair(a, "float32")
    L, V = mt.linalg.eigh(m)
    assert np.isfinite(to_np(L)).all() and np.isfinite(to_np(V)).all()
    np.testing.assert_allclose(to_np(L), to_np(torch.linalg.eigvalsh(t)), rtol=0, atol=1e-42)


def test_non_finite_as_torch():
    for v in (float("nan"), float("inf")):
        a = np.eye(5)
        a[1, 2] = a[2, 1] = v
        m, t = _pair(a, "float32")
        L, _ = mt.linalg.eigh(m)
        np.testing.assert_array_equal(np.isnan(to_np(L)), np.isnan(to_np(torch.linalg.eigvalsh(t))))


def test_gradients_on_the_small_path():
    a = _sym((6, 6), seed=5)
    m = mt.tensor(a, dtype=mt.float64, requires_grad=True)
    t = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    for lib, x in ((mt, m), (torch, t)):
        w, v = lib.linalg.eigh(x)
        # gauge-invariant: the eigenvalues and the projector on the lowest two
        (w.sum() + (v[:, :2] @ v[:, :2].mT * x).sum()).backward()
    np.testing.assert_allclose(to_np(m.grad), to_np(t.grad), atol=1e-10)
