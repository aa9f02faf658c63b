"""minitorch.linalg's functions over tensor ops against torch: vecdot, cross,
diagonal, vander, matrix_exp (and torch.matrix_exp): values, broadcasting,
gradients, forward AD and errors."""
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
