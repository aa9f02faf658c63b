"""minitorch.linalg's functions over tensor ops against torch: vecdot, cross,
diagonal, vander, matrix_exp (and torch.matrix_exp): values, broadcasting,
gradients, forward AD and errors."""
import numpy as np
import pytest

import minitorch as mt
from linalg_pairs import raises_like, rand, same

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 2, 2)])
@pytest.mark.parametrize("scale", [0.1, 1.0, 8.0])
def test_matrix_exp(shape, scale):
    a, t = rand(*shape)
    a, t = a * scale, t * scale
    same(mt.linalg.matrix_exp(a), torch.linalg.matrix_exp(t), rtol=1e-11, atol=1e-11)
    same(mt.matrix_exp(a), torch.matrix_exp(t), rtol=1e-11, atol=1e-11)
    same(a.matrix_exp(), t.matrix_exp(), rtol=1e-11, atol=1e-11)


def test_matrix_exp_float32_and_gradients():
    a, t = rand(2, 3, 3, dtype="float32")
    same(mt.linalg.matrix_exp(a), torch.linalg.matrix_exp(t), rtol=1e-5, atol=1e-5)
    a, t = rand(3, 3)
    am, at = a.clone().requires_grad_(), t.clone().requires_grad_()
    assert mt.autograd.gradcheck(mt.linalg.matrix_exp, (am,), check_forward_ad=True)
    mt.linalg.matrix_exp(am).pow(2).sum().backward()
    torch.linalg.matrix_exp(at).pow(2).sum().backward()
    same(am.grad, at.grad, rtol=1e-9, atol=1e-9)


def _complex_pair(shape, dtype, scale, seed, norm=None):
    """Random matrices, each scaled to the 1-norm norm when given."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) * scale
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape) * scale
    if norm is not None:
        a = a / np.abs(a).sum(-2).max(-1)[..., None, None] * norm
    return mt.tensor(a, dtype=getattr(mt, dtype)), torch.tensor(a, dtype=getattr(torch, dtype))


# 1-norms in each of torch's degree bands (1, 2, 4, 8, 12, 18 and squaring)
# for float32 and float64
@pytest.mark.parametrize("norm", [1e-17, 1e-8, 1e-4, 0.03, 0.2, 0.5, 1.2, 2.5, 40.0])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(4, 4), (1, 5, 5), (3, 6, 6), (9, 9)])
def test_matrix_exp_rounds_as_torch(norm, dtype, shape):
    # the polynomial and squarings run in the input's dtype, as torch's: a
    # float32 result carries torch's float32 rounding (far off the exact one
    # for a large norm)
    a, t = _complex_pair(shape, dtype, 1.0, seed=3, norm=norm)
    single = dtype in ("float32", "complex64")
    want = torch.linalg.matrix_exp(t)
    # below 8 x 8 torch's products sum in order, as ours then do: the same
    # bits; above, both are BLAS products, summed in their own orders
    close = (1e-6 if shape[-1] < 8 else 1e-5) if single else 1e-13
    same(mt.linalg.matrix_exp(a), want, rtol=close, atol=close * float(want.abs().max()))


def test_matrix_exp_nonfinite_matrices_are_nan():
    t = torch.tensor([[[float("inf"), 1.0], [0.0, 1.0]], [[1.0, 2.0], [3.0, 4.0]],
                      [[float("nan"), 0.0], [0.0, 0.0]]])
    same(mt.linalg.matrix_exp(mt.tensor(t.numpy())), torch.linalg.matrix_exp(t), rtol=1e-6)
    same(mt.linalg.matrix_exp(mt.tensor(t[:1].numpy())), torch.linalg.matrix_exp(t[:1]))


@pytest.mark.parametrize("dtype", ["float64", "complex128", "float32"])
@pytest.mark.parametrize("scale", [0.01, 1.0, 6.0])
def test_matrix_exp_derivatives_match_torch(dtype, scale):
    # torch's gradient and tangent: blocks of the exponential of a 2n x 2n matrix
    a, t = _complex_pair((2, 4, 4), dtype, scale, seed=4)
    g, tg = _complex_pair((2, 4, 4), dtype, 1.0, seed=5)
    am, at = a.clone().requires_grad_(), t.clone().requires_grad_()
    (got,) = mt.autograd.grad(mt.linalg.matrix_exp(am), am, g)
    (want,) = torch.autograd.grad(torch.linalg.matrix_exp(at), at, tg)
    close = 1e-5 if dtype == "float32" else 1e-12
    same(got, want, rtol=close, atol=close)
    fwad, tfwad = mt.autograd.forward_ad, torch.autograd.forward_ad
    with fwad.dual_level():
        got = fwad.unpack_dual(mt.linalg.matrix_exp(fwad.make_dual(a, g))).tangent
    with tfwad.dual_level():
        want = tfwad.unpack_dual(torch.linalg.matrix_exp(tfwad.make_dual(t, tg))).tangent
    same(got, want, rtol=close, atol=close)
    if dtype != "float32":
        assert mt.autograd.gradgradcheck(mt.linalg.matrix_exp, (am,))


def test_vecdot_cross_diagonal_vander():
    a, t = rand(2, 3)
    b, tb = rand(3, seed=2)
    same(mt.linalg.vecdot(a, b), torch.linalg.vecdot(t, tb))
    same(mt.linalg.vecdot(a, a, dim=0), torch.linalg.vecdot(t, t, dim=0))
    b, tb = rand(2, 3, seed=2)
    same(mt.linalg.cross(a, b), torch.linalg.cross(t, tb))
    c, tc = rand(3, 2, 4)
    same(mt.linalg.diagonal(c), torch.linalg.diagonal(tc))
    same(mt.linalg.diagonal(c, offset=1, dim1=0, dim2=2),
         torch.linalg.diagonal(tc, offset=1, dim1=0, dim2=2))
    x, tx = rand(2, 4)
    same(mt.linalg.vander(x), torch.linalg.vander(tx))
    same(mt.linalg.vander(x, N=6), torch.linalg.vander(tx, N=6))
    same(mt.linalg.vander(mt.arange(3)), torch.linalg.vander(torch.arange(3)))


def test_gradients_of_products():
    a, _ = rand(2, 3)
    b, _ = rand(2, 3, seed=5)
    am, bm = a.requires_grad_(), b.requires_grad_()
    assert mt.autograd.gradcheck(mt.linalg.vecdot, (am, bm), check_forward_ad=True)
    assert mt.autograd.gradcheck(mt.linalg.cross, (am, bm), check_forward_ad=True)
    x = rand(4, seed=3)[0].requires_grad_()
    assert mt.autograd.gradcheck(mt.linalg.vander, (x,), check_forward_ad=True)


@pytest.mark.parametrize("call", [
    lambda L: L.linalg.vecdot(L.ones(3), L.ones(3, dtype=L.float64)),
    lambda L: L.linalg.vecdot(L.ones(3, dtype=L.int64), L.ones(3, dtype=L.int64)),
    lambda L: L.linalg.vander(L.ones(3), N=1),
    lambda L: L.linalg.vander(L.tensor(2.0)),
    lambda L: L.linalg.cross(L.ones(2, 3), L.ones(3)),
    lambda L: L.linalg.cross(L.ones(2, 2), L.ones(2, 2)),
    lambda L: L.linalg.matrix_exp(L.ones(2, 3)),
    lambda L: L.linalg.matrix_exp(L.ones(3)),
    lambda L: L.linalg.matrix_exp(L.ones(3, 3, dtype=L.int64)),
])
def test_errors_match_torch(call):
    raises_like(lambda: call(mt), lambda: call(torch))
