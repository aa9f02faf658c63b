"""The LAPACK-backed linalg functions (solve, eigh, svd, qr, cholesky) call
their LAPACK rows directly when nothing is to be differentiated: the values
are those of the autograd path, and an input with a gradient, a tangent or
inside no_grad still takes the path that records (or not) as torch does;
solve's batch broadcasting and vector right-hand sides, singular inputs and
small sizes, against torch."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.autograd.forward_ad as fwad
from linalg_pairs import raises_like, rand, same, to_np, tol

torch = pytest.importorskip("torch")

CALLS = {
    "solve": (lambda L, a, b: L.linalg.solve(a, b), "general"),
    "eigh": (lambda L, a, b: L.linalg.eigh(a).eigenvalues, "spd"),
    "eigvalsh": (lambda L, a, b: L.linalg.eigvalsh(a), "spd"),
    "svdvals": (lambda L, a, b: L.linalg.svd(a, full_matrices=False).S, "general"),
    "qr_r": (lambda L, a, b: L.linalg.qr(a).R.abs(), "general"),
    "cholesky": (lambda L, a, b: L.linalg.cholesky(a), "spd"),
}


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (8, 8), (64, 64), (3, 5, 5), (0, 4, 4)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_values_match_torch(name, dtype, shape):
    fn, kind = CALLS[name]
    a, t = rand(*shape, dtype=dtype, kind=kind)
    b, tb = rand(*shape[:-1], 3, dtype=dtype, seed=1)
    same(fn(mt, a, b), fn(torch, t, tb), **tol(dtype))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_direct_and_recorded_paths_give_the_same_values(name):
    fn, kind = CALLS[name]
    a, _ = rand(3, 6, 6, kind=kind)
    b, _ = rand(3, 6, 2, seed=1)
    plain = fn(mt, a, b)
    tracked = fn(mt, a.clone().requires_grad_(), b)
    assert not plain.requires_grad and plain.grad_fn is None
    assert tracked.requires_grad and tracked.grad_fn is not None
    np.testing.assert_array_equal(to_np(plain), to_np(tracked))
    with mt.no_grad():
        quiet = fn(mt, a.clone().requires_grad_(), b)
    assert not quiet.requires_grad
    np.testing.assert_array_equal(to_np(plain), to_np(quiet))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_gradients_still_flow(name):
    fn, kind = CALLS[name]
    a, t = rand(4, 4, kind=kind)
    b, tb = rand(4, 2, seed=1)
    am, at = a.clone().requires_grad_(), t.clone().requires_grad_()
    fn(mt, am, b).sum().backward()
    fn(torch, at, tb).sum().backward()
    np.testing.assert_allclose(to_np(am.grad), at.grad.numpy(), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", ["solve", "eigvalsh", "cholesky"])
def test_tangents_still_flow(name):
    import torch.autograd.forward_ad as tfwad
    fn, kind = CALLS[name]
    a, t = rand(4, 4, kind=kind)
    b, tb = rand(4, 2, seed=1)
    da, dt = rand(4, 4, seed=2, kind=kind)
    with fwad.dual_level():
        got = fwad.unpack_dual(fn(mt, fwad.make_dual(a, da), b)).tangent
    with tfwad.dual_level():
        want = tfwad.unpack_dual(fn(torch, tfwad.make_dual(t, dt), tb)).tangent
    assert got is not None
    np.testing.assert_allclose(to_np(got), want.numpy(), rtol=1e-6, atol=1e-8)


def test_solve_through_a_tangent_of_b_only():
    import torch.autograd.forward_ad as tfwad
    a, t = rand(4, 4)
    b, tb = rand(4, 2, seed=1)
    db, dtb = rand(4, 2, seed=2)
    with fwad.dual_level():
        got = fwad.unpack_dual(mt.linalg.solve(a, fwad.make_dual(b, db))).tangent
    with tfwad.dual_level():
        want = tfwad.unpack_dual(torch.linalg.solve(t, tfwad.make_dual(tb, dtb))).tangent
    np.testing.assert_allclose(to_np(got), want.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("a_shape,b_shape", [((5, 5), (5,)), ((5, 5), (5, 3)),
                                             ((2, 1, 5, 5), (3, 5, 2)), ((3, 5, 5), (5, 2)),
                                             ((3, 5, 5), (3, 5)), ((1, 5, 5), (4, 5, 1))])
def test_solve_broadcasts_as_torch(a_shape, b_shape):
    a, t = rand(*a_shape)
    b, tb = rand(*b_shape, seed=1)
    same(mt.linalg.solve(a, b), torch.linalg.solve(t, tb))


@pytest.mark.parametrize("a_shape,b_shape", [((5, 5), (3, 5)), ((2, 1, 5, 5), (3, 2, 5)),
                                             ((3, 5, 5), (3, 1, 5))])
def test_solve_from_the_right_broadcasts_as_torch(a_shape, b_shape):
    a, t = rand(*a_shape)
    b, tb = rand(*b_shape, seed=1)
    same(mt.linalg.solve(a, b, left=False), torch.linalg.solve(t, tb, left=False))


def test_singular_and_not_positive_definite_raise_as_torch():
    z, tz = mt.zeros(3, 3), torch.zeros(3, 3)
    b, tb = mt.ones(3, 1), torch.ones(3, 1)
    raises_like(lambda: mt.linalg.solve(z, b), lambda: torch.linalg.solve(tz, tb))
    zb, tzb = mt.zeros(2, 3, 3), torch.zeros(2, 3, 3)
    zb[0] = mt.eye(3)
    tzb[0] = torch.eye(3)
    raises_like(lambda: mt.linalg.solve(zb, b), lambda: torch.linalg.solve(tzb, tb))
    neg, tneg = -mt.eye(3), -torch.eye(3)
    raises_like(lambda: mt.linalg.cholesky(neg), lambda: torch.linalg.cholesky(tneg))
    info = mt.linalg.solve_ex(z, b).info
    assert int(info) == int(torch.linalg.solve_ex(tz, tb).info) > 0
