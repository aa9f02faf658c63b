"""minitorch.testing.make_tensor against torch.testing.make_tensor: shapes,
dtypes, value ranges (defaults, clamping, integer rounding), layout options,
requires_grad, exclude_zero and the errors, with torch's messages."""
import warnings

import pytest

import minitorch
from minitorch.testing import make_tensor

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]
# torch's default [low, high) per dtype
DEFAULTS = {"bool": (0, 1), "uint8": (0, 9), "float16": (-9, 9), "bfloat16": (-9, 9),
            "float32": (-9, 9), "float64": (-9, 9)}


def values(t):
    return t.detach().double().flatten().tolist() if t.dtype != minitorch.bool else \
        [float(v) for v in t.flatten().tolist()]


@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (2, 1, 4), (3, 0, 2)], ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_shape_dtype_and_default_range(shape, dtype):
    t = make_tensor(shape, dtype=getattr(minitorch, dtype), device="cpu")
    ref = torch.testing.make_tensor(shape, dtype=getattr(torch, dtype), device="cpu")
    assert tuple(t.shape) == tuple(ref.shape) == shape
    assert str(t.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1] == dtype
    assert t.is_contiguous() and not t.requires_grad
    lo, hi = DEFAULTS.get(dtype, (-9, 9))
    for v in values(t):
        assert lo <= v <= hi


@pytest.mark.parametrize("form", ["varargs", "tuple", "list", "size"])
def test_shape_forms(form):
    args = {"varargs": (2, 3), "tuple": ((2, 3),), "list": ([2, 3],),
            "size": (minitorch.Size([2, 3]),)}[form]
    assert tuple(make_tensor(*args, dtype=minitorch.float32, device="cpu").shape) == (2, 3)


def test_values_are_spread_over_the_range():
    t = make_tensor(4000, dtype=minitorch.float64, device="cpu", low=2, high=3)
    v = values(t)
    assert 2 <= min(v) < 2.05 and 2.95 < max(v) < 3
    i = make_tensor(4000, dtype=minitorch.int64, device="cpu", low=-2, high=3)
    assert sorted(set(values(i))) == [-2, -1, 0, 1, 2]
    b = make_tensor(200, dtype=minitorch.bool, device="cpu")
    assert set(values(b)) == {0.0, 1.0}


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8"])
@pytest.mark.parametrize("low,high", [(-2.5, 1.5), (0.1, 3.9), (1, 2)])
def test_integer_bounds_round_up(dtype, low, high):
    import math
    t = make_tensor(500, dtype=getattr(minitorch, dtype), device="cpu", low=low, high=high)
    lo, hi = math.ceil(low), math.ceil(high)
    if dtype == "uint8":
        lo, hi = max(lo, 0), max(hi, 0)
    got = set(values(t))
    assert got <= set(range(lo, hi)) and got


@pytest.mark.parametrize("dtype,low,high,lo,hi", [
    ("uint8", -100, 1000, 0, 255), ("int8", -1000, 1000, -128, 127),
    ("float16", -1e10, 1e10, -65504, 65504), ("float32", -1e300, 1e300, -3.5e38, 3.5e38),
])
def test_low_and_high_are_clamped_to_the_dtype(dtype, low, high, lo, hi):
    t = make_tensor(300, dtype=getattr(minitorch, dtype), device="cpu", low=low, high=high)
    v = values(t)
    assert all(lo <= x <= hi for x in v) and all(abs(x) != float("inf") for x in v)
    # the whole range is drawn from, not a corner of it
    assert max(v) - min(v) > (hi - lo) / 4


def test_noncontiguous():
    for shape in [(4, 5), (3,), (2, 3, 4)]:
        t = make_tensor(shape, dtype=minitorch.float32, device="cpu", noncontiguous=True)
        ref = torch.testing.make_tensor(shape, dtype=torch.float32, device="cpu",
                                        noncontiguous=True)
        assert tuple(t.shape) == shape and not t.is_contiguous()
        assert t.stride() == ref.stride() and t.storage_offset() == ref.storage_offset() == 1
    # fewer than two elements: ignored
    for shape in [(1,), (), (1, 1), (0, 3)]:
        t = make_tensor(shape, dtype=minitorch.float32, device="cpu", noncontiguous=True)
        assert t.is_contiguous() and tuple(t.shape) == shape


