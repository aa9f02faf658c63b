"""linalg.eigh and linalg.svd of larger real matrices, whose tridiagonal
reduction (csrc/kernels/lapack/tridiag.c) and reflector back-transforms
(householder.c, driven by spectral.c) are our own, against torch: sizes on both
sides of the size rule, the blocking's crossover and gesdd's QR threshold,
either triangle of a non-symmetric input, batches, non-contiguous inputs,
values only, full and reduced factors of tall and wide matrices, scales that
send the matrix back to LAPACK's own driver, and gradients."""
import numpy as np
import pytest

import minitorch as mt
from linalg_pairs import to_np

torch = pytest.importorskip("torch")


def _pair(a, dtype):
    return mt.tensor(a, dtype=getattr(mt, dtype)), torch.tensor(a, dtype=getattr(torch, dtype))


def _read_triangle(a, uplo):
    """The symmetric matrix eigh reads from a's chosen triangle."""
    return (np.triu(a) + np.swapaxes(np.triu(a, 1), -1, -2) if uplo == "U"
            else np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2))


def _check_eigh(a_mt, t, dtype, uplo="L"):
    L, V = mt.linalg.eigh(a_mt, UPLO=uplo)
    Lt, Vt = torch.linalg.eigh(t, UPLO=uplo)
    assert tuple(L.shape) == tuple(Lt.shape) and tuple(V.shape) == tuple(Vt.shape)
    assert str(L.dtype) == "minitorch." + dtype and str(V.dtype) == "minitorch." + dtype
    n = t.shape[-1]
    eps = np.finfo(dtype).eps
    w, v = to_np(L).astype(np.float64), to_np(V).astype(np.float64)
    scale = max(np.abs(w).max(), 1.0)
    np.testing.assert_allclose(w, to_np(Lt), rtol=0, atol=20 * n * eps * scale)
    A = _read_triangle(to_np(t).astype(np.float64), uplo)
    np.testing.assert_allclose(A @ v, v * w[..., None, :], rtol=0, atol=20 * n * eps * scale)
    eye = np.broadcast_to(np.eye(n), v.shape)
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, eye, rtol=0, atol=20 * n * eps)
    # up to sign, torch's eigenvectors (the spectrum is simple: random input)
    vt = to_np(Vt).astype(np.float64)
    signs = np.sign((v * vt).sum(-2, keepdims=True))
    np.testing.assert_allclose(v * signs, vt, rtol=0, atol=1e-2 if dtype == "float32" else 1e-8)


def _sym(shape, seed):
    a = np.random.default_rng(seed).standard_normal(shape)
    return a + np.swapaxes(a, -1, -2)


@pytest.mark.parametrize("n", [95, 96, 97, 128, 129, 160, 161, 200, 257])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eigh_sizes(n, dtype):
    _check_eigh(*_pair(_sym((n, n), n), dtype), dtype)


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eigh_one_triangle_batched(uplo, dtype):
    # a non-symmetric input: only the chosen triangle counts
    a = np.random.default_rng(3).standard_normal((2, 170, 170))
    _check_eigh(*_pair(a, dtype), dtype, uplo=uplo)


def test_eigh_non_contiguous():
    a = _sym((180, 180), 4)
    m, t = _pair(a, "float32")
    _check_eigh(m.mT, t.mT, "float32")
    _check_eigh(mt.tensor(np.repeat(a, 2, 1), dtype=mt.float32)[:, ::2],
                torch.tensor(a, dtype=torch.float32), "float32")


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eigvalsh_and_values_only(uplo, dtype):
    a = np.random.default_rng(5).standard_normal((220, 220))
    m, t = _pair(a, dtype)
    want = to_np(torch.linalg.eigvalsh(t, UPLO=uplo))
    atol = 20 * 220 * np.finfo(dtype).eps * np.abs(want).max()
    np.testing.assert_allclose(to_np(mt.linalg.eigvalsh(m, UPLO=uplo)), want, rtol=0, atol=atol)
    # the kernel asked for no vectors (syevd 'N': sterf after our reduction)
    L, _, info = mt._lapack_syevd(m, uplo == "U", False)
    np.testing.assert_allclose(to_np(L), want, rtol=0, atol=atol)
    assert to_np(info).tolist() == 0


@pytest.mark.parametrize("scale", [1e-20, 1e20])
def test_eigh_scales_left_to_lapack(scale):
    a = _sym((130, 130), 6) * scale
    L, V = mt.linalg.eigh(mt.tensor(a))
    w = to_np(L).astype(np.float64)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), rtol=0, atol=1e-10 * np.abs(w).max())
    v = to_np(V)
    np.testing.assert_allclose(v.T @ v, np.eye(130), rtol=0, atol=1e-10)


