"""F.interpolate, the upsample names and the Upsample modules against torch:
values, gradients and error messages."""
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as MF
from torch_error_helpers import assert_same_error

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _pair(shape, dtype=np.float64, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return (minitorch.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True))


def _check(shape, dtype=np.float64, tol=1e-12, **kw):
    m, t = _pair(shape, dtype)
    mo, to = MF.interpolate(m, **kw), TF.interpolate(t, **kw)
    assert tuple(mo.shape) == tuple(to.shape)
    np.testing.assert_allclose(mo.detach().numpy(), to.detach().numpy(), rtol=tol, atol=tol)
    g = np.random.default_rng(1).standard_normal(tuple(to.shape)).astype(dtype)
    mo.backward(minitorch.tensor(g))
    to.backward(torch.tensor(g))
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


SIZES = [dict(size=7), dict(size=3), dict(scale_factor=2), dict(scale_factor=0.6),
         dict(scale_factor=1.7), dict(scale_factor=2.5, recompute_scale_factor=True)]


@pytest.mark.parametrize("kw", SIZES)
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 2, 5, 4), (1, 2, 3, 4, 5)])
def test_nearest(shape, mode, kw):
    _check(shape, mode=mode, **kw)


@pytest.mark.parametrize("kw", SIZES)
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("mode,shape", [("linear", (2, 3, 5)), ("bilinear", (2, 2, 5, 4)),
                                        ("bicubic", (2, 2, 5, 4)),
                                        ("trilinear", (1, 2, 3, 4, 5))])
def test_interpolating(mode, shape, align, kw):
    _check(shape, mode=mode, align_corners=align, **kw)


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
def test_float32_and_tuple_sizes(mode):
    align = None if mode == "nearest" else False
    _check((2, 3, 9, 6), np.float32, 1e-5, mode=mode, size=(13, 4), align_corners=align)
    _check((2, 3, 9, 6), np.float32, 1e-5, mode=mode, scale_factor=(1.5, 0.5),
           align_corners=align)


def test_nearest_float32_indices_match_torch():
    for n_in in range(1, 20):
        for n_out in range(1, 60):
            a = np.arange(n_in, dtype=np.float32).reshape(1, 1, n_in)
            got = MF.interpolate(minitorch.tensor(a), size=n_out).numpy()
            want = TF.interpolate(torch.tensor(a), size=n_out).numpy()
            np.testing.assert_array_equal(got, want)


def test_half_uint8_and_area():
    a = np.random.default_rng(0).random((1, 2, 4, 6)).astype(np.float32)
    got = MF.interpolate(minitorch.tensor(a).half(), size=(5, 5), mode="bilinear")
    want = TF.interpolate(torch.tensor(a).half(), size=(5, 5), mode="bilinear")
    assert got.dtype == minitorch.float16
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), atol=2e-3)
    u = (a * 200).astype(np.uint8)
    np.testing.assert_array_equal(MF.interpolate(minitorch.tensor(u), scale_factor=2).numpy(),
                                  TF.interpolate(torch.tensor(u), scale_factor=2).numpy())
    _check((2, 2, 6, 5), mode="area", size=(3, 2))
    _check((2, 2, 6), mode="area", scale_factor=0.5)


def _err(call):
    assert_same_error(call, (minitorch, MF), (torch, TF))


@pytest.mark.parametrize("call", [
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4), size=3, scale_factor=2),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4)),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4), size=3, align_corners=True),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4), size=(3, 3, 3)),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4), scale_factor=(2,)),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4), size=(3, 2.0)),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4), size=3, recompute_scale_factor=True),
    lambda L, F: F.interpolate(L.ones(1, 1, 4), size=3, mode="bilinear"),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4), size=3, mode="linear"),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4, 4), size=3, mode="bilinear"),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4), size=3, mode="trilinear"),
    lambda L, F: F.interpolate(L.ones(1, 4), size=3),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4), size=3, mode="foo"),
    lambda L, F: F.interpolate(L.ones(1, 1, 4), size=3, mode="bicubic"),
    lambda L, F: F.interpolate(L.ones(1, 1, 4), size=3, antialias=True),
    lambda L, F: F.interpolate(L.ones(1, 1, 4), size=0),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4), size=0, mode="bilinear"),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4, 4), size=0),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4), scale_factor=0.1),
    lambda L, F: F.interpolate(L.ones(1, 1, 0, 4), size=3),
    lambda L, F: F.interpolate(L.ones(1, 0, 4, 4), size=3),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, 4, dtype=L.int64), size=3, mode="bicubic"),
    lambda L, F: F.interpolate(L.ones(1, 1, 4, dtype=L.int64), size=3, mode="linear"),
])
def test_errors(call):
    _err(call)


