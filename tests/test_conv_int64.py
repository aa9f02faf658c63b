"""int64 convolutions (torch's slow path computes them exactly), torch's
messages for a malformed weight, and unfold/fold of bool tensors."""
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

from torch_errors import same_error  # noqa: E402

F, MF = torch.nn.functional, mt.nn.functional


def pair(shape, lo=-20, hi=20, seed=0, dtype="int64"):
    a = np.random.default_rng(seed).integers(lo, hi, size=shape)
    return torch.tensor(a, dtype=getattr(torch, dtype)), mt.tensor(a, dtype=getattr(mt, dtype))


CASES = [
    # name, input shape, weight shape, kwargs
    ("conv1d", (2, 4, 9), (6, 4, 3), dict(stride=2, padding=1)),
    ("conv1d", (4, 9), (6, 2, 3), dict(groups=2, dilation=2)),
    ("conv1d", (2, 4, 9), (6, 4, 3), dict(padding="same")),
    ("conv2d", (2, 3, 7, 6), (4, 3, 3, 2), dict(stride=(2, 1), padding=(1, 0))),
    ("conv2d", (3, 7, 6), (6, 1, 3, 3), dict(groups=3, dilation=(1, 2))),
    ("conv2d", (2, 8, 9, 9), (8, 8, 3, 3), dict(padding=1)),
    ("conv2d", (1, 3, 7, 6), (4, 3, 2, 2), dict(padding="valid")),
    ("conv3d", (2, 2, 4, 5, 5), (3, 2, 2, 3, 2), dict(stride=(1, 2, 1), padding=(1, 0, 1))),
    ("conv3d", (2, 4, 5, 5), (4, 1, 2, 2, 2), dict(groups=2, padding="same")),
    ("conv_transpose1d", (2, 4, 6), (4, 3, 3), dict(stride=2, output_padding=1)),
    ("conv_transpose2d", (2, 4, 5, 4), (4, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0),
                                                           groups=2)),
    ("conv_transpose2d", (4, 5, 4), (4, 3, 2, 2), dict(dilation=2)),
    ("conv_transpose3d", (1, 2, 3, 4, 3), (2, 3, 2, 2, 2), dict(stride=2, padding=1)),
]


