"""Adaptive max pooling (F.adaptive_max_pool{1,2,3}d, nn.AdaptiveMaxPool*)
against torch: values, indices, gradients (gradcheck in float64, double
backward), grad_fn names, dtypes, None sizes, non-contiguous inputs, NaN,
ties, and errors."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def pair(shape, seed=0, dtype="float32"):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return mt.tensor(a), torch.tensor(a)


def arr(t):
    return np.asarray(t.detach().to(mt.float64).tolist() if isinstance(t, mt.Tensor)
                      else t.detach().double().numpy())


CASES = [
    (1, (2, 3, 7), 3), (1, (3, 10), 4), (1, (2, 3, 5), (5,)), (1, (2, 3, 5), 8),
    (2, (2, 3, 5, 7), (2, 3)), (2, (3, 9, 4), 3), (2, (1, 1, 5, 5), (5, 5)),
    (2, (2, 3, 5, 7), (None, 2)), (2, (2, 3, 4, 4), (7, 9)), (2, (2, 2, 13, 17), (4, 5)),
    (3, (2, 3, 4, 5, 6), (2, 3, 4)), (3, (3, 5, 4, 7), 2), (3, (2, 2, 4, 5, 6), (2, None, 3)),
    (3, (1, 2, 3, 3, 3), (5, 1, 2)),
]


@pytest.mark.parametrize("n, shape, size", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_indices_and_grads(n, shape, size, dtype):
    xm, xt = pair(shape, dtype=dtype)
    xm.requires_grad_()
    xt.requires_grad_()
    om, im = getattr(mt.nn.functional, f"adaptive_max_pool{n}d")(xm, size, True)
    ot, it = getattr(torch.nn.functional, f"adaptive_max_pool{n}d")(xt, size, True)
    assert tuple(om.shape) == tuple(ot.shape)
    np.testing.assert_array_equal(arr(om), arr(ot))
    assert im.tolist() == it.tolist()
    assert str(im.dtype).split(".")[-1] == "int64"
    assert type(om.grad_fn).__name__ == type(ot.grad_fn).__name__
    wm, wt = pair(tuple(ot.shape), seed=1, dtype=dtype)
    (om * wm).sum().backward()
    (ot * wt).sum().backward()
    np.testing.assert_allclose(arr(xm.grad), arr(xt.grad), rtol=1e-6, atol=1e-6)
    plain = getattr(mt.nn.functional, f"adaptive_max_pool{n}d")(xm, size)
    np.testing.assert_array_equal(arr(plain), arr(ot))


@pytest.mark.parametrize("n, shape, size", [(1, (2, 7), 3), (2, (2, 5, 6), (2, 4)),
                                            (3, (1, 3, 4, 5), (2, 3, 2))])
def test_gradcheck_and_double_backward(n, shape, size):
    x = mt.tensor(np.random.default_rng(3).permutation(np.prod(shape)).reshape(shape)
                  .astype(np.float64) / 7, requires_grad=True)  # distinct values: no ties
    f = getattr(mt.nn.functional, f"adaptive_max_pool{n}d")
    assert mt.autograd.gradcheck(lambda t: f(t, size), (x,))
    assert mt.autograd.gradgradcheck(lambda t: f(t, size), (x,))


def test_non_contiguous_and_half_precision():
    xm, xt = pair((2, 6, 5, 3))
    for view in [lambda x: x.transpose(1, 3), lambda x: x[:, ::2], lambda x: x.permute(0, 3, 1, 2)]:
        for dt in ["float32", "float16", "bfloat16"]:
            vm, vt = view(xm).to(getattr(mt, dt)), view(xt).to(getattr(torch, dt))
            om, im = mt.nn.functional.adaptive_max_pool2d(vm, (2, 3), True)
            ot, it = torch.nn.functional.adaptive_max_pool2d(vt, (2, 3), True)
            assert str(om.dtype).split(".")[-1] == str(ot.dtype).split(".")[-1]
            np.testing.assert_array_equal(arr(om), arr(ot))
            assert im.tolist() == it.tolist()


def test_nan_and_ties_pick_torch_positions():
    a = np.array([[[[1.0, 1.0, 0.0], [np.nan, 2.0, np.nan], [2.0, 2.0, -np.inf]]]],
                 dtype=np.float32)
    for size in [(1, 1), (2, 2), (3, 1), (1, 3)]:
        om, im = mt.nn.functional.adaptive_max_pool2d(mt.tensor(a), size, True)
        ot, it = torch.nn.functional.adaptive_max_pool2d(torch.tensor(a), size, True)
        np.testing.assert_array_equal(arr(om), arr(ot))
        assert im.tolist() == it.tolist()
    inf = np.full((1, 1, 2, 2), -np.inf, dtype=np.float32)
    assert mt.nn.functional.adaptive_max_pool2d(mt.tensor(inf), 1, True)[1].tolist() == \
        torch.nn.functional.adaptive_max_pool2d(torch.tensor(inf), 1, True)[1].tolist()


def test_empty_batch_and_zero_output():
    for shape, size in [((0, 3, 4, 4), (2, 2)), ((2, 3, 3), (0, 2))]:
        xm, xt = pair(shape)
        om = mt.nn.functional.adaptive_max_pool2d(xm, size)
        ot = torch.nn.functional.adaptive_max_pool2d(xt, size)
        assert tuple(om.shape) == tuple(ot.shape)


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.adaptive_max_pool2d(L.ones(3), 2),
    lambda L: L.nn.functional.adaptive_max_pool2d(L.ones(2, 0, 3), 2),
    lambda L: L.nn.functional.adaptive_max_pool2d(L.ones(2, 3, 3), (2, 3, 4)),
    lambda L: L.nn.functional.adaptive_max_pool2d(L.ones(2, 3, 3), (-1, 2)),
    lambda L: L.nn.functional.adaptive_max_pool2d(L.ones(2, 3, 3, dtype=L.int32), (2, 2)),
    lambda L: L.nn.functional.adaptive_max_pool3d(L.ones(3, 3), 2),
    lambda L: L.nn.functional.adaptive_max_pool3d(L.ones(2, 0, 3, 3), 2),
    lambda L: L.nn.functional.adaptive_max_pool3d(L.ones(2, 3, 3, 3), (2, 2)),
    lambda L: L.nn.functional.adaptive_max_pool3d(L.ones(2, 3, 3, 3), (2, -2, 2)),
    lambda L: L.nn.functional.adaptive_max_pool1d(L.ones(3), 2),
    lambda L: L.nn.functional.adaptive_max_pool1d(L.ones(2, 3, 4), (2, 2)),
    lambda L: L.nn.functional.adaptive_max_pool1d(L.ones(2, 3, 4), -1),
    lambda L: L.nn.functional.adaptive_max_pool1d(L.ones(2, 3, 4), (None,)),
])
def test_errors_match_torch(call):
    def outcome(L):
        try:
            call(L)
        except Exception as e:  # noqa: BLE001 - kind and words compared
            return type(e).__name__, str(e)
        return None
    assert outcome(mt) == outcome(torch)


@pytest.mark.parametrize("n, size, ri", [(1, 3, False), (1, 3, True), (2, (None, 2), True),
                                         (2, 2, False), (3, (2, 1, None), True)])
def test_modules(n, size, ri):
    shape = {1: (2, 3, 7), 2: (2, 3, 5, 6), 3: (2, 3, 4, 5, 6)}[n]
    xm, xt = pair(shape)
    mm = getattr(mt.nn, f"AdaptiveMaxPool{n}d")(size, ri)
    mtorch = getattr(torch.nn, f"AdaptiveMaxPool{n}d")(size, ri)
    assert repr(mm) == repr(mtorch)
    rm, rt = mm(xm), mtorch(xt)
    if ri:
        np.testing.assert_array_equal(arr(rm[0]), arr(rt[0]))
        assert rm[1].tolist() == rt[1].tolist()
    else:
        np.testing.assert_array_equal(arr(rm), arr(rt))
