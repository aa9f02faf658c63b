"""The fused cross_entropy rows (kernels/loss_cross_entropy.c) against torch:
class-index targets of every rank, weights, ignore_index, label smoothing,
the three reductions, float32 and float64, gradients, double backward and
the errors."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

SHAPES = [(5,), (1, 1), (7, 13), (4, 65), (3, 1000), (3, 10, 4), (2, 5, 3, 2),
          (2, 3, 2, 2, 2), (0, 4), (3, 9, 0)]


def _target_shape(shape):
    return () if len(shape) == 1 else (shape[0],) + shape[2:]


def _run(lib, x, t, w, g, requires_grad=True, **kw):
    xi = lib.tensor(x, requires_grad=requires_grad)
    wi = None if w is None else lib.tensor(w)
    loss = lib.nn.functional.cross_entropy(xi, lib.tensor(t), weight=wi, **kw)
    (loss * lib.tensor(g)).sum().backward()
    return type(loss.grad_fn).__name__, loss.detach().numpy(), xi.grad.numpy()


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_and_grad_match_torch(shape, reduction, smoothing, weighted, dtype):
    rng = np.random.default_rng(sum(shape) + 7 * len(shape))
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    c = shape[0] if len(shape) == 1 else shape[1]
    tshape = _target_shape(shape)
    t = rng.integers(0, c, tshape)
    if t.size > 2:
        t.flat[1] = -100  # ignored by default
    w = rng.random(c).astype(dtype) + 0.5 if weighted else None
    g = rng.standard_normal(tshape if reduction == "none" else ()).astype(dtype)
    kw = dict(reduction=reduction, label_smoothing=smoothing)
    (mn, ml, mg), (tn, tl, tg) = (_run(lib, x, t, w, g, **kw) for lib in (mt, torch))
    if smoothing == 0:  # torch ends its smoothed composite with an add
        assert mn == tn
    assert ml.dtype == tl.dtype and ml.shape == tl.shape
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(ml, tl, rtol=tol, atol=tol, equal_nan=True)
    np.testing.assert_allclose(mg, tg, rtol=tol, atol=tol)


@pytest.mark.parametrize("ignore_index", [2, 0])
def test_ignore_index_and_non_contiguous(ignore_index):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 17))  # transposed: 17 samples of 6 classes
    t = rng.integers(0, 6, 34)
    w = rng.random(6) + 0.1
    outs = []
    for lib in (mt, torch):
        xi = lib.tensor(x, requires_grad=True)
        loss = lib.nn.functional.cross_entropy(xi.t(), lib.tensor(t)[::2], weight=lib.tensor(w),
                                               ignore_index=ignore_index, label_smoothing=0.1)
        loss.backward()
        outs.append((loss.detach().numpy(), xi.grad.numpy()))
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_every_position_ignored_gives_nan_mean_and_zero_grad(smoothing):
    for lib in (mt, torch):
        x = lib.tensor(np.random.default_rng(2).standard_normal((3, 4)), requires_grad=True)
        loss = lib.nn.functional.cross_entropy(x, lib.tensor([1, 1, 1]), ignore_index=1,
                                               label_smoothing=smoothing)
        loss.backward()
        assert np.isnan(loss.item())
        np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 4)))


def test_extreme_logits_match_torch():
    x = np.array([[1000.0, -1000.0, 0.0], [-np.inf, 0.0, 1.0], [88.0, 89.0, -200.0]],
                 dtype=np.float32)
    t = np.array([1, 0, 2])
    g = np.float32(1.0)
    (_, ml, mg), (_, tl, tg) = (_run(lib, x, t, None, g, reduction="none") for lib in (mt, torch))
    np.testing.assert_allclose(ml, tl, rtol=1e-6)
    # softmax comes back as exp(x - lse): lse near 89 carries float32's 8e-6
    np.testing.assert_allclose(mg, tg, rtol=5e-6, atol=1e-30)


@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 4), (5,)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("smoothing", [0.0, 0.25])
def test_gradcheck_and_gradgradcheck(shape, reduction, smoothing):
    rng = np.random.default_rng(3)
    c = shape[0] if len(shape) == 1 else shape[1]
    t = mt.tensor(rng.integers(0, c, _target_shape(shape)))
    w = mt.tensor(rng.random(c) + 0.5)
    x = mt.tensor(rng.standard_normal(shape), requires_grad=True)

    def f(x):
        return mt.nn.functional.cross_entropy(x, t, weight=w, ignore_index=1,
                                              reduction=reduction, label_smoothing=smoothing)
    assert mt.autograd.gradcheck(f, (x,))
    assert mt.autograd.gradgradcheck(f, (x,))


@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_double_backward_matches_torch(reduction):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 5))
    t = rng.integers(0, 5, 6)
    w = rng.random(5) + 0.5
    up = rng.standard_normal(6) if reduction == "none" else 0.7
    outs = []
    for lib in (mt, torch):
        xi = lib.tensor(x, requires_grad=True)
        upi = lib.tensor(up, requires_grad=True)
        loss = lib.nn.functional.cross_entropy(xi, lib.tensor(t), weight=lib.tensor(w),
                                               reduction=reduction, label_smoothing=0.15)
        (g,) = lib.autograd.grad(loss, xi, upi, create_graph=True)
        gx, gup = lib.autograd.grad((g * g.detach().exp()).sum(), (xi, upi))
        outs.append((g.detach().numpy(), gx.numpy(), gup.numpy()))
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("target", [70, -3])
def test_target_out_of_bounds(target):
    x = np.zeros((2, 5))
    for lib in (mt, torch):
        with pytest.raises(IndexError, match=f"Target {target} is out of bounds."):
            lib.nn.functional.cross_entropy(lib.tensor(x), lib.tensor([0, target]))


def test_label_smoothing_range():
    x = np.random.default_rng(6).standard_normal((2, 3))
    # torch smooths only for a positive value and does not check the others
    m = mt.nn.functional.cross_entropy(mt.tensor(x), mt.tensor([0, 1]), label_smoothing=-0.1)
    r = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor([0, 1]),
                                          label_smoothing=-0.1)
    np.testing.assert_allclose(m.numpy(), r.numpy(), rtol=1e-12)
    for lib in (mt, torch):
        with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0"):
            lib.nn.functional.cross_entropy(lib.zeros(2, 3), lib.tensor([0, 1]),
                                            label_smoothing=1.5)


def test_weight_errors_match_torch():
    for lib in (mt, torch):
        with pytest.raises(RuntimeError, match="weight tensor should be defined either for all "
                                               "3 classes or no classes"):
            lib.nn.functional.cross_entropy(lib.zeros(2, 3), lib.tensor([0, 1]),
                                            weight=lib.ones(4))
        w = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="not differentiable with respect to argument "
                                               "'weight'"):
            lib.nn.functional.cross_entropy(lib.zeros(2, 3), lib.tensor([0, 1]), weight=w)


def test_rows_check_their_operands():
    x, t = mt.zeros(2, 3), mt.tensor([0, 1])
    with pytest.raises(RuntimeError, match="does not match input"):
        mt._cross_entropy(x, mt.tensor([0, 1, 2]), None, 1, -100, 0.0)
    with pytest.raises(RuntimeError, match="expected contiguous"):
        mt._cross_entropy(mt.zeros(3, 2).t(), t, None, 1, -100, 0.0)
    with pytest.raises(RuntimeError, match="expected float32 or float64"):
        mt._cross_entropy(x.half(), t, None, 1, -100, 0.0)
    with pytest.raises(RuntimeError, match="grad_output does not match"):
        mt._cross_entropy_backward(mt.zeros(3), x, t, None, None, 0, -100, 0.0)
    loss, lse = mt._cross_entropy(x, t, None, 0, -100, 0.0)
    np.testing.assert_allclose(lse.numpy(), np.full(2, np.log(3.0)), rtol=1e-6)


def test_other_dtypes_and_probability_targets_keep_the_composite():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    p = rng.random((4, 3)).astype(np.float32)
    t = rng.integers(0, 3, 4)
    m = mt.nn.functional.cross_entropy(mt.tensor(x), mt.tensor(p), label_smoothing=0.1)
    r = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(p), label_smoothing=0.1)
    np.testing.assert_allclose(m.numpy(), r.numpy(), rtol=1e-6)
    m = mt.nn.functional.cross_entropy(mt.tensor(x).to(mt.bfloat16), mt.tensor(t))
    r = torch.nn.functional.cross_entropy(torch.tensor(x).to(torch.bfloat16), torch.tensor(t))
    np.testing.assert_allclose(m.float().numpy(), r.float().numpy(), rtol=1e-2)


@pytest.mark.parametrize("shape", [(4, 5), (4, 5, 3), (6,)])
@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_expanded_and_other_dtype_upstream_gradients(shape, reduction):
    # a sum's gradient arrives expanded (stride 0); a float32 upstream value
    # for float64 logits is cast as torch casts it
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape)
    c = shape[0] if len(shape) == 1 else shape[1]
    t = rng.integers(0, c, _target_shape(shape))
    grads = []
    for lib in (mt, torch):
        xi = lib.tensor(x, requires_grad=True)
        loss = lib.nn.functional.cross_entropy(xi, lib.tensor(t), reduction=reduction,
                                               label_smoothing=0.1)
        (loss.sum() * 1.5).backward()
        g1 = xi.grad.numpy().copy()
        xi.grad = None
        loss = lib.nn.functional.cross_entropy(xi, lib.tensor(t), reduction=reduction)
        loss.backward(lib.full(tuple(loss.shape), 0.5, dtype=lib.float32))
        grads.append((g1, xi.grad.numpy()))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
