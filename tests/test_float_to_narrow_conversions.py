"""Floating values converted to the narrow integer types and to float16 as
torch converts them: through int32 (x86's INT32_MIN for NaN and values out of
range) to int8, int16 and int32, through int64 to uint8 and int64, and
through float to float16."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

SPECIAL = [float("nan"), float("inf"), -float("inf"), 3e9, -3e9, 1e20, -1e20, 2.5e9 + 7,
           -2.5e9 - 7, 2147483647.0, 2147483648.0, -2147483648.0, -2147483649.0, 70000.5,
           -40000.0, 300.7, -300.2, 255.9, -129.0, 0.0, -0.0, 1e10 + 3]


@pytest.mark.parametrize("src", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("dst", ["int8", "uint8", "int16", "int32", "int64", "bool"])
@pytest.mark.parametrize("repeat", [1, 1000])
def test_float_to_integer_conversion(src, dst, repeat):
    values = SPECIAL * repeat
    want = torch.tensor(values, dtype=getattr(torch, src)).to(getattr(torch, dst))
    got = mt.tensor(values, dtype=getattr(mt, src)).to(getattr(mt, dst))
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("method", ["int", "short", "char", "byte", "long"])
def test_conversion_methods_on_strided_views(method):
    base = np.array(SPECIAL * 3, dtype=np.float64).reshape(3, -1)
    want = getattr(torch.tensor(base).t(), method)()
    got = getattr(mt.tensor(base).t(), method)()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dst", ["int8", "int16", "int32", "int64", "uint8"])
def test_integer_to_narrower_integer_still_wraps(dst):
    values = [2**33 + 5, -(2**40) - 3, 300, -129, 70000, 2**31]
    want = torch.tensor(values).to(getattr(torch, dst))
    got = mt.tensor(values).to(getattr(mt, dst))
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_float64_to_float16_rounds_through_float32():
    tie = 2.6865234375  # halfway between two float16 values
    values = [tie - 1e-9, tie - 1e-12, tie + 1e-12, -tie + 1e-9, 1.0009765625 - 1e-10,
              65519.99999, 65520.0 - 1e-9, 6.103515625e-05 - 1e-13, 2.9802322387695312e-08]
    rng = np.random.default_rng(0)
    values += list(rng.normal(scale=10, size=5000))
    want = torch.tensor(values, dtype=torch.float64).half()
    got = mt.tensor(values, dtype=mt.float64).half()
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
    # the same through copy_ into an existing half tensor and through to()
    dst = mt.empty(len(values), dtype=mt.float16)
    dst.copy_(mt.tensor(values, dtype=mt.float64))
    np.testing.assert_array_equal(dst.float().numpy(), want.float().numpy())


def test_float32_to_float16_unchanged():
    values = np.random.default_rng(1).normal(scale=100, size=4000).astype(np.float32)
    want = torch.tensor(values).half().float().numpy()
    np.testing.assert_array_equal(mt.tensor(values).half().float().numpy(), want)
