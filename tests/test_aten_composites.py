"""aten ops minitorch writes in Python (minitorch/composites_aten.py) as
``ops.aten.<name>.<overload>`` against torch.ops.aten's: values, views,
gradients, errors, running statistics; and the overload objects themselves
(overloads, schema, a dispatch mode seeing the ops they are written with)."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.utils._python_dispatch import TorchDispatchMode
from torch_errors import same_error

torch = pytest.importorskip("torch")


def both(shape, seed, dtype=np.float64):
    a = np.random.default_rng(seed).normal(size=shape).astype(dtype)
    return mt.from_numpy(a.copy()), torch.from_numpy(a.copy())


def close(got, want, rtol=1e-10, atol=1e-12):
    assert list(got.shape) == list(want.shape)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol,
                               atol=atol)


@pytest.mark.parametrize("shape,args", [((7,), ()), ((7,), (0, 2)), ((7,), (0, -3, 100)),
                                        ((4, 6, 5), (1, 1, -2, 2)), ((4, 6, 5), (-1, -10, 4, 3)),
                                        ((4, 6, 5), (2, 9, 20)), ((4, 6, 5), (0, None, None, 3))])
def test_slice_values_view_and_gradient(shape, args):
    x, tx = both(shape, 0)
    got = mt.ops.aten.slice.Tensor(x, *args)
    want = torch.ops.aten.slice.Tensor(tx, *args)
    close(got, want)
    assert got._base is x if got.numel() else True
    x.requires_grad_()
    tx.requires_grad_()
    g, tg = both(tuple(want.shape), 1)
    (mt.ops.aten.slice.Tensor(x, *args) * g).sum().backward()
    (torch.ops.aten.slice.Tensor(tx, *args) * tg).sum().backward()
    close(x.grad, tx.grad)


@pytest.mark.parametrize("shape,args", [((), (0,)), ((3,), (2,)), ((3,), (0, 0, 2, 0)),
                                        ((3,), (0, 0, 2, -1)), ((3, 4), (-3,))])
def test_slice_errors(shape, args):
    x, tx = both(shape, 0)
    same_error(lambda: mt.ops.aten.slice.Tensor(x, *args),
               lambda: torch.ops.aten.slice.Tensor(tx, *args))


@pytest.mark.parametrize("shape,dim", [((4, 5), 1), ((4, 5), 0), ((2, 3, 4), -1), ((6,), 0)])
@pytest.mark.parametrize("masked", ["none", "some_rows", "all"])
def test_safe_softmax(shape, dim, masked):
    x, tx = both(shape, 2)
    rng = np.random.default_rng(3)
    keep = rng.random(shape) < 0.6
    if masked == "all":
        keep[...] = False
    elif masked == "some_rows":
        first = [0] * len(shape)
        first[dim] = slice(None)
        keep[tuple(first)] = False
    inf = np.where(keep, 0.0, -np.inf)
    x, tx = x + mt.from_numpy(inf), tx + torch.from_numpy(inf)
    x.requires_grad_()
    tx.requires_grad_()
    got = mt.ops.aten._safe_softmax.default(x, dim)
    want = torch.ops.aten._safe_softmax.default(tx, dim)
    close(got, want)
    assert not bool(got.isnan().any())
    g, tg = both(shape, 4)
    (got * g).sum().backward()
    (want * tg).sum().backward()
    close(x.grad, tx.grad)
    # the public function is the same op, with softmax's dtype argument
    close(mt._safe_softmax(x, dim, dtype=mt.float32), torch._safe_softmax(tx, dim, torch.float32),
          rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("scale", [0.0, 1.0, 2.5])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3, 4)])
def test_native_dropout_backward(dtype, scale, shape):
    rng = np.random.default_rng(5)
    g = np.asarray(rng.normal(size=shape) * 4).astype(dtype)
    mask = np.asarray(rng.random(shape) < 0.5)
    got = mt.ops.aten.native_dropout_backward.default(mt.from_numpy(g.copy()),
                                                      mt.from_numpy(mask.copy()), scale)
    want = torch.ops.aten.native_dropout_backward.default(torch.from_numpy(g.copy()),
                                                          torch.from_numpy(mask.copy()), scale)
    close(got, want, rtol=1e-6)


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (3, 2, 2, 2)])
@pytest.mark.parametrize("affine", [False, True])
def test_batch_norm_with_update(shape, affine):
    x, tx = both(shape, 6)
    c = shape[1]
    w, tw = both((c,), 7) if affine else (None, None)
    b, tb = both((c,), 8) if affine else (None, None)
    rm, trm = both((c,), 9)
    rv, trv = mt.ones(c, dtype=mt.float64), torch.ones(c, dtype=torch.float64)
    got = mt.ops.aten._batch_norm_with_update.default(x, w, b, rm, rv, 0.3, 1e-5)
    want = torch.ops.aten._batch_norm_with_update.default(tx, tw, tb, trm, trv, 0.3, 1e-5)
    assert len(got) == 4
    for g, t in zip(got, want):
        close(g, t)
    close(rm, trm)
    close(rv, trv)


@pytest.mark.parametrize("stats", [True, False])
@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm_legit(stats, training):
    if not stats and not training:
        x = mt.ones(2, 3)
        with pytest.raises(RuntimeError, match="needs training=True"):
            mt._native_batch_norm_legit(x, None, None, False, 0.1, 1e-5)
        return
    x, tx = both((4, 3, 2), 10)
    w, tw = both((3,), 11)
    rm, trm = both((3,), 12)
    rv, trv = mt.ones(3, dtype=mt.float64), torch.ones(3, dtype=torch.float64)
    stat = (rm, rv) if stats else ()
    tstat = (trm, trv) if stats else ()
    got = mt._native_batch_norm_legit(x, w, None, *stat, training, 0.2, 1e-5)
    want = torch._native_batch_norm_legit(tx, tw, None, *tstat, training, 0.2, 1e-5)
    for g, t in zip(got, want):
        close(g, t)
    if stats:
        close(rm, trm)
    out = tuple(mt.empty(0, dtype=mt.float64) for _ in range(3))
    res = mt._native_batch_norm_legit(x, w, None, *stat, training, 0.2, 1e-5, out=out)
    assert all(r is o for r, o in zip(res, out))
    for o, t in zip(out, want):
        close(o, t)


@pytest.mark.parametrize("shape,kernel,stride,padding,dilation,ceil",
                         [((1, 2, 6, 6), 2, 2, 0, 1, False), ((2, 3, 7, 5), 3, 2, 1, 1, True),
                          ((3, 8, 8), (2, 3), (1, 2), (1, 0), (2, 1), False)])
def test_max_pool2d_with_indices_backward(shape, kernel, stride, padding, dilation, ceil):
    x, tx = both(shape, 13)
    out, idx = mt.nn.functional.max_pool2d_with_indices(x, kernel, stride, padding, dilation,
                                                        ceil)
    tout, tidx = torch.nn.functional.max_pool2d_with_indices(tx, kernel, stride, padding,
                                                             dilation, ceil)
    close(out, tout)
    assert idx.tolist() == tidx.tolist()
    g, tg = both(tuple(tout.shape), 14)
    g.requires_grad_()
    tg.requires_grad_()
    pair = lambda v: list(v) if isinstance(v, tuple) else [v, v]  # noqa: E731
    args = (pair(kernel), pair(stride), pair(padding), pair(dilation), ceil)
    got = mt.ops.aten.max_pool2d_with_indices_backward.default(g, x, *args, idx)
    want = torch.ops.aten.max_pool2d_with_indices_backward.default(tg, tx, *args, tidx)
    close(got, want)
    c, tc = both(tuple(want.shape), 15)
    (got * c).sum().backward()
    (want * tc).sum().backward()
    close(g.grad, tg.grad)


@pytest.mark.parametrize("n", [1, 3])
def test_max_pool_with_indices_functions(n):
    shape = (2, 3) + (6,) * n
    x, tx = both(shape, 16)
    for name in ("max_pool1d_with_indices", "max_pool2d_with_indices",
                 "max_pool3d_with_indices")[n - 1:n]:
        out, idx = getattr(mt.nn.functional, name)(x, 2, 2)
        tout, tidx = getattr(torch.nn.functional, name)(tx, 2, 2)
        close(out, tout)
        assert idx.tolist() == tidx.tolist()


def test_composite_overloads_as_objects():
    aten = mt.ops.aten
    assert aten.slice.overloads() == ["Tensor"]
    assert aten.slice.Tensor is aten.slice.Tensor
    assert aten.slice.Tensor.name() == "aten::slice.Tensor"
    assert repr(aten._safe_softmax.default) == \
        "<OpOverload(op='aten._safe_softmax', overload='default')>"
    assert "dim" in aten.slice.Tensor._schema
    assert "slice" in list(aten) and "sin" in list(aten)
    with pytest.raises(AttributeError, match="no overload name 'default'"):
        aten.slice.default
    # the packet runs the public function where there is one, else the overload
    x = mt.arange(6.0)
    assert aten.slice(x, 0, 1, 3).tolist() == [1.0, 2.0]
    assert aten._safe_softmax(x, 0).tolist() == mt.softmax(x, 0).tolist()


def test_dispatch_mode_sees_a_composites_ops():
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(func.name())
            return func(*args, **(kwargs or {}))

    g, m = mt.ones(4), mt.tensor([True, False, True, True])
    with Log():
        out = mt.ops.aten.native_dropout_backward.default(g, m, 2.0)
    assert out.tolist() == [2.0, 0.0, 2.0, 2.0]
    assert "aten::mul.Tensor" in seen and "aten::native_dropout_backward" not in seen


AA_CASES = [((2, 3, 10, 20), [3, 3], False, {}), ((2, 3, 10, 20), [5, 5], False, {}),
            ((2, 3, 10, 20), None, False, {"scale_factors": [1.7, 0.9]}),
            ((2, 3, 10, 20), None, True, {"scale_factors": [0.8, 1.0]}),
            ((1, 2, 7, 9), [3, 3], False, {"scales_h": 1.7, "scales_w": 0.9}),
            ((1, 2, 7, 9), [3, 3], True, {"scales_h": 1.7, "scales_w": 0.9}),
            ((1, 1, 4, 5), [9, 11], False, {}), ((1, 1, 6, 6), [1, 1], True, {}),
            ((2, 1, 30, 8), [4, 8], False, {})]


@pytest.mark.parametrize("case", range(len(AA_CASES)))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", ["_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa"])
def test_upsample_2d_aa(name, case, dtype):
    shape, size, corners, kw = AA_CASES[case]
    x, tx = both(shape, 17, dtype)
    x.requires_grad_()
    tx.requires_grad_()
    got = getattr(mt.ops.aten, name)(x, size, corners, **kw)
    want = getattr(torch.ops.aten, name)(tx, size, corners, **kw)
    tol = (1e-10, 1e-12) if dtype == np.float64 else (1e-5, 1e-6)
    close(got, want, *tol)
    if "scale_factors" in kw:
        close(getattr(mt.ops.aten, name).vec(x, None, corners, kw["scale_factors"]),
              getattr(torch.ops.aten, name).vec(tx, None, corners, kw["scale_factors"]),
              *tol)
    c, tc = both(tuple(want.shape), 18, dtype)
    (got * c).sum().backward()
    (want * tc).sum().backward()
    close(x.grad, tx.grad, *tol)


@pytest.mark.parametrize("args,kw", [(((3, 4, 5), [2, 2], False), {}),
                                     (((1, 3, 4, 5), [2, 2], False), {"scale_factors": [1., 1.]}),
                                     (((1, 3, 4, 5), None, False), {"scale_factors": None}),
                                     (((1, 3, 4, 5), [0, 2], False), {}),
                                     (((1, 3, 4, 5), [2], False), {})])
@pytest.mark.parametrize("name", ["_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa"])
def test_upsample_2d_aa_errors(name, args, kw):
    shape, *rest = args
    x, tx = both(shape, 19)
    mine, theirs = getattr(mt.ops.aten, name), getattr(torch.ops.aten, name)
    same_error(lambda: mine(x, *rest, **kw), lambda: theirs(tx, *rest, **kw))
    for cast in ("long", "half"):
        same_error(lambda: mine(getattr(x, cast)(), [2, 2], False),
                   lambda: theirs(getattr(tx, cast)(), [2, 2], False))


@pytest.mark.parametrize("kw", [{"size": (3, 4)}, {"size": 9}, {"scale_factor": 0.45},
                                {"scale_factor": (0.3, 1.6), "recompute_scale_factor": True},
                                {"size": (2, 5), "align_corners": True}])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_interpolate_bilinear_antialias(kw, dtype):
    x, tx = both((2, 3, 11, 13), 20, dtype)
    got = mt.nn.functional.interpolate(x, mode="bilinear", antialias=True, **kw)
    want = torch.nn.functional.interpolate(tx, mode="bilinear", antialias=True, **kw)
    close(got, want, *((1e-10, 1e-12) if dtype == np.float64 else (1e-5, 1e-6)))
