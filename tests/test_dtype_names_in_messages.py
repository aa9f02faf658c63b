"""Every dtype's name in messages comes from the dtype itself (the C table
core/dtype.c: "UInt32", "unsigned int"), so refusals of the unsigned and complex
dtypes read as torch's instead of failing on a missing table entry."""
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"]
CALLS = {
    "linalg.det": lambda lib, x: lib.linalg.det(x),
    "linalg.svd": lambda lib, x: lib.linalg.svd(x),
    "linalg.slogdet": lambda lib, x: lib.linalg.slogdet(x),
    "linalg.vector_norm": lambda lib, x: lib.linalg.vector_norm(x),
    "nanmean": lambda lib, x: lib.nanmean(x),
    "logit_": lambda lib, x: x.logit_(),
    "hann_window": lambda lib, x: lib.hann_window(4, dtype=x.dtype),
    "fft.fft": lambda lib, x: lib.fft.fft(x.to(lib.float16)),
}


def _outcome(lib, name, dtype):
    x = lib.tensor([[1, 2], [3, 4]]).to(getattr(lib, dtype))
    try:
        r = CALLS[name](lib, x)
    except (RuntimeError, NotImplementedError, TypeError, ValueError) as e:
        return type(e).__name__, str(e).split("\n")[0]
    return "ok", str(getattr(r, "dtype", type(r).__name__))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(CALLS))
def test_refusals_name_the_dtype_as_torch(name, dtype):
    assert _outcome(mt, name, dtype) == _outcome(torch, name, dtype)


@pytest.mark.parametrize("dtype", DTYPES + ["float16", "bfloat16", "float32", "float64",
                                            "complex64", "complex128"])
def test_scalar_names_are_torchs(dtype):
    """As torch's view of a 0-dim tensor as another item size prints it."""
    t = torch.tensor(0).to(getattr(torch, dtype))
    other = torch.int16 if t.dtype.itemsize != 2 else torch.int32
    with pytest.raises(RuntimeError) as e:
        t.view(other)
    assert f"to view {getattr(mt, dtype)._scalar_name} as" in str(e.value)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cpp_names_are_torchs(dtype):
    """As torch's window functions print a non-float dtype's TensorOptions."""
    with pytest.raises(RuntimeError) as e:
        torch.hann_window(4, dtype=getattr(torch, dtype))
    assert f"TensorOptions(dtype={getattr(mt, dtype)._cpp_name}," in str(e.value)