def test_eigh_gradient():
    a = _sym((110, 110), 7)
    c = np.random.default_rng(8).standard_normal(110)
    m = mt.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    (mt.linalg.eigh(m)[0] * mt.tensor(c)).sum().backward()
    (torch.linalg.eigh(t)[0] * torch.tensor(c)).sum().backward()
    np.testing.assert_allclose(to_np(m.grad), t.grad.numpy(), rtol=0, atol=1e-9)


def _check_svd(a_mt, t, dtype, full):
    U, S, Vh = mt.linalg.svd(a_mt, full_matrices=full)
    Ut, St, Vht = torch.linalg.svd(t, full_matrices=full)
    for x, y in ((U, Ut), (S, St), (Vh, Vht)):
        assert tuple(x.shape) == tuple(y.shape) and str(x.dtype) == "minitorch." + dtype
    m, n = t.shape[-2:]
    k = min(m, n)
    eps = np.finfo(dtype).eps
    u, s, vh = (to_np(x).astype(np.float64) for x in (U, S, Vh))
    tol = 20 * max(m, n) * eps * s.max()
    np.testing.assert_allclose(s, to_np(St), rtol=0, atol=tol)
    a = to_np(t).astype(np.float64)
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, rtol=0, atol=tol)
    for q in (np.swapaxes(u, -1, -2) @ u, vh @ np.swapaxes(vh, -1, -2)):
        np.testing.assert_allclose(q, np.broadcast_to(np.eye(q.shape[-1]), q.shape), rtol=0,
                                   atol=20 * max(m, n) * eps)
    # up to sign, torch's singular vectors (distinct singular values)
    ut, vht = to_np(Ut)[..., :k], to_np(Vht)[..., :k, :]
    signs = np.sign((u[..., :k] * ut).sum(-2, keepdims=True))
    close = 1e-2 if dtype == "float32" else 1e-8
    np.testing.assert_allclose(u[..., :k] * signs, ut, rtol=0, atol=close)
    np.testing.assert_allclose(vh[..., :k, :] * np.swapaxes(signs, -1, -2), vht, rtol=0, atol=close)


@pytest.mark.parametrize("shape", [(95, 95), (96, 96), (130, 130), (200, 130), (130, 200),
                                   (175, 96), (176, 96), (96, 175), (300, 120), (257, 257)])
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_svd_shapes(shape, full, dtype):
    a = np.random.default_rng(sum(shape)).standard_normal(shape)
    _check_svd(*_pair(a, dtype), dtype, full)


def test_svd_batched_non_contiguous_and_values():
    a = np.random.default_rng(9).standard_normal((2, 150, 120))
    m, t = _pair(a, "float32")
    _check_svd(m.mT, t.mT, "float32", False)
    _check_svd(m, t, "float32", True)
    want = to_np(torch.linalg.svdvals(t))
    np.testing.assert_allclose(to_np(mt.linalg.svdvals(m)), want, rtol=0, atol=1e-4)
    _, S, _, info = mt._lapack_gesdd(m, False, False)
    np.testing.assert_allclose(to_np(S), want, rtol=0, atol=1e-4)
    assert to_np(info).tolist() == [0, 0]


@pytest.mark.parametrize("scale", [1e-20, 1e20])
def test_svd_scales_left_to_lapack(scale):
    a = np.random.default_rng(10).standard_normal((120, 110)) * scale
    U, S, Vh = mt.linalg.svd(mt.tensor(a), full_matrices=False)
    s = to_np(S)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-10, atol=0)
    np.testing.assert_allclose((to_np(U) * s) @ to_np(Vh), a, rtol=0, atol=1e-10 * s.max())


def test_svd_gradient():
    a = np.random.default_rng(11).standard_normal((120, 100))
    m = mt.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    mt.linalg.svd(m, full_matrices=False)[1].sum().backward()
    torch.linalg.svd(t, full_matrices=False)[1].sum().backward()
    np.testing.assert_allclose(to_np(m.grad), t.grad.numpy(), rtol=0, atol=1e-9)


@pytest.mark.parametrize("threads", [1, 3])
def test_thread_counts(threads):
    # the panels' products split over however many threads there are
    before = mt.get_num_threads()
    mt.set_num_threads(threads)
    try:
        a = np.random.default_rng(12).standard_normal((260, 260))
        _check_eigh(*_pair(a + a.T, "float64"), "float64")
        _check_svd(*_pair(a, "float64"), "float64", False)
    finally:
        mt.set_num_threads(before)
