"""nn.functional's Python functions raise torch's exception types and
messages, in torch's order, and take the inputs torch takes: pooling
windows, adaptive pooling sizes (None, ValueError), margin losses,
rms_norm, embedding, gaussian_nll_loss; and the composites hsplit/vsplit,
tensordot (size-1 contracted dims), index_fill/index_copy (0-d)."""
import numpy as np
import pytest

import minitorch as mt
from torch_errors import same_error

torch = pytest.importorskip("torch")


def both(shape, dtype="float64", seed=0):
    a = np.random.default_rng(seed).normal(size=shape).astype(dtype)
    return mt.from_numpy(a.copy()), torch.from_numpy(a.copy())


POOL_ERRORS = [
    ("max_pool1d", (0, 1, 49), {"kernel_size": 2, "stride": 50, "padding": 4}),
    ("max_pool1d", (0, 1, 49), {"kernel_size": 2, "padding": -1}),
    ("max_pool1d", (), {"kernel_size": 1}),
    ("max_pool1d", (0, 10), {"kernel_size": 1}),
    ("max_pool1d", (1, 10, 0), {"kernel_size": 1}),
    ("max_pool1d", (3, 3, 3), {"kernel_size": 1, "stride": 0}),
    ("max_pool1d", (3, 3, 3), {"kernel_size": 1, "dilation": 0}),
    ("max_pool1d", (2, 2, 2), {"kernel_size": 5}),
    ("max_pool1d", (0, 1, 49), {"kernel_size": 0}),
    ("max_pool3d", (0, 1, 2, 10), {"kernel_size": 1}),
    ("max_pool3d", (2, 1, 3, 0, 2), {"kernel_size": 1}),
    ("max_pool3d", (2, 2, 2), {"kernel_size": 1}),
    ("max_pool3d", (0, 1, 49, 50), {"kernel_size": 2, "stride": 50, "padding": -1}),
    ("max_pool3d", (0, 1, 49, 50), {"kernel_size": (3, 2, 2), "stride": 50, "padding": 4}),
    ("avg_pool3d", (0, 1, 49, 50), {"kernel_size": 2, "stride": 50, "padding": -1}),
    ("avg_pool3d", (0, 1, 49, 50), {"kernel_size": 2, "stride": 50, "padding": 4}),
    ("avg_pool3d", (2, 1, 0, 1, 2), {"kernel_size": 1}),
    ("avg_pool3d", (1, 2, 2), {"kernel_size": 1}),
]


@pytest.mark.parametrize("name,shape,kw", POOL_ERRORS)
def test_pool_errors_are_torchs(name, shape, kw):
    m, t = both(shape)
    same_error(lambda: getattr(mt.nn.functional, name)(m, **kw),
               lambda: getattr(torch.nn.functional, name)(t, **kw))


@pytest.mark.parametrize("ceil_mode", [False, True])
@pytest.mark.parametrize("kw", [{"kernel_size": 3}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": 2, "dilation": 2}])
def test_max_pool1d_values_still_torchs(kw, ceil_mode):
    m, t = both((2, 3, 11))
    np.testing.assert_allclose(mt.nn.functional.max_pool1d(m, ceil_mode=ceil_mode, **kw).numpy(),
                               torch.nn.functional.max_pool1d(t, ceil_mode=ceil_mode,
                                                              **kw).numpy())


@pytest.mark.parametrize("name,shape,size", [
    ("adaptive_avg_pool2d", (2, 5, 7), (None, 3)),
    ("adaptive_avg_pool2d", (1, 2, 5, 7), (4, None)),
    ("adaptive_avg_pool2d", (1, 2, 5, 7), (None, None)),
    ("adaptive_avg_pool2d", (1, 2, 5, 7), 3),
    ("adaptive_avg_pool3d", (1, 2, 4, 5, 6), (None, 2, None)),
    ("adaptive_max_pool2d", (2, 5, 7), (None, 2)),
])
def test_adaptive_pool_sizes_with_none(name, shape, size):
    m, t = both(shape)
    m.requires_grad_()
    t.requires_grad_()
    got = getattr(mt.nn.functional, name)(m, size)
    want = getattr(torch.nn.functional, name)(t, size)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name,shape,size", [
    ("adaptive_avg_pool2d", (2, 2), (2, 2)),
    ("adaptive_avg_pool3d", (2, 2, 2), (2, 2, 2)),
    ("adaptive_avg_pool2d", (1, 2, 3, 4), ()),
    ("adaptive_avg_pool3d", (1, 2, 3, 4), ()),
    ("adaptive_avg_pool2d", (1, 1, 1, 1), (-1, 0)),
])
def test_adaptive_pool_size_errors(name, shape, size):
    m, t = both(shape)
    with pytest.raises(Exception) as theirs:
        getattr(torch.nn.functional, name)(t, size)
    with pytest.raises(Exception) as ours:
        getattr(mt.nn.functional, name)(m, size)
    assert type(ours.value) is type(theirs.value)


