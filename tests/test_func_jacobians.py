"""minitorch.func jacrev, jacfwd, hessian and functional_call against torch.func
on random inputs."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.func import functional_call, hessian, jacfwd, jacrev, vmap

torch = pytest.importorskip("torch")
rng = np.random.default_rng(2)


def _pair(*shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    return tuple(mt.tensor(a) for a in arrays), tuple(torch.tensor(a) for a in arrays)


def _close(a, b):
    if isinstance(b, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y)
        return
    if isinstance(b, dict):
        assert a.keys() == b.keys()
        for k in b:
            _close(a[k], b[k])
        return
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-7, atol=1e-9)


def f(L):
    return lambda x, y: L.sin(y @ x) * x.sum()


def tree_out(L):
    return lambda x, y: {"a": L.exp(x) * y.sum(), "b": (x * y[0]).sum()}


@pytest.mark.parametrize("which", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0)])
def test_jacobians_match_torch(which, argnums):
    (x, y), (tx, ty) = _pair((3,), (2, 3))
    mine, theirs = {"jacrev": (jacrev, torch.func.jacrev),
                    "jacfwd": (jacfwd, torch.func.jacfwd)}[which]
    _close(mine(f(mt), argnums)(x, y), theirs(f(torch), argnums)(tx, ty))
    _close(mine(tree_out(mt), argnums)(x, y), theirs(tree_out(torch), argnums)(tx, ty))


def test_jacobians_has_aux_and_inside_vmap():
    (x, y), (tx, ty) = _pair((3,), (4, 3))

    def g(L):
        return lambda a: (a.sin() * a, a.sum())
    _close(jacrev(g(mt), has_aux=True)(x), torch.func.jacrev(g(torch), has_aux=True)(tx))
    _close(jacfwd(g(mt), has_aux=True)(x), torch.func.jacfwd(g(torch), has_aux=True)(tx))
    _close(vmap(jacrev(lambda a: a.sin() * a.sum()))(y),
           torch.func.vmap(torch.func.jacrev(lambda a: a.sin() * a.sum()))(ty))
    _close(vmap(jacfwd(lambda a: a.sin() * a.sum()))(y),
           torch.func.vmap(torch.func.jacfwd(lambda a: a.sin() * a.sum()))(ty))


def test_hessian_matches_torch():
    (x, y), (tx, ty) = _pair((3,), (2, 3))

    def s(L):
        return lambda a, b: L.sin(b @ a).sum() * a.exp().sum()
    _close(hessian(s(mt))(x, y), torch.func.hessian(s(torch))(tx, ty))
    _close(hessian(s(mt), (0, 1))(x, y), torch.func.hessian(s(torch), (0, 1))(tx, ty))


def _model(L):
    L.manual_seed(0)
    return L.nn.Sequential(L.nn.Linear(3, 4), L.nn.Tanh(), L.nn.Linear(4, 2)).double()


def test_functional_call_matches_torch_and_restores():
    m, tm = _model(mt), _model(torch)
    for (n, p), (tn, tp) in zip(m.named_parameters(), tm.named_parameters()):
        assert n == tn
        tp.data = torch.tensor(p.detach().numpy())
    (x, w), (tx, tw) = _pair((5, 3), (4, 3))
    got = functional_call(m, {"0.weight": w}, (x,))
    want = torch.func.functional_call(tm, {"0.weight": tw}, (tx,))
    _close(got, want)
    assert m[0].weight is dict(m.named_parameters())["0.weight"]
    _close(m(x), tm(tx))
    params = {k: v.detach() for k, v in m.named_parameters()}
    tparams = {k: v.detach() for k, v in tm.named_parameters()}
    got = vmap(lambda p, xi: functional_call(m, p, (xi,)), in_dims=(None, 0))(params, x)
    want = torch.func.vmap(lambda p, xi: torch.func.functional_call(tm, p, (xi,)),
                           in_dims=(None, 0))(tparams, tx)
    _close(got, want)


def test_functional_call_per_sample_grads_match_torch():
    m, tm = _model(mt), _model(torch)
    for p, tp in zip(m.parameters(), tm.parameters()):
        tp.data = torch.tensor(p.detach().numpy())
    (x, y), (tx, ty) = _pair((6, 3), (6, 2))

    def loss(L, model):
        def f(p, xi, yi):
            return ((L.func.functional_call(model, p, (xi,)) - yi) ** 2).sum()
        return f
    params = {k: v.detach() for k, v in m.named_parameters()}
    tparams = {k: v.detach() for k, v in tm.named_parameters()}
    got = vmap(mt.func.grad(loss(mt, m)), in_dims=(None, 0, 0))(params, x, y)
    want = torch.func.vmap(torch.func.grad(loss(torch, tm)), in_dims=(None, 0, 0))(
        tparams, tx, ty)
    _close(got, want)


def test_functional_call_strict_and_errors():
    m, tm = _model(mt), _model(torch)
    (x,), (tx,) = _pair((2, 3))
    with pytest.raises(RuntimeError) as want:
        torch.func.functional_call(tm, {"0.weight": torch.zeros(4, 3, dtype=torch.double)},
                                   (tx,), strict=True)
    with pytest.raises(RuntimeError) as got:
        functional_call(m, {"0.weight": mt.zeros(4, 3, dtype=mt.double)}, (x,), strict=True)
    assert str(got.value) == str(want.value)
    with pytest.raises(ValueError) as want:
        torch.func.functional_call(tm, ({"0.bias": torch.zeros(4)}, {"0.bias": torch.zeros(4)}),
                                   (tx,))
    with pytest.raises(ValueError) as got:
        functional_call(m, ({"0.bias": mt.zeros(4)}, {"0.bias": mt.zeros(4)}), (x,))
    assert str(got.value) == str(want.value)


def test_forward_over_reverse_matches_torch():
    # ops whose backward reads only saved inputs (sin, mul, sum); the engine
    # still drops the tangent of a saved output (exp): see func.hessian
    (x, v, y), (tx, tv, ty) = _pair((3,), (3,), (2, 3))

    def g(L):
        return lambda a: (L.sin(a) * a.sum()).sum()
    _close(mt.func.jvp(mt.func.grad(g(mt)), (x,), (v,)),
           torch.func.jvp(torch.func.grad(g(torch)), (tx,), (tv,)))
    _close(jacfwd(jacrev(g(mt)))(x), torch.func.jacfwd(torch.func.jacrev(g(torch)))(tx))
    _close(vmap(hessian(g(mt)))(y), torch.func.vmap(torch.func.hessian(g(torch)))(ty))
