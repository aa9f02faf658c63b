"""memory_format= against torch: the strides contiguous(), clone(), to(),
empty(), the *_like factories and pointwise ops give, is_contiguous(memory_format=),
values through channels_last layouts, and the errors."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


def pair(shape, seed=0, dtype="float32"):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return mt.tensor(a), torch.tensor(a)


# layouts reached by views of a contiguous tensor
LAYOUTS = {
    "plain": lambda x: x,
    "nhwc": lambda x: x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),
    "transposed": lambda x: x.transpose(1, 2),
    "sliced": lambda x: x[:, :, ::2],
    "nhwc_sliced": lambda x: x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)[:, :, ::2],
    "expanded": lambda x: x[:, :1].expand(-1, 3, -1, -1),
    "size_one": lambda x: x[:, :1],
}


def outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - the kind and words are compared
        return type(e).__name__, str(e).replace("torch.", "").replace("minitorch.", "")
    if isinstance(r, (bool, int)):
        return r
    return tuple(r.shape), tuple(r.stride()), np.asarray(r.detach().tolist()).round(5).tolist()


def check(op, shape=(2, 3, 4, 5), layouts=LAYOUTS):
    xm, xt = pair(shape)
    for name, layout in layouts.items():
        got = outcome(lambda: op(mt, layout(xm)))
        want = outcome(lambda: op(torch, layout(xt)))
        assert got == want, name


@pytest.mark.parametrize("fmt", FORMATS)
def test_contiguous(fmt):
    check(lambda L, x: x.contiguous(memory_format=getattr(L, fmt)))
    check(lambda L, x: x.contiguous(memory_format=getattr(L, fmt)), shape=(2, 3, 4, 5, 2),
          layouts={"plain": LAYOUTS["plain"], "sliced": LAYOUTS["sliced"]})


@pytest.mark.parametrize("fmt", FORMATS)
def test_is_contiguous(fmt):
    check(lambda L, x: x.is_contiguous(memory_format=getattr(L, fmt)))
    check(lambda L, x: x.is_contiguous(memory_format=getattr(L, fmt)), shape=(3, 4))
    check(lambda L, x: x.is_contiguous(memory_format=getattr(L, fmt)), shape=(1, 3, 1, 1))


@pytest.mark.parametrize("fmt", FORMATS + [None])
def test_clone(fmt):
    kw = {} if fmt is None else {"memory_format": fmt}
    check(lambda L, x: x.clone(**{k: getattr(L, v) for k, v in kw.items()}))


def test_clone_preserves_permuted_and_sliced_layouts():
    shapes_and_views = [((4, 6), lambda x: x.t()), ((4, 6), lambda x: x.t()[::2]),
                        ((5, 4, 6), lambda x: x.permute(2, 0, 1)[:, ::2]),
                        ((3, 1, 4), lambda x: x.transpose(0, 1)),
                        ((3, 1, 4), lambda x: x[:, :, ::2])]
    for shape, view in shapes_and_views:
        xm, xt = pair(shape)
        for op in [lambda L, x: x.clone(), lambda L, x: L.empty_like(x).fill_(1),
                   lambda L, x: L.zeros_like(x), lambda L, x: L.ones_like(x),
                   lambda L, x: L.full_like(x, 2.5), lambda L, x: x.to(L.float64),
                   lambda L, x: x.double(), lambda L, x: x.exp()]:
            assert outcome(lambda: op(mt, view(xm))) == outcome(lambda: op(torch, view(xt)))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("like", ["empty_like", "zeros_like", "ones_like", "full_like"])
def test_like_factories(fmt, like):
    def op(L, x):
        args = (x, 3.0) if like == "full_like" else (x,)
        r = getattr(L, like)(*args, memory_format=getattr(L, fmt))
        return r.fill_(1) if like == "empty_like" else r
    check(op)
    check(op, shape=(2, 3, 4))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 0, 4, 5), (2, 3, 1, 1), (2, 3),
                                   (2, 3, 4, 5, 6)])
def test_empty(fmt, shape):
    def op(L):
        return L.empty(*shape, memory_format=getattr(L, fmt)).fill_(0)
    assert outcome(lambda: op(mt)) == outcome(lambda: op(torch))


@pytest.mark.parametrize("fmt", FORMATS)
def test_to(fmt):
    check(lambda L, x: x.to(memory_format=getattr(L, fmt)))
    check(lambda L, x: x.to(L.float64, memory_format=getattr(L, fmt)))
    check(lambda L, x: x.float(memory_format=getattr(L, fmt)))
    check(lambda L, x: x.double(memory_format=getattr(L, fmt)))


def test_to_returns_self_when_nothing_changes():
    m = mt.ones(2, 3, 4, 5).to(memory_format=mt.channels_last)
    t = torch.ones(2, 3, 4, 5).to(memory_format=torch.channels_last)
    assert (m.to(memory_format=mt.channels_last) is m) == \
        (t.to(memory_format=torch.channels_last) is t)
    assert (m.contiguous(memory_format=mt.channels_last) is m) == \
        (t.contiguous(memory_format=torch.channels_last) is t)


@pytest.mark.parametrize("fn", [lambda L, x: x.exp(), lambda L, x: x * 2 + x,
                                lambda L, x: L.nn.functional.relu(x),
                                lambda L, x: L.nn.functional.batch_norm(
                                    x, L.zeros(3), L.ones(3)),
                                lambda L, x: x.sum(1)])
def test_pointwise_keep_channels_last(fn):
    check(fn, layouts={"nhwc": LAYOUTS["nhwc"], "nhwc_sliced": LAYOUTS["nhwc_sliced"]})


def test_conv2d_values_on_channels_last_input():
    xm, xt = pair((2, 3, 6, 5))
    wm, wt = pair((4, 3, 3, 3), seed=1)
    ym = mt.nn.functional.conv2d(xm.contiguous(memory_format=mt.channels_last), wm, padding=1)
    yt = torch.nn.functional.conv2d(xt.contiguous(memory_format=torch.channels_last), wt, padding=1)
    np.testing.assert_allclose(np.asarray(ym.tolist()), yt.numpy(), rtol=1e-5, atol=1e-5)


def test_grad_through_channels_last_copy():
    xm, xt = pair((2, 3, 4, 5), dtype="float64")
    xm.requires_grad_()
    xt.requires_grad_()
    wm, wt = pair((2, 3, 4, 5), seed=3, dtype="float64")
    (xm.contiguous(memory_format=mt.channels_last) * wm).sum().backward()
    (xt.contiguous(memory_format=torch.channels_last) * wt).sum().backward()
    assert outcome(lambda: xm.grad) == outcome(lambda: xt.grad)
    assert type(xm.clone(memory_format=mt.channels_last).grad_fn).__name__ == \
        type(xt.clone(memory_format=torch.channels_last).grad_fn).__name__
    assert mt.autograd.gradcheck(lambda x: x.contiguous(memory_format=mt.channels_last) ** 2,
                                 (xm,))


def test_not_a_memory_format():
    for L in (mt, torch):
        with pytest.raises(TypeError, match="argument 'memory_format' must be"):
            L.ones(2, 3, 4, 5).contiguous(memory_format=3)


def test_format_objects():
    assert repr(mt.channels_last) == "minitorch.channels_last"
    import pickle
    assert pickle.loads(pickle.dumps(mt.channels_last)) is mt.channels_last