AA_SIZES = [dict(size=(4, 5)), dict(size=(20, 3)), dict(size=(9, 30)), dict(scale_factor=0.3),
            dict(scale_factor=(0.45, 1.7)), dict(scale_factor=0.6, recompute_scale_factor=True)]


@pytest.mark.parametrize("kw", AA_SIZES)
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias(mode, align, kw):
    _check((2, 3, 17, 23), mode=mode, align_corners=align, antialias=True, **kw)
    _check((2, 3, 17, 23), np.float32, 1e-5, mode=mode, align_corners=align, antialias=True, **kw)


@pytest.mark.parametrize("align", [False, True])
def test_antialias_bicubic_gradcheck(align):
    x = minitorch.tensor(np.random.default_rng(3).standard_normal((1, 2, 9, 11)),
                         requires_grad=True)
    for size in [(4, 5), (14, 25)]:
        def f(t):
            return MF.interpolate(t, size=size, mode="bicubic", antialias=True, align_corners=align)
        assert minitorch.autograd.gradcheck(f, (x,))
        assert minitorch.autograd.gradgradcheck(f, (x,))


def _one_hot_weights(lib, n_in, dtype, **kw):
    """The weights each output takes from each input pixel along W: the
    input is one one-hot row per batch entry, so they come out exactly."""
    eye = np.eye(n_in, dtype=dtype).reshape(n_in, 1, 1, n_in)
    x = minitorch.tensor(eye) if lib is MF else torch.tensor(eye)
    return lib.interpolate(x, **kw).numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_weights_match_torch_exactly(mode, antialias, dtype):
    # torch's build fuses `scale * (i + 0.5) - 0.5` and the cubic filters'
    # multiply-adds into fmas; the weights agree bit for bit only fused alike
    rng = np.random.default_rng(4)
    for _ in range(25):
        n_in, n_out, align = int(rng.integers(4, 300)), int(rng.integers(1, 300)), bool(
            rng.integers(0, 2))
        for kw in (dict(size=(1, n_out)), dict(scale_factor=(1.0, float(rng.uniform(0.5, 3))))):
            kw.update(mode=mode, align_corners=align, antialias=antialias)
            np.testing.assert_array_equal(_one_hot_weights(MF, n_in, dtype, **kw),
                                          _one_hot_weights(TF, n_in, dtype, **kw))


def test_bilinear_float32_large_downscale():
    # the harness's sample: 345 x 456 -> 270 x 270, where unfused source
    # coordinates put weights 1e-4 off
    m, t = _pair((1, 3, 345, 456), np.float32)
    mo = MF.interpolate(m, size=(270, 270), mode="bilinear")
    to = TF.interpolate(t, size=(270, 270), mode="bilinear")
    np.testing.assert_allclose(mo.detach().numpy(), to.detach().numpy(), rtol=1e-6, atol=1e-6)


def test_empty_batch():
    assert tuple(MF.interpolate(minitorch.ones(0, 1, 4, 4), size=3).shape) == (0, 1, 3, 3)


def test_deprecated_names():
    m, t = _pair((1, 2, 3, 4))
    for name, kw in [("upsample", dict(scale_factor=2, mode="bilinear")),
                     ("upsample_nearest", dict(size=5)), ("upsample_bilinear", dict(size=5))]:
        with pytest.warns(UserWarning, match="deprecated"):
            got = getattr(MF, name)(m, **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(TF, name)(t, **kw)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), atol=1e-12)


@pytest.mark.parametrize("make", [
    lambda nn: nn.Upsample(scale_factor=2),
    lambda nn: nn.Upsample(size=(5, 7), mode="bilinear"),
    lambda nn: nn.Upsample(scale_factor=1.5, mode="bicubic", align_corners=True),
    lambda nn: nn.UpsamplingNearest2d(scale_factor=2),
    lambda nn: nn.UpsamplingBilinear2d(size=6),
])
def test_modules(make):
    m, t = _pair((2, 3, 4, 5))
    mm, tm = make(minitorch.nn), make(torch.nn)
    assert repr(mm) == repr(tm)
    mo, to = mm(m), tm(t)
    np.testing.assert_allclose(mo.detach().numpy(), to.detach().numpy(), atol=1e-12)
    mo.sum().backward()
    to.sum().backward()
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), atol=1e-12)