@pytest.mark.parametrize("name,xs,ws,kw", CASES)
@pytest.mark.parametrize("bias", [False, True])
def test_int64_convolutions_match_torch(name, xs, ws, kw, bias):
    tx, mx = pair(xs, seed=1)
    tw, mw = pair(ws, seed=2)
    out_ch = ws[1] * kw.get("groups", 1) if "transpose" in name else ws[0]
    tb, mb = pair((out_ch,), seed=3) if bias else (None, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(F, name)(tx, tw, tb, **kw)
    got = getattr(MF, name)(mx, mw, mb, **kw)
    assert got.dtype == mt.int64 and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_int64_convolution_of_large_values_wraps_as_torch():
    tx, mx = pair((1, 2, 5, 5), lo=-2**40, hi=2**40)
    tw, mw = pair((3, 2, 2, 2), lo=-2**30, hi=2**30, seed=4)
    np.testing.assert_array_equal(MF.conv2d(mx, mw).numpy(), F.conv2d(tx, tw).numpy())


@pytest.mark.parametrize("dtype", ["bool", "int32"])
def test_other_integer_dtypes_are_still_refused(dtype):
    x, w = mt.zeros(1, 2, 4, 4, dtype=getattr(mt, dtype)), mt.zeros(1, 2, 2, 2,
                                                                     dtype=getattr(mt, dtype))
    with pytest.raises(RuntimeError, match="not implemented for"):
        MF.conv2d(x, w)


@pytest.mark.parametrize("name,xs,ws,kw", [
    # weight of rank < 3
    ("conv1d", (1, 1, 4), (1, 2), {}),
    ("conv2d", (2, 4, 4), (2, 2), {}),
    ("conv3d", (1, 2, 4, 4, 4), (2, 2), {}),
    ("conv_transpose2d", (2, 4, 4), (2, 2), {}),
    # groups larger than the output channels
    ("conv1d", (2, 2, 4), (2, 2, 2), dict(groups=3)),
    ("conv1d", (2, 2, 4), (2, 2, 2), dict(groups=3, padding="same")),
    ("conv2d", (2, 2, 4, 3), (2, 2, 1, 3), dict(groups=3)),
    ("conv3d", (2, 2, 3, 4, 5), (2, 2, 4, 3, 3), dict(groups=3)),
    ("conv3d", (2, 2, 3, 4, 5), (2, 2, 4, 3, 3), dict(groups=3, padding="same")),
    ("conv_transpose2d", (2, 4, 4), (1, 2, 2, 2), dict(groups=2)),
    # weight of another rank than the input
    ("conv2d", (1, 1, 4, 3), (1, 2, 2), dict(padding="same")),
    ("conv2d", (2, 4, 4), (2, 2, 2), dict(padding=1)),
    ("conv2d", (2, 4, 4), (2, 2, 2, 2, 2), {}),
    ("conv1d", (2, 4), (2, 2, 2, 2), {}),
    ("conv1d", (2, 4), (2, 2, 2, 2), dict(padding="same")),
    ("conv3d", (1, 1, 3, 4, 5), (1, 1, 4, 3), dict(padding="same")),
    ("conv3d", (1, 2, 4, 4, 4), (2, 2, 2, 2), {}),
    ("conv_transpose2d", (2, 4, 4), (2, 2, 2), {}),
    ("conv_transpose1d", (4, 4), (4, 2, 2, 2), {}),
    # the checks' order: groups before the geometry, padding before stride
    ("conv2d", (2, 4, 4), (2, 2, 2, 2), dict(stride=-1, groups=0)),
    ("conv2d", (2, 4, 4), (2, 2, 2, 2), dict(stride=-1, padding=-1)),
    ("conv2d", (2, 4, 4), (2, 2, 2, 2), dict(stride=2, padding="same")),
])
def test_malformed_weight_messages(name, xs, ws, kw):
    def call(lib, fn):
        x, w = lib.zeros(xs, dtype=lib.float64), lib.zeros(ws, dtype=lib.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(fn, name)(x, w, **kw)
    same_error(lambda: call(mt, MF), lambda: call(torch, F))


@pytest.mark.parametrize("name", ["conv1d", "conv2d", "conv3d"])
@pytest.mark.parametrize("dtype,bias_dtype", [("int64", "float64"), ("float32", "float64"),
                                              ("float16", "int32"), ("float64", "bool")])
def test_bias_dtype_is_checked_first(name, dtype, bias_dtype):
    nsp = int(name[4])

    def call(lib, fn):
        x = lib.zeros((1,) * (nsp + 1), dtype=getattr(lib, dtype))
        w = lib.zeros((3,) * 2, dtype=getattr(lib, dtype))  # malformed too: the bias comes first
        return getattr(fn, name)(x, w, lib.zeros(1, dtype=getattr(lib, bias_dtype)))
    same_error(lambda: call(mt, MF), lambda: call(torch, F))


@pytest.mark.parametrize("name", ["conv1d", "conv2d"])
@pytest.mark.parametrize("dtype,weight_dtype", [("float64", "int64"), ("float32", "float64"),
                                                ("int64", "float32")])
def test_weight_dtype_mismatch(name, dtype, weight_dtype):
    nsp = int(name[4])

    def call(lib, fn):
        x = lib.zeros((1, 2) + (4,) * nsp, dtype=getattr(lib, dtype))
        w = lib.zeros((3, 2) + (2,) * nsp, dtype=getattr(lib, weight_dtype))
        return getattr(fn, name)(x, w)
    same_error(lambda: call(mt, MF), lambda: call(torch, F))


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=(2, 3), padding=1),
                                dict(kernel_size=(3, 2), dilation=(2, 1), stride=(1, 2))])
@pytest.mark.parametrize("batched", [True, False])
def test_unfold_and_fold_of_bool(kw, batched):
    shape = (2, 3, 6, 7) if batched else (3, 6, 7)
    a = np.random.default_rng(5).random(shape) > 0.6
    t, m = torch.tensor(a), mt.tensor(a)
    want, got = F.unfold(t, **kw), MF.unfold(m, **kw)
    assert got.dtype == mt.bool
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(MF.fold(got, (6, 7), **kw).numpy(),
                                  F.fold(want, (6, 7), **kw).numpy())


def test_unfold_still_refuses_integers():
    same_error(lambda: MF.unfold(mt.zeros(1, 1, 4, 4, dtype=mt.int64), 2),
               lambda: F.unfold(torch.zeros(1, 1, 4, 4, dtype=torch.int64), 2))