def test_adaptive_avg_pool2d_dispatches_torch_function():
    class Sub(mt.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "seen"

    x = mt.zeros(1, 2, 3).as_subclass(Sub)
    assert mt.nn.functional.adaptive_avg_pool2d(x, 1) == "seen"


MULTI_MARGIN = [
    ((5, 4), (5,), "float32", {}),
    ((5, 4), (5, 4), "int64", {}),
    ((5, 4), (5,), "int64", {"weight": ()}),
    ((5, 4), (5,), "int64", {"weight": (5, 4)}),
    ((5, 4), (5,), "int64", {"weight": (5,)}),
    ((5, 0), (5,), "int64", {}),
    ((0,), (5,), "int64", {}),
]


@pytest.mark.parametrize("shape,tshape,tdtype,kw", MULTI_MARGIN)
def test_multi_margin_loss_errors(shape, tshape, tdtype, kw):
    m, t = both(shape)
    tm = mt.zeros(tshape, dtype=getattr(mt, tdtype))
    tt = torch.zeros(tshape, dtype=getattr(torch, tdtype))
    wm = {k: mt.ones(v) for k, v in kw.items()}
    wt = {k: torch.ones(v, dtype=torch.float64) for k, v in kw.items()}
    same_error(lambda: mt.nn.functional.multi_margin_loss(m, tm, **wm),
               lambda: torch.nn.functional.multi_margin_loss(t, tt, **wt))


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multi_margin_loss_of_a_0d_input(p, reduction):
    m = mt.tensor(0.7, dtype=mt.float64, requires_grad=True)
    t = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    got = mt.nn.functional.multi_margin_loss(m, mt.tensor(0), p=p, reduction=reduction)
    want = torch.nn.functional.multi_margin_loss(t, torch.tensor(0), p=p, reduction=reduction)
    assert list(got.shape) == list(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy())
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy())


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("margin", [0, 0.5, 2])
def test_margin_ranking_loss_of_integers_is_float(reduction, margin):
    a, b, y = [1, 2, 3, -4], [3, 2, 1, 0], [1, -1, 1, -1]
    got = mt.nn.functional.margin_ranking_loss(mt.tensor(a), mt.tensor(b), mt.tensor(y),
                                               margin=margin, reduction=reduction)
    want = torch.nn.functional.margin_ranking_loss(torch.tensor(a), torch.tensor(b),
                                                   torch.tensor(y), margin=margin,
                                                   reduction=reduction)
    assert str(got.dtype) == "minitorch.float32" and want.dtype == torch.float32
    np.testing.assert_allclose(got.numpy(), want.numpy())


def test_soft_margin_loss_shape_message():
    m, t = both((5, 4))
    same_error(lambda: mt.nn.functional.soft_margin_loss(m, mt.zeros(5, dtype=mt.float64)),
               lambda: torch.nn.functional.soft_margin_loss(t, torch.zeros(5,
                                                                           dtype=torch.float64)))


@pytest.mark.parametrize("vshape", [(10, 2, 2), (10, 2), (10, 2, 1), (10, 1, 3), (3,)])
def test_gaussian_nll_loss_var_shapes(vshape):
    m, t = both((10, 2, 3))
    vm, vt = both(vshape, seed=2)
    vm, vt = vm.abs(), vt.abs()
    try:
        want = torch.nn.functional.gaussian_nll_loss(t, t * 0.5, vt)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        with pytest.raises(type(e), match=str(e)[:20]):
            mt.nn.functional.gaussian_nll_loss(m, m * 0.5, vm)
        return
    got = mt.nn.functional.gaussian_nll_loss(m, m * 0.5, vm)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("shape", [(), (1, 1, 1), (3,)])
