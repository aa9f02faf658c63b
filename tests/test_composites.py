"""The Python-level conveniences of minitorch.composites against torch:
values, gradients, methods and errors."""
import numpy as np
import pytest

import minitorch as mt
from dispatch_log import recording_subclass

torch = pytest.importorskip("torch")

R = np.random.default_rng(5)
A = R.standard_normal((3, 4))
B = R.standard_normal((3, 4))
P = R.uniform(0.05, 0.95, (3, 4))
NAN = A.copy()
NAN[0, 1] = NAN[2, 3] = np.nan
INF = np.array([[-np.inf, np.inf, 1.0, -np.inf], [2.0, -1.0, np.inf, 0.0]])

CASES = [
    (lambda m, a, b: m.clamp_min(a, 0.1), A, B),
    (lambda m, a, b: a.clamp_max(b), A, B),
    (lambda m, a, b: m.ravel(a.t()), A, B),
    (lambda m, a, b: a.broadcast_to((2, 3, 4)), A, B),
    (lambda m, a, b: m.trace(a), A, B),
    (lambda m, a, b: a.trace(), A[:, :3], B),
    (lambda m, a, b: m.nansum(a), NAN, B),
    (lambda m, a, b: a.nansum(1, keepdim=True), NAN, B),
    (lambda m, a, b: m.nanmean(a, 0), NAN, B),
    (lambda m, a, b: a.nanmean(), NAN, B),
    (lambda m, a, b: m.logaddexp(a, b), A, B),
    (lambda m, a, b: a.logaddexp(b), INF, INF[::-1].copy()),
    (lambda m, a, b: m.xlogy(a, b.abs()), np.where(A > 0, A, 0.0), B),
    (lambda m, a, b: a.xlogy(2.0), A, B),
    (lambda m, a, b: m.take_along_dim(a, a.argsort(1), 1), A, B),
    (lambda m, a, b: a.take_along_dim(m.tensor([[0], [2], [1]])), A, B),
    (lambda m, a, b: m.take_along_dim(a, m.tensor([5, 0, 11])), A, B),
    (lambda m, a, b: m.diff(a), A, B),
    (lambda m, a, b: a.diff(2, 0, prepend=b[:1]), A, B),
    (lambda m, a, b: m.diff(a, dim=1, append=b), A, B),
    (lambda m, a, b: m.fliplr(a), A, B),
    (lambda m, a, b: a.flipud(), A, B),
    (lambda m, a, b: m.deg2rad(a) + b.rad2deg(), A, B),
    (lambda m, a, b: m.logit(a), P, B),
    (lambda m, a, b: a.logit(0.2), P, B),
    (lambda m, a, b: m.cdist(a, b), A, B),
    (lambda m, a, b: m.cdist(a.reshape(1, 3, 4), b[:2].reshape(1, 2, 4), p=1.0), A, B),
    (lambda m, a, b: m.atleast_3d(a[0])[0] * 2, A, B),
    (lambda m, a, b: m.stack(m.meshgrid(a[0], b[1, :3], indexing="xy")), A, B),
    (lambda m, a, b: m.stack(m.meshgrid([a[0], b[1, :3]], indexing="ij")), A, B),
]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_matches_torch(k):
    f, a, b = CASES[k]
    ma, mb = (mt.tensor(x, requires_grad=True) for x in (a, b))
    ta, tb = (torch.tensor(x, requires_grad=True) for x in (a, b))
    ym, yt = f(mt, ma, mb), f(torch, ta, tb)
    assert tuple(ym.shape) == tuple(yt.shape)
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-13)
    if not yt.requires_grad:
        return
    check_grads(ym, yt, ((ma, ta), (mb, tb)))


def check_grads(ym, yt, leaves):
    """Backpropagates one random upstream gradient through minitorch's ym and
    torch's yt; each (minitorch, torch) leaf pair then holds the same grad."""
    up = R.standard_normal(tuple(yt.shape))
    ym.backward(mt.tensor(up))
    yt.backward(torch.tensor(up))
    for x, y in leaves:
        if y.grad is None:
            assert x.grad is None or not x.grad.numpy().any()
        else:
            np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_shapes_of_atleast():
    for n in (1, 2, 3):
        for x in (np.float64(2.0), np.arange(3.0), np.ones((2, 3)), np.ones((2, 3, 4))):
            got = getattr(mt, f"atleast_{n}d")(mt.tensor(x))
            want = getattr(torch, f"atleast_{n}d")(torch.tensor(x))
            assert tuple(got.shape) == tuple(want.shape)
        pair = mt.atleast_2d(mt.tensor(1.0), mt.ones(3))
        assert [tuple(t.shape) for t in pair] == [(1, 1), (1, 3)]


def test_devices_and_type_as():
    x = mt.ones(2)
    assert x.cpu() is x
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        x.cuda()
    assert x.type_as(mt.ones(1, dtype=mt.int64)).dtype == mt.int64


def test_errors_match_torch():
    cases = [
        lambda m: m.trace(m.ones(2, 2, 2)),
        lambda m: m.nanmean(m.ones(3, dtype=m.int64)),
        lambda m: m.diff(m.tensor(1.0)),
        lambda m: m.fliplr(m.ones(3)),
        lambda m: m.cdist(m.ones(2, 3), m.ones(2, 4)),
        lambda m: m.meshgrid(m.ones(2), indexing="ab"),
    ]
    for f in cases:
        with pytest.raises(RuntimeError) as ours:
            f(mt)
        with pytest.raises(RuntimeError) as theirs:
            f(torch)
        assert str(ours.value) == str(theirs.value)


def test_meshgrid_warns_without_indexing():
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        grids = mt.meshgrid(mt.arange(2), mt.arange(3))
    assert [tuple(g.shape) for g in grids] == [(2, 3), (2, 3)]


def test_methods_dispatch_torch_function():
    seen = []
    logged = recording_subclass(mt, seen)
    x = mt.ones(2, 2).as_subclass(logged)
    assert isinstance(x.clamp_min(0.5), logged) and isinstance(mt.trace(x), logged)
    assert seen[:2] == ["clamp_min", "trace"]