@pytest.mark.parametrize("fmt", ["channels_last", "contiguous_format", "preserve_format"])
def test_memory_format(fmt):
    t = make_tensor((2, 3, 4, 5), dtype=minitorch.float32, device="cpu",
                    memory_format=getattr(minitorch, fmt))
    ref = torch.testing.make_tensor((2, 3, 4, 5), dtype=torch.float32, device="cpu",
                                    memory_format=getattr(torch, fmt))
    assert t.stride() == ref.stride()
    assert t.is_contiguous(memory_format=getattr(minitorch, fmt if fmt != "preserve_format"
                                                 else "contiguous_format"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_exclude_zero(dtype):
    dt = getattr(minitorch, dtype)
    low, high = (0, 2) if dtype in ("bool", "uint8") else (-1, 1)
    t = make_tensor(2000, dtype=dt, device="cpu", low=low, high=high, exclude_zero=True)
    v = values(t)
    assert 0.0 not in v
    if dtype in ("bool", "uint8", "int8", "int16", "int32", "int64"):
        assert 1.0 in v  # zeros became ones
    elif dtype in ("float32", "float64"):
        assert min(abs(x) for x in v) > 0


def test_exclude_zero_uses_the_smallest_normal():
    # float16 rounds the draws in (-3e-8, 3e-8), 30% of them, to zero; 25 of
    # 200 is six standard deviations below that
    minitorch.manual_seed(0)
    t = make_tensor(200, dtype=minitorch.float16, device="cpu", low=-1e-7, high=1e-7,
                    exclude_zero=True)
    tiny = minitorch.finfo(minitorch.float16).tiny
    v = values(t)
    assert 0.0 not in v and v.count(tiny) > 25


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("noncontiguous", [False, True])
def test_requires_grad(dtype, noncontiguous):
    t = make_tensor((3, 4), dtype=getattr(minitorch, dtype), device="cpu", requires_grad=True,
                    noncontiguous=noncontiguous)
    ref = torch.testing.make_tensor((3, 4), dtype=getattr(torch, dtype), device="cpu",
                                    requires_grad=True, noncontiguous=noncontiguous)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    assert ref.is_leaf == t.is_leaf
    (t * 2).sum().backward()
    assert values(t.grad) == [2.0] * 12


def outcome(fn):
    try:
        fn()
        return None
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return type(e).__name__, str(e).replace("minitorch.", "").replace("torch.", "")


@pytest.mark.parametrize("case", [
    dict(dtype="int64", requires_grad=True),
    dict(dtype="bool", requires_grad=True),
    dict(dtype="float32", low=3, high=1),
    dict(dtype="int32", low=5, high=5),
    dict(dtype="float32", low=float("nan")),
    dict(dtype="float32", high=float("nan")),
    dict(dtype="uint8", low=-20, high=-1),
    dict(dtype="int8", low=200, high=300),
    dict(dtype="float32", noncontiguous=True, memory_format="channels_last"),
], ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_errors(case):
    def call(lib, testing):
        kw = dict(case)
        kw["dtype"] = getattr(lib, kw["dtype"])
        if "memory_format" in kw:
            kw["memory_format"] = getattr(lib, kw["memory_format"])
        return testing(2, 3, 4, 5, device="cpu", **kw)

    got = outcome(lambda: call(minitorch, make_tensor))
    want = outcome(lambda: call(torch, torch.testing.make_tensor))
    assert got is not None and got[0] == "ValueError"
    assert got == want


def test_low_equal_high_for_floats_warns():
    for lib, fn in [(minitorch, make_tensor), (torch, torch.testing.make_tensor)]:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            t = fn(3, dtype=lib.float32, device="cpu", low=2, high=2)
        assert [x.category for x in w] == [FutureWarning]
        assert "low==high" in str(w[0].message)
        assert t.tolist() == [2.0, 2.0, 2.0] or len(t.tolist()) == 3


def test_unsupported_dtype():
    with pytest.raises(TypeError, match="is not supported by torch.testing.make_tensor"):
        make_tensor(2, dtype="float32", device="cpu")


def test_device_is_required_and_keyword_only():
    with pytest.raises(TypeError):
        make_tensor(2, dtype=minitorch.float32)
    t = make_tensor(2, dtype=minitorch.float32, device=minitorch.device("cpu"))
    assert t.device.type == "cpu"
    assert minitorch.testing.make_tensor is make_tensor


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("low,high", [(None, None), (0, 1), (-2, 3)])
def test_complex_parts_are_drawn_from_the_range(dtype, low, high):
    # torch draws the real and imaginary parts each from [low, high)
    t = make_tensor((40, 30), dtype=getattr(minitorch, dtype), device="cpu", low=low, high=high)
    ref = torch.testing.make_tensor((40, 30), dtype=getattr(torch, dtype), device="cpu",
                                    low=low, high=high)
    assert str(t.dtype).split(".")[1] == str(ref.dtype).split(".")[1]
    lo, hi = (-9, 9) if low is None else (low, high)
    for part in (t.real, t.imag):
        vals = part.double().flatten().tolist()
        assert min(vals) >= lo and max(vals) < hi
        assert max(vals) - min(vals) > 0.8 * (hi - lo)


def test_complex_requires_grad_noncontiguous_and_exclude_zero():
    t = make_tensor((3, 4), dtype=minitorch.complex64, device="cpu", requires_grad=True,
                    noncontiguous=True, exclude_zero=True)
    ref = torch.testing.make_tensor((3, 4), dtype=torch.complex64, device="cpu",
                                    requires_grad=True, noncontiguous=True, exclude_zero=True)
    assert t.requires_grad == ref.requires_grad
    assert t.is_contiguous() == ref.is_contiguous()
    assert tuple(t.shape) == tuple(ref.shape)