def test_embedding_weight_must_be_2d(shape):
    wm, wt = both(shape)
    same_error(lambda: mt.nn.functional.embedding(mt.tensor([0]), wm),
               lambda: torch.nn.functional.embedding(torch.tensor([0]), wt))


def test_rms_norm_empty_normalized_shape():
    m, t = both((1, 2, 3))
    same_error(lambda: mt.nn.functional.rms_norm(m, ()),
               lambda: torch.nn.functional.rms_norm(t, ()))


@pytest.mark.parametrize("name", ["hsplit", "vsplit", "dsplit"])
@pytest.mark.parametrize("arg", ["abc", 1.5, None])
def test_split_of_a_wrong_type(name, arg):
    m, t = both((4, 4, 4))
    same_error(lambda: getattr(mt, name)(m, arg), lambda: getattr(torch, name)(t, arg))


@pytest.mark.parametrize("ashape,bshape,dims", [
    ((1, 1, 1), (2, 1, 2), ([0, 1], [2, 0])),
    ((2, 2, 1), (2, 1, 2), ([0, 1], [2, 0])),
    ((3, 1, 4), (5, 3, 2), ([0, 1], [1, 0])),
    ((3, 4), (1, 5), ([1], [0])),
    ((3, 4), (4, 5), 1),
])
def test_tensordot_broadcasts_size_1_dims(ashape, bshape, dims):
    am, at = both(ashape)
    bm, bt = both(bshape, seed=1)
    for x in (am, at, bm, bt):
        x.requires_grad_()
    got, want = mt.tensordot(am, bm, dims=dims), torch.tensordot(at, bt, dims=dims)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(am.grad.numpy(), at.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(bm.grad.numpy(), bt.grad.numpy(), rtol=1e-12)


def test_tensordot_mismatch_still_raises():
    am, at = both((3, 4))
    bm, bt = both((2, 5))
    same_error(lambda: mt.tensordot(am, bm, dims=([1], [0])),
               lambda: torch.tensordot(at, bt, dims=([1], [0])))


@pytest.mark.parametrize("value_is_tensor", [False, True])
def test_index_fill_of_a_0d_tensor(value_is_tensor):
    m = mt.tensor(1.5, dtype=mt.float64, requires_grad=True)
    t = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    vm = mt.tensor(-2.0, dtype=mt.float64, requires_grad=True) if value_is_tensor else -2.0
    vt = torch.tensor(-2.0, dtype=torch.float64, requires_grad=True) if value_is_tensor else -2.0
    got = m.index_fill(0, mt.tensor([0]), vm)
    want = t.index_fill(0, torch.tensor([0]), vt)
    assert list(got.shape) == [] and got.item() == want.item()
    (got * 3).backward()
    (want * 3).backward()
    assert m.grad.item() == t.grad.item()
    if value_is_tensor:
        assert vm.grad.item() == vt.grad.item()


def test_index_fill_value_gradient_counts_a_repeated_index_once():
    m, t = both((5, 5))
    vm = mt.tensor(0.3, dtype=mt.float64, requires_grad=True)
    vt = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
    idx = [4, 3, 3, 4, 0]
    w = np.random.default_rng(7).normal(size=(5, 5))
    (m.index_fill(-1, mt.tensor(idx), vm) * mt.from_numpy(w)).sum().backward()
    (t.index_fill(-1, torch.tensor(idx), vt) * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(vm.grad.numpy(), vt.grad.numpy(), rtol=1e-12)


def test_index_copy_of_a_0d_tensor():
    m = mt.tensor(1.5, dtype=mt.float64, requires_grad=True)
    s = mt.tensor(4.0, dtype=mt.float64, requires_grad=True)
    got = m.index_copy(0, mt.tensor([0]), s)
    want = torch.tensor(1.5).index_copy(0, torch.tensor([0]), torch.tensor(4.0))
    assert list(got.shape) == [] and got.item() == want.item()
    got.backward()
    assert m.grad.item() == 0.0 and s.grad.item() == 1.0
    y = mt.tensor(2.0)
    assert y.index_copy_(0, mt.tensor([0]), mt.tensor(7.0)) is y and y.item() == 7.0
