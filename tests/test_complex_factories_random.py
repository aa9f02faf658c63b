"""linspace and logspace with complex dtypes and endpoints, and normal_ /
uniform_ on complex tensors, against torch."""
import math

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

CDTYPES = ["complex64", "complex128"]
ENDS = [(-2.0, 4.3), (0, 50), (1 + 2j, -3 - 0.5j), (2.5j, 2.5j), (-1.5, 3j)]


def check(got, want, rtol):
    assert str(got.dtype)[len("minitorch."):] == str(want.dtype)[len("torch."):]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("ends", ENDS)
@pytest.mark.parametrize("steps", [0, 1, 2, 7, 50])
def test_linspace(dtype, ends, steps):
    rtol = 1e-6 if dtype == "complex64" else 1e-12
    got = mt.linspace(*ends, steps, dtype=getattr(mt, dtype))
    want = torch.linspace(*ends, steps, dtype=getattr(torch, dtype))
    check(got, want, rtol)
    if steps:
        # the two ends are exact
        assert got.numpy()[0] == want.numpy()[0] and got.numpy()[-1] == want.numpy()[-1]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("ends", ENDS[:4])
@pytest.mark.parametrize("steps", [0, 1, 7, 50])
@pytest.mark.parametrize("base", [10.0, 2.0, 0.5, -2.0])
def test_logspace(dtype, ends, steps, base):
    # a negative base goes through the complex power, whose angle grows with
    # the float32 exponent's rounding
    rtol = (1e-4 if base < 0 else 1e-5) if dtype == "complex64" else 1e-10
    got = mt.logspace(*ends, steps, base=base, dtype=getattr(mt, dtype))
    want = torch.logspace(*ends, steps, base=base, dtype=getattr(torch, dtype))
    check(got, want, rtol)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_linspace_out_takes_complex_dtype(dtype):
    om, ot = mt.empty(0, dtype=getattr(mt, dtype)), torch.empty(0, dtype=getattr(torch, dtype))
    mt.linspace(-1, 1j, 5, out=om)
    torch.linspace(-1, 1j, 5, out=ot)
    check(om, ot, 1e-6)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("strided", [False, True])
def test_normal_and_uniform_fill_both_parts(dtype, strided):
    mt.manual_seed(0)
    base = mt.zeros(400, 300, dtype=getattr(mt, dtype))
    t = base[:, ::3] if strided else base
    assert t.normal_(2.0, 3.0) is t
    re, im = t.real.numpy().astype(np.float64), t.imag.numpy().astype(np.float64)
    # each part has the mean and std / sqrt(2), so |z - mean| has std's spread
    assert abs(re.mean() - 2.0) < 0.05 and abs(im.mean() - 2.0) < 0.05
    assert abs(re.std() - 3 / math.sqrt(2)) < 0.05 and abs(im.std() - 3 / math.sqrt(2)) < 0.05
    if strided:
        assert (base[:, 1::3].numpy() == 0).all()
    t.uniform_(-1.0, 3.0)
    re, im = t.real.numpy(), t.imag.numpy()
    for part in (re, im):
        assert part.min() >= -1.0 and part.max() < 3.0
        assert abs(part.mean() - 1.0) < 0.05
    assert not np.array_equal(re, im)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_random_fill_is_seeded(dtype):
    a = mt.empty(50, dtype=getattr(mt, dtype))
    b = mt.empty(50, dtype=getattr(mt, dtype))
    mt.manual_seed(7)
    a.normal_()
    mt.manual_seed(7)
    b.normal_()
    assert np.array_equal(a.numpy(), b.numpy())
