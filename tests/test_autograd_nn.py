"""Gradients of convolution and pooling against torch (float64, random shapes)."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")
F = torch.nn.functional
MF = mt.nn.functional
# torch warns that even kernels with padding='same' may copy the input
pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same'")


def pair(shape, rng, transpose=False):
    """The same random float64 data as a torch and a minitorch leaf; with
    transpose the minitorch one is a non-contiguous view."""
    a = rng.standard_normal(shape)
    t = torch.tensor(a, requires_grad=True)
    if transpose and len(shape) >= 2:
        m = mt.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).transpose(-1, -2)
        m.requires_grad_(True)
    else:
        m = mt.tensor(a, requires_grad=True)
    return t, m


def check_grads(t_out, m_out, t_leaves, m_leaves, rng, atol=1e-10):
    name = type(t_out.grad_fn).__name__
    if name == "SqueezeBackward1":
        # torch records an unbatched convolution as a batched one plus a squeeze
        name = type(t_out.grad_fn.next_functions[0][0]).__name__
    assert type(m_out.grad_fn).__name__ == name
    g = rng.standard_normal(tuple(t_out.shape))
    t_out.backward(torch.tensor(g))
    m_out.backward(mt.tensor(g))
    for t, m in zip(t_leaves, m_leaves):
        if t is None:
            continue
        assert m.grad is not None
        assert tuple(m.grad.shape) == tuple(t.grad.shape)
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=atol)


def conv_configs(nsp, count, seed):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        groups = int(rng.choice([1, 2, 3]))
        cin, cout = groups * int(rng.integers(1, 3)), groups * int(rng.integers(1, 3))
        k = tuple(int(v) for v in rng.integers(1, 4, nsp))
        stride = tuple(int(v) for v in rng.integers(1, 3, nsp))
        dil = tuple(int(v) for v in rng.integers(1, 3, nsp))
        pad = tuple(int(v) for v in rng.integers(0, 3, nsp))
        size = tuple(int(v) for v in rng.integers(5, 9, nsp))
        batch = [int(rng.integers(1, 4))] if rng.random() < 0.8 else []
        yield dict(x=tuple(batch) + (cin,) + size, w=(cout, cin // groups) + k,
                   bias=bool(rng.random() < 0.7), stride=stride, padding=pad, dilation=dil,
                   groups=groups, transpose=bool(rng.random() < 0.3))


@pytest.mark.parametrize("nsp,tf,mf", [(1, F.conv1d, MF.conv1d), (2, F.conv2d, MF.conv2d)])
def test_conv_grads_random(nsp, tf, mf):
    rng = np.random.default_rng(nsp)
    for cfg in conv_configs(nsp, 25, seed=10 + nsp):
        tx, mx = pair(cfg["x"], rng, cfg["transpose"])
        tw, mw = pair(cfg["w"], rng)
        tb, mb = pair((cfg["w"][0],), rng) if cfg["bias"] else (None, None)
        kw = dict(stride=cfg["stride"], padding=cfg["padding"], dilation=cfg["dilation"],
                  groups=cfg["groups"])
        check_grads(tf(tx, tw, tb, **kw), mf(mx, mw, mb, **kw), [tx, tw, tb], [mx, mw, mb],
                    rng)


@pytest.mark.parametrize("padding", ["same", "valid"])
@pytest.mark.parametrize("k,dil", [((3, 3), 1), ((4, 2), 1), ((2, 3), 2), ((1, 1), 3)])
def test_conv2d_string_padding(padding, k, dil):
    rng = np.random.default_rng(5)
    tx, mx = pair((2, 3, 9, 8), rng)
    tw, mw = pair((4, 3) + k, rng)
    t_out = F.conv2d(tx, tw, padding=padding, dilation=dil)
    check_grads(t_out, mt.conv2d(mx, mw, padding=padding, dilation=dil), [tx, tw], [mx, mw],
                rng)


def test_conv1d_same_even_kernel():
    rng = np.random.default_rng(6)
    tx, mx = pair((2, 3, 11), rng)
    tw, mw = pair((5, 3, 4), rng)
    tb, mb = pair((5,), rng)
    t_out = F.conv1d(tx, tw, tb, padding="same", dilation=3)
    check_grads(t_out, MF.conv1d(mx, mw, mb, padding="same", dilation=3), [tx, tw, tb],
                [mx, mw, mb], rng)


def test_conv_only_some_inputs_need_grad():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 4, 6, 6))
    tw, mw = pair((6, 2, 3, 3), rng)
    t_out = F.conv2d(torch.tensor(x), tw, groups=2, padding=1)
    m_out = mt.conv2d(mt.tensor(x), mw, groups=2, padding=1)
    check_grads(t_out, m_out, [tw], [mw], rng)
    tx, mx = pair((2, 4, 6, 6), rng)
    w = rng.standard_normal((6, 2, 3, 3))
    check_grads(F.conv2d(tx, torch.tensor(w), groups=2), mt.conv2d(mx, mt.tensor(w), groups=2),
                [tx], [mx], rng)


def test_conv_float32_and_expanded_grad():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((4, 3, 10, 10)).astype(np.float32)
    w = rng.standard_normal((8, 3, 3, 3)).astype(np.float32)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    mx, mw = mt.tensor(x, requires_grad=True), mt.tensor(w, requires_grad=True)
    F.conv2d(tx, tw, stride=2, padding=1).sum().backward()
    mt.conv2d(mx, mw, stride=2, padding=1).sum().backward()  # upstream grad has strides 0
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(mw.grad.numpy(), tw.grad.numpy(), rtol=1e-4, atol=1e-3)


def test_conv_empty_batch():
    mx = mt.zeros(0, 3, 5, 5, dtype=mt.float64, requires_grad=True)
    mw = mt.ones(2, 3, 3, 3, dtype=mt.float64, requires_grad=True)
    mb = mt.ones(2, dtype=mt.float64, requires_grad=True)
    mt.conv2d(mx, mw, mb).sum().backward()
    assert tuple(mx.grad.shape) == (0, 3, 5, 5)
    assert mw.grad.abs().sum().item() == 0
    assert mb.grad.abs().sum().item() == 0


def test_conv_module_grads_match_torch():
    rng = np.random.default_rng(9)
    tconv = torch.nn.Conv2d(3, 6, 3, padding=1, dtype=torch.float64)
    mconv = mt.nn.Conv2d(3, 6, 3, padding=1, dtype=mt.float64)
    with mt.no_grad():
        mconv.weight.copy_(mt.tensor(tconv.weight.detach().numpy()))
        mconv.bias.copy_(mt.tensor(tconv.bias.detach().numpy()))
    x = rng.standard_normal((2, 3, 7, 7))
    check_grads(tconv(torch.tensor(x)), mconv(mt.tensor(x)), [tconv.weight, tconv.bias],
                [mconv.weight, mconv.bias], rng)


# ------------------------------------------------------------------ pooling

def pool_configs(count, seed, dilation=True):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        k = tuple(int(v) for v in rng.integers(1, 4, 2))
        d = tuple(int(v) for v in rng.integers(1, 3, 2)) if dilation else (1, 1)
        p = tuple(int(rng.integers(0, k[i] // 2 + 1)) for i in range(2))
        s = tuple(int(v) for v in rng.integers(1, 4, 2)) if rng.random() < 0.8 else None
        batch = (int(rng.integers(1, 3)),) if rng.random() < 0.8 else ()
        shape = batch + (int(rng.integers(1, 4)),) + tuple(int(v) for v in rng.integers(6, 10, 2))
        yield shape, k, s, p, d, bool(rng.random() < 0.5), bool(rng.random() < 0.3)


def test_max_pool2d_grads_random():
    rng = np.random.default_rng(20)
    for shape, k, s, p, d, ceil, transpose in pool_configs(40, 21):
        tx, mx = pair(shape, rng, transpose)
        kw = dict(kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=ceil)
        check_grads(F.max_pool2d(tx, **kw), MF.max_pool2d(mx, **kw), [tx], [mx], rng)


def test_max_pool2d_ties_and_overlap():
    # small integers make ties; overlapping windows send several grads to one place
    rng = np.random.default_rng(22)
    a = rng.integers(0, 3, (2, 3, 8, 8)).astype(np.float64)
    tx, mx = torch.tensor(a, requires_grad=True), mt.tensor(a, requires_grad=True)
    check_grads(F.max_pool2d(tx, 3, 1, 1), MF.max_pool2d(mx, 3, 1, 1), [tx], [mx], rng)


def test_max_pool2d_return_indices():
    rng = np.random.default_rng(23)
    tx, mx = pair((2, 3, 7, 7), rng)
    t_out, t_idx = F.max_pool2d(tx, 2, return_indices=True)
    m_out, m_idx = MF.max_pool2d(mx, 2, return_indices=True)
    assert not m_idx.requires_grad and m_idx.grad_fn is None
    assert m_out.requires_grad
    np.testing.assert_array_equal(m_idx.numpy(), t_idx.numpy())
    check_grads(t_out, m_out, [tx], [mx], rng)


def test_max_pool2d_module_float32():
    rng = np.random.default_rng(24)
    x = rng.standard_normal((4, 5, 12, 12)).astype(np.float32)
    tx, mx = torch.tensor(x, requires_grad=True), mt.tensor(x, requires_grad=True)
    torch.nn.MaxPool2d(2)(tx).sum().backward()
    mt.nn.MaxPool2d(2)(mx).sum().backward()
    np.testing.assert_array_equal(mx.grad.numpy(), tx.grad.numpy())


def test_avg_pool2d_grads_random():
    rng = np.random.default_rng(30)
    for i, (shape, k, s, p, _, ceil, transpose) in enumerate(pool_configs(40, 31, False)):
        tx, mx = pair(shape, rng, transpose)
        kw = dict(kernel_size=k, stride=s, padding=p, ceil_mode=ceil,
                  count_include_pad=i % 2 == 0, divisor_override=3 if i % 5 == 0 else None)
        check_grads(F.avg_pool2d(tx, **kw), MF.avg_pool2d(mx, **kw), [tx], [mx], rng)


@pytest.mark.parametrize("shape,out", [((2, 3, 9, 8), (4, 3)), ((3, 7, 7), (7, 7)),
                                       ((1, 2, 5, 6), (1, 1)), ((2, 2, 4, 4), (6, 5)),
                                       ((2, 2, 8, 8), (2, 2))])
def test_adaptive_avg_pool2d_grads(shape, out):
    rng = np.random.default_rng(40)
    tx, mx = pair(shape, rng, transpose=True)
    t_out, m_out = F.adaptive_avg_pool2d(tx, out), MF.adaptive_avg_pool2d(mx, out)
    g = rng.standard_normal(tuple(t_out.shape))
    t_out.backward(torch.tensor(g))
    m_out.backward(mt.tensor(g))
    # torch names the (1, 1) case MeanBackward1: it reduces with mean there
    assert type(m_out.grad_fn).__name__ == "AdaptiveAvgPool2DBackward0"
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)


# ------------------------------------------------------- recording, errors

DOUBLE = [
    ("conv2d", lambda L, x, w: L.nn.functional.conv2d(x, w, None, 2, 1, 1, 2),
     (2, 4, 6, 5), (4, 2, 3, 3)),
    ("conv2d_same", lambda L, x, w: L.nn.functional.conv2d(x, w, padding="same",
                                                          dilation=(1, 2)),
     (1, 2, 5, 6), (3, 2, 2, 3)),
    ("conv1d", lambda L, x, w: L.nn.functional.conv1d(x, w, None, 1, 2, 2), (3, 7), (2, 3, 3)),
    ("max_pool2d", lambda L, x, w: L.nn.functional.max_pool2d(x, 3, 2, 1, 1, True) * w,
     (2, 3, 6, 6), (1,)),
    ("max_pool2d_dil", lambda L, x, w: L.nn.functional.max_pool2d(x, 2, 1, 0, 2) * w,
     (3, 6, 5), (1,)),
    ("avg_pool2d", lambda L, x, w: L.nn.functional.avg_pool2d(x, 3, 2, 1, True, False) * w,
     (2, 3, 6, 6), (1,)),
    ("avg_pool2d_div", lambda L, x, w: L.nn.functional.avg_pool2d(x, 2, divisor_override=3) * w,
     (3, 4, 5), (1,)),
    ("adaptive_avg_pool2d",
     lambda L, x, w: L.nn.functional.adaptive_avg_pool2d(x, (3, 2)) * w, (2, 2, 7, 5), (1,)),
]


@pytest.mark.parametrize("name,fn,xs,ws", DOUBLE, ids=[d[0] for d in DOUBLE])
def test_double_backward_matches_torch(name, fn, xs, ws):
    rng = np.random.default_rng(11)
    res = []
    xv, wv = rng.standard_normal(xs), rng.standard_normal(ws)
    for L in (torch, mt):
        x, w = L.tensor(xv, requires_grad=True), L.tensor(wv, requires_grad=True)
        out = fn(L, x, w)
        gy = L.tensor(np.random.default_rng(12).standard_normal(tuple(out.shape)),
                      requires_grad=True)
        gx, gw = L.autograd.grad(out, [x, w], gy, create_graph=True)
        names = [type(gx.grad_fn).__name__]
        # a loss that reads both gradients reaches every derivative of the rows
        loss = (gx * gx.detach().cos()).sum() + (gw * gw.detach().sin()).sum()
        hs = L.autograd.grad(loss, [x, w, gy], allow_unused=True)
        res.append((names, [None if h is None else h.detach().numpy() for h in hs]))
    for th, mh in zip(res[0][1], res[1][1]):
        if th is None:
            assert mh is None or not mh.any()
        else:
            np.testing.assert_allclose(mh, th, rtol=1e-9, atol=1e-11)
    # torch records unbatched and unevenly padded convolutions with extra nodes
    if res[0][0][0].endswith("BackwardBackward0"):
        assert res[0][0] == res[1][0]


@pytest.mark.parametrize("name,fn,xs,ws", DOUBLE, ids=[d[0] for d in DOUBLE])
def test_forward_ad_matches_torch(name, fn, xs, ws):
    import minitorch.autograd.forward_ad as fwAD
    rng = np.random.default_rng(13)
    vals = [rng.standard_normal(s) for s in (xs, ws, xs, ws)]
    res = []
    for L, fw in ((torch, torch.autograd.forward_ad), (mt, fwAD)):
        with fw.dual_level():
            x = fw.make_dual(L.tensor(vals[0]), L.tensor(vals[2]))
            w = fw.make_dual(L.tensor(vals[1]), L.tensor(vals[3]))
            res.append(fw.unpack_dual(fn(L, x, w)).tangent.numpy())
    np.testing.assert_allclose(res[1], res[0], rtol=1e-9, atol=1e-11)


def test_backward_rows_check_shapes():
    g = mt.zeros(2, 3, 4, 4)
    with pytest.raises(RuntimeError, match="shapes do not match"):
        mt._convolution_backward_input(g, mt.zeros(4, 2, 3, 3), [2, 2, 6, 6], [1], [0], [1], 1)
    with pytest.raises(RuntimeError, match="expected scalar type"):
        mt._convolution_backward_weight(g, mt.zeros(2, 2, 6, 6, dtype=mt.float64),
                                        [3, 2, 3, 3], [1], [0], [1], 1)
    with pytest.raises(RuntimeError, match="batch or channel"):
        mt._max_pool2d_backward(g, mt.zeros(2, 4, 8, 8), [2], [2], [0], [1])
    with pytest.raises(RuntimeError, match="divisor"):
        mt._avg_pool2d_backward(g, [2, 3, 8, 8], [2], [2], [0], True, 0)
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        mt._adaptive_avg_pool2d_backward(mt.zeros(2, 3, 4, 4, dtype=mt.long), [2, 3, 8, 8])
