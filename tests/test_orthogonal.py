"""nn.utils.parametrizations.orthogonal against torch: the weight for each
map (matrix_exp, cayley, householder), with and without trivialization, on
square, tall and wide weights; gradients of the originals; assignment; the
linear algebra it is built on; and the errors."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.nn.utils import _orthogonal_linalg as la

torch = pytest.importorskip("torch")

MAPS = ["matrix_exp", "cayley", "householder"]


def arr(t):
    return np.asarray(t.detach().to(mt.float64).tolist()) if isinstance(t, mt.Tensor) \
        else t.detach().double().numpy()


def setup(L, shape, m, triv, w0, dtype="float64"):
    lin = L.nn.Linear(shape[1], shape[0], bias=False).to(getattr(L, dtype))
    with L.no_grad():
        lin.weight.copy_(L.tensor(w0))
    L.nn.utils.parametrizations.orthogonal(lin, orthogonal_map=m, use_trivialization=triv)
    return lin


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (1, 1), (6, 6)])
@pytest.mark.parametrize("m", MAPS)
@pytest.mark.parametrize("triv", [True, False])
def test_weight_and_grads(shape, m, triv):
    g = np.random.default_rng(0)
    w0 = g.standard_normal(shape)
    x = g.standard_normal((3, shape[1]))
    up = g.standard_normal((3, shape[0]))
    got, want = [], []
    for L, out in ((mt, got), (torch, want)):
        try:
            lin = setup(L, shape, m, triv, w0)
        except Exception as e:  # noqa: BLE001 - compared with torch's
            out.append((type(e).__name__, str(e)))
            continue
        w = lin.weight
        out.append(arr(w).round(6).tolist())
        (lin(L.tensor(x)) * L.tensor(up)).sum().backward()
        out.append(lin.parametrizations.weight.original.grad)
    assert got[0] == want[0]
    if len(got) == 2:
        wm = np.asarray(got[0])
        small = min(shape)
        gram = wm @ wm.T if shape[0] < shape[1] else wm.T @ wm
        np.testing.assert_allclose(gram, np.eye(small), atol=1e-5)  # of the rounded weight
        if not (triv and shape[0] != shape[1]):  # the completion of a non-square base is random
            np.testing.assert_allclose(arr(got[1]), arr(want[1]), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("m", MAPS)
def test_assignment_orthogonalises(m):
    g = np.random.default_rng(1)
    w0, w1 = g.standard_normal((4, 4)), g.standard_normal((4, 4))
    res = []
    for L in (mt, torch):
        lin = setup(L, (4, 4), m, True, w0)
        with L.no_grad():
            lin.weight = L.tensor(w1)
        res.append(arr(lin.weight).round(8))
    np.testing.assert_array_equal(res[0], res[1])


def test_float32_and_batched_weights():
    g = np.random.default_rng(2)
    w0 = g.standard_normal((2, 3, 3)).astype(np.float32)
    res = []
    for L in (mt, torch):
        holder = L.nn.Module()
        holder.weight = L.nn.Parameter(L.tensor(w0))
        L.nn.utils.parametrizations.orthogonal(holder, "weight")
        res.append(arr(holder.weight))
    np.testing.assert_allclose(res[0], res[1], atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda L: L.nn.utils.parametrizations.orthogonal(L.nn.Linear(2, 2), orthogonal_map="foo"),
    lambda L: L.nn.utils.parametrizations.orthogonal(L.nn.Linear(2, 2), "bias"),
    lambda L: L.nn.utils.parametrizations.orthogonal(L.nn.Linear(2, 2), "nothing"),
    lambda L: setattr(L.nn.utils.parametrizations.orthogonal(
        L.nn.Linear(3, 3), orthogonal_map="cayley", use_trivialization=False), "weight",
        L.eye(3)),
])
def test_errors(call):
    def outcome(L):
        try:
            call(L)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
        return None
    assert outcome(mt) == outcome(torch)


def test_linear_algebra_matches_torch():
    g = np.random.default_rng(3)
    a = g.standard_normal((2, 5, 5))
    am, at = mt.tensor(a), torch.tensor(a)
    np.testing.assert_allclose(arr(la.matrix_exp(am)), torch.matrix_exp(at).numpy(),
                               rtol=1e-12, atol=1e-12)
    s, st = am - am.mT, at - at.mT
    eye, eyet = mt.eye(5, dtype=mt.float64), torch.eye(5, dtype=torch.float64)
    np.testing.assert_allclose(arr(la.solve(eye - s / 2, eye + s / 2)),
                               torch.linalg.solve(eyet - st / 2, eyet + st / 2).numpy(),
                               atol=1e-12)
    b = g.standard_normal((2, 6, 4))
    xm, taum = la.geqrf(mt.tensor(b))
    xt, taut = torch.geqrf(torch.tensor(b))
    np.testing.assert_allclose(arr(xm), xt.numpy(), atol=1e-12)
    np.testing.assert_allclose(arr(taum), taut.numpy(), atol=1e-12)
    np.testing.assert_allclose(arr(la.householder_product(xm, taum)),
                               torch.linalg.householder_product(xt, taut).numpy(), atol=1e-12)


def test_maps_are_differentiable():
    g = np.random.default_rng(4)
    a = mt.tensor(g.standard_normal((3, 3)) * 0.5, requires_grad=True)
    assert mt.autograd.gradcheck(lambda x: la.matrix_exp(x - x.mT), (a,))
    eye = mt.eye(3, dtype=mt.float64)
    assert mt.autograd.gradcheck(lambda x: la.solve(eye - (x - x.mT) / 2, eye), (a,))
    tau = mt.tensor(g.uniform(0.5, 1.5, 3), requires_grad=True)
    b = mt.tensor(g.standard_normal((4, 3)), requires_grad=True)
    assert mt.autograd.gradcheck(la.householder_product, (b, tau))
