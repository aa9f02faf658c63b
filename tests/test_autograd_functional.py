"""minitorch.autograd.functional against torch.autograd.functional on random
inputs: jacobian, hessian, vjp, jvp, vhp, hvp (values, nesting of tuples,
create_graph) and their errors."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")
rng = np.random.default_rng(1)
M = mt.autograd.functional


def _pair(*shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    return tuple(mt.tensor(a) for a in arrays), tuple(torch.tensor(a) for a in arrays)


def _close(a, b):
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y)
        return
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-7, atol=1e-9)


def two_out(L):
    return lambda x, y: (L.sin(y @ x), (x * x).sum() * y)


def one_out(L):
    return lambda x: L.tanh(x) * x.sum()


def scalar(L):
    return lambda x, y: L.sin(y @ x).sum() * x.exp().sum() + (y ** 3).sum()


def scalar1(L):
    return lambda x: (L.sin(x) * x.sum()).sum()


def _t():
    return torch.autograd.functional


@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian_nestings(create_graph):
    (x, y), (tx, ty) = _pair((3,), (2, 3))
    _close(M.jacobian(two_out(mt), (x, y), create_graph=create_graph),
           _t().jacobian(two_out(torch), (tx, ty), create_graph=create_graph))
    _close(M.jacobian(one_out(mt), x), _t().jacobian(one_out(torch), tx))
    _close(M.jacobian(one_out(mt), (x,)), _t().jacobian(one_out(torch), (tx,)))
    _close(M.jacobian(lambda a: (a.exp(), a.sum()), x),
           _t().jacobian(lambda a: (a.exp(), a.sum()), tx))
    _close(M.jacobian(one_out(mt), x, vectorize=True, strategy="forward-mode"),
           _t().jacobian(one_out(torch), tx, vectorize=True, strategy="forward-mode"))


def test_jacobian_unused_input_and_create_graph():
    (x, y), (tx, ty) = _pair((3,), (2,))
    got = M.jacobian(lambda a, b: a * 2, (x, y))
    want = _t().jacobian(lambda a, b: a * 2, (tx, ty))
    _close(got, want)
    x.requires_grad_()
    j = M.jacobian(lambda a: a ** 3, x, create_graph=True)
    assert j.requires_grad
    (gx,) = mt.autograd.grad(j.sum(), x)
    np.testing.assert_allclose(gx.numpy(), 6 * x.detach().numpy())
    assert not M.jacobian(lambda a: a ** 3, x).requires_grad


def test_hessian():
    (x, y), (tx, ty) = _pair((3,), (2, 3))
    _close(M.hessian(scalar(mt), (x, y)), _t().hessian(scalar(torch), (tx, ty)))
    _close(M.hessian(scalar1(mt), x), _t().hessian(scalar1(torch), tx))


def test_vjp_jvp_vhp_hvp():
    (x, y, vx, vy), (tx, ty, tvx, tvy) = _pair((3,), (2, 3), (3,), (2, 3))
    (v1, v2), (tv1, tv2) = _pair((2,), (2, 3))
    _close(M.vjp(two_out(mt), (x, y), (v1, v2)), _t().vjp(two_out(torch), (tx, ty), (tv1, tv2)))
    _close(M.jvp(two_out(mt), (x, y), (vx, vy)), _t().jvp(two_out(torch), (tx, ty), (tvx, tvy)))
    _close(M.vhp(scalar(mt), (x, y), (vx, vy)), _t().vhp(scalar(torch), (tx, ty), (tvx, tvy)))
    _close(M.hvp(scalar(mt), (x, y), (vx, vy)), _t().hvp(scalar(torch), (tx, ty), (tvx, tvy)))
    _close(M.vjp(one_out(mt), x, vx), _t().vjp(one_out(torch), tx, tvx))
    _close(M.jvp(one_out(mt), x, vx), _t().jvp(one_out(torch), tx, tvx))
    _close(M.hvp(scalar1(mt), x, vx), _t().hvp(scalar1(torch), tx, tvx))
    (s,), (ts,) = _pair(())
    _close(M.vjp(lambda a: a.sum(), x), _t().vjp(lambda a: a.sum(), tx))
    _close(M.jvp(lambda a: a.exp(), s), _t().jvp(lambda a: a.exp(), ts))


def _same_error(mt_call, torch_call):
    with pytest.raises(Exception) as want:
        torch_call()
    with pytest.raises(type(want.value)) as got:
        mt_call()
    assert str(got.value) == str(want.value).replace("torch.Size", "minitorch.Size")


def test_errors_match_torch():
    (x, y), (tx, ty) = _pair((3,), (2, 3))
    F, TF = M, _t()
    _same_error(lambda: F.vjp(one_out(mt), x), lambda: TF.vjp(one_out(torch), tx))
    _same_error(lambda: F.jvp(one_out(mt), x), lambda: TF.jvp(one_out(torch), tx))
    _same_error(lambda: F.vjp(one_out(mt), x, (x, x)), lambda: TF.vjp(one_out(torch), tx, (tx, tx)))
    _same_error(lambda: F.vjp(two_out(mt), (x, y), (x, y)),
                lambda: TF.vjp(two_out(torch), (tx, ty), (tx, ty)))
    _same_error(lambda: F.jacobian(lambda a: 3, x), lambda: TF.jacobian(lambda a: 3, tx))
    _same_error(lambda: F.jacobian(one_out(mt), [x]), lambda: TF.jacobian(one_out(torch), [tx]))
    _same_error(lambda: F.hessian(one_out(mt), x), lambda: TF.hessian(one_out(torch), tx))
    _same_error(lambda: F.hvp(lambda a: (a.sum(), a.sum()), x, x),
                lambda: TF.hvp(lambda a: (a.sum(), a.sum()), tx, tx))
    _same_error(lambda: F.vhp(one_out(mt), x, x), lambda: TF.vhp(one_out(torch), tx, tx))
    _same_error(lambda: F.jacobian(lambda a: a.detach(), x, strict=True),
                lambda: TF.jacobian(lambda a: a.detach(), tx, strict=True))
    _same_error(lambda: F.jacobian(lambda a, b: a * 2, (x, y), strict=True),
                lambda: TF.jacobian(lambda a, b: a * 2, (tx, ty), strict=True))
    _same_error(lambda: F.vjp(lambda a, b: a * 2, (x, y), x, strict=True),
                lambda: TF.vjp(lambda a, b: a * 2, (tx, ty), tx, strict=True))
    _same_error(lambda: F.jacobian(one_out(mt), x, strategy="forward-mode"),
                lambda: TF.jacobian(one_out(torch), tx, strategy="forward-mode"))
    _same_error(lambda: F.jacobian(one_out(mt), x, vectorize=True, strict=True),
                lambda: TF.jacobian(one_out(torch), tx, vectorize=True, strict=True))
    _same_error(lambda: F.hessian(lambda a: (a * 2).sum(), x, strict=True),
                lambda: TF.hessian(lambda a: (a * 2).sum(), tx, strict=True))
