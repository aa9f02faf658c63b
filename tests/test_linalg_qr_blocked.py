"""minitorch's own blocked Householder QR (csrc/kernels/lapack/householder.c,
float32 and float64 from 128 reflectors) against torch: linalg.qr's Q and R
in every mode, square, tall and wide, at sizes around its blocks; geqrf,
householder_product and ormqr (both sides, transposed or not) built on the
same block products; batched and non-contiguous inputs; gradients; the
invariants Q^T Q = I and QR = A; the same bits at one and two threads."""
import numpy as np
import pytest

import minitorch as mt
from linalg_pairs import to_np

torch = pytest.importorskip("torch")

TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-10, atol=1e-12)}
EPS = {"float32": 1e-5, "float64": 1e-13}
SHAPES = [(128, 128), (129, 129), (160, 160), (200, 150), (150, 200), (300, 128), (128, 300),
          (257, 255), (513, 200), (200, 513)]


def pair(a, dtype):
    return mt.tensor(a, dtype=getattr(mt, dtype)), torch.tensor(a, dtype=getattr(torch, dtype))


def general(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def close(got, want, dtype):
    """Equal to rounding, relative to the largest magnitude."""
    want = want.detach().numpy()
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(to_np(got) / scale, want / scale, **TOL[dtype])


def invariants(q, r, a, dtype):
    """Q's columns orthonormal and Q R = A, to a few ulps of A's size."""
    q, r = to_np(q), to_np(r)
    eye = np.eye(q.shape[-1])
    tol = EPS[dtype] * 200
    assert np.abs(np.swapaxes(q, -1, -2) @ q - eye).max() < tol
    assert np.abs(q @ r - a).max() < tol * max(1.0, float(np.abs(a).max())) * 10
    assert np.array_equal(np.triu(r), r)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_qr_matches_torch(shape, mode, dtype):
    a = general(*shape, seed=shape[0] + shape[1])
    m, t = pair(a, dtype)
    got, want = mt.linalg.qr(m, mode=mode), torch.linalg.qr(t, mode=mode)
    # R's diagonal has LAPACK's signs in both, so the factors agree
    close(got.R, want.R, dtype)
    assert got.R.stride() == want.R.stride()
    if mode != "r":
        close(got.Q, want.Q, dtype)
        assert got.Q.stride() == want.Q.stride()
        invariants(got.Q, got.R, to_np(m), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batched_and_non_contiguous_inputs(dtype):
    a = general(3, 300, 300, seed=5)
    m, t = pair(a, dtype)
    for got_in, want_in in [(m, t), (m.mT, t.mT), (m[:, ::2, 1:], t[:, ::2, 1:]),
                            (m[1, 10:290, 3:200], t[1, 10:290, 3:200])]:
        got, want = mt.linalg.qr(got_in), torch.linalg.qr(want_in)
        close(got.Q, want.Q, dtype)
        close(got.R, want.R, dtype)


@pytest.mark.parametrize("shape", [(200, 160), (160, 160), (140, 200)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_geqrf_and_householder_product_match_torch(shape, dtype):
    m, t = pair(general(*shape, seed=7), dtype)
    (a, tau), (ta, ttau) = mt.geqrf(m), torch.geqrf(t)
    close(a, ta, dtype)
    close(tau, ttau, dtype)
    k = min(shape)
    close(mt.linalg.householder_product(a[:, :k], tau),
          torch.linalg.householder_product(ta[:, :k], ttau), dtype)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ormqr_matches_torch(left, transpose, dtype):
    m, t = pair(general(220, 150, seed=8), dtype)
    c = general(220, 70, seed=9) if left else general(70, 220, seed=9)
    mc, tc = pair(c, dtype)
    (a, tau), (ta, ttau) = mt.geqrf(m), torch.geqrf(t)
    close(mt.ormqr(a, tau, mc, left, transpose), torch.ormqr(ta, ttau, tc, left, transpose),
          dtype)


def test_gradients_match_torch():
    a = general(160, 140, seed=11)
    m = mt.tensor(a, dtype=mt.float64, requires_grad=True)
    t = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    gq, gr = general(160, 140, seed=12), general(140, 140, seed=13)
    q, r = mt.linalg.qr(m)
    (q * mt.tensor(gq)).sum().add((r * mt.tensor(gr)).sum()).backward()
    tq, tr = torch.linalg.qr(t)
    ((tq * torch.tensor(gq)).sum() + (tr * torch.tensor(gr)).sum()).backward()
    close(m.grad, t.grad, "float64")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_values(dtype):
    """A zero column (a reflector of tau 0) goes through the blocks as through
    LAPACK's routines; a rank-deficient matrix keeps the invariants (its
    later columns of Q are rounding's choice, in torch too); NaN spreads."""
    a = general(200, 180, seed=14)
    a[:, 40] = 0
    m, t = pair(a, dtype)
    got, want = mt.linalg.qr(m), torch.linalg.qr(t)
    close(got.Q, want.Q, dtype)
    close(got.R, want.R, dtype)
    a[:, 100] = a[:, 3] * 2
    got = mt.linalg.qr(mt.tensor(a, dtype=getattr(mt, dtype)))
    invariants(got.Q, got.R, a, dtype)
    a[150, 7] = np.nan
    got = mt.linalg.qr(mt.tensor(a, dtype=getattr(mt, dtype)))
    assert np.isnan(to_np(got.R)).any() and np.isnan(to_np(got.Q)).any()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(512, 512), (700, 300), (300, 700), (2, 260, 260)], ids=str)
def test_same_bits_at_one_and_two_threads(dtype, shape):
    m = mt.tensor(general(*shape, seed=17), dtype=getattr(mt, dtype))
    before = mt.get_num_threads()
    results = []
    try:
        for threads in (1, 2):
            mt.set_num_threads(threads)
            q, r = mt.linalg.qr(m, mode="complete")
            a, tau = mt.geqrf(m)
            results.append([to_np(q), to_np(r), to_np(a), to_np(tau)])
    finally:
        mt.set_num_threads(before)
    for one, two in zip(*results):
        np.testing.assert_array_equal(one, two)
