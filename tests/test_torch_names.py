"""Legacy and convenience names scripts use, against torch: legacy tensor
types and Tensor.new, nelement, constants, finfo/iinfo, window functions,
scalar_tensor, unique_consecutive, the global switches and compile/jit."""
import math
import warnings

import numpy as np
import pytest

import minitorch as mt
from torch_errors import error_pair

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]


def same(a, b):
    assert a.dtype == getattr(mt, str(b.dtype).split(".")[1])
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(a.float().numpy() if a.dtype == mt.bfloat16 else a.numpy(),
                                  b.float().numpy() if b.dtype == torch.bfloat16 else b.numpy())


def test_constants():
    for name in ("pi", "e", "inf"):
        assert getattr(mt, name) == getattr(torch, name)
    assert math.isnan(mt.nan)


LEGACY = ["BoolTensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor", "LongTensor",
          "HalfTensor", "BFloat16Tensor", "FloatTensor", "DoubleTensor"]


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_type_construction_and_isinstance(name):
    ours, theirs = getattr(mt, name), getattr(torch, name)
    same(ours([1, 0, 1]), theirs([1, 0, 1]))
    same(ours([[1, 2]]), theirs([[1, 2]]))
    same(ours(), theirs())
    assert tuple(ours(2, 3).shape) == tuple(theirs(2, 3).shape) == (2, 3)
    assert ours(2, 3).dtype == ours.dtype
    assert tuple(ours(mt.Size([4])).shape) == (4,)
    assert repr(ours) == repr(theirs).replace("torch", "minitorch")
    for d in DTYPES:
        t = mt.zeros(2, dtype=getattr(mt, d))
        assert isinstance(t, ours) == isinstance(torch.zeros(2, dtype=getattr(torch, d)), theirs)
    assert not isinstance([1], ours)
    assert not issubclass(ours, mt.Tensor)


def test_legacy_type_conversions_and_errors():
    x = mt.tensor([1.5, 2.5])
    same(x.type(mt.LongTensor), torch.tensor([1.5, 2.5]).type(torch.LongTensor))
    shared = mt.FloatTensor(x)
    shared[0] = 7
    assert x[0].item() == 7
    ours, theirs = error_pair(lambda: mt.FloatTensor(mt.tensor([1, 2])),
                               lambda: torch.FloatTensor(torch.tensor([1, 2])))
    assert ours == theirs
    ours, theirs = error_pair(lambda: mt.LongTensor(2.5), lambda: torch.LongTensor(2.5))
    assert ours == theirs
    error_pair(lambda: mt.FloatTensor(2, requires_grad=True),
                lambda: torch.FloatTensor(2, requires_grad=True))
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        mt.FloatTensor([1], device="cuda")


def test_tensor_new_and_nelement():
    x, tx = mt.zeros(2, dtype=mt.int32), torch.zeros(2, dtype=torch.int32)
    same(x.new([1, 2]), tx.new([1, 2]))
    same(x.new((3, 4)), tx.new((3, 4)))
    same(x.new(), tx.new())
    assert x.new(2, 3).shape == (2, 3) and x.new(2, 3).dtype == mt.int32
    assert x.new(mt.Size([5])).shape == (5,)
    ours, theirs = error_pair(lambda: x.new(2, dtype=mt.int64), lambda: tx.new(2, dtype=torch.int64))
    assert ours.splitlines()[0] == theirs.splitlines()[0].replace("torch.", "minitorch.")
    assert mt.zeros(2, 3).nelement() == torch.zeros(2, 3).nelement() == 6


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_finfo(name):
    ours, theirs = mt.finfo(getattr(mt, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo(name):
    ours, theirs = mt.iinfo(getattr(mt, name)), torch.iinfo(getattr(torch, name))
    for attr in ("bits", "max", "min", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert repr(ours) == repr(theirs)


def test_finfo_iinfo_defaults_and_errors():
    assert mt.finfo() == mt.finfo(mt.float32) and mt.finfo().dtype == torch.finfo().dtype
    for fm, ft in [(lambda: mt.finfo(mt.int32), lambda: torch.finfo(torch.int32)),
                   (lambda: mt.iinfo(mt.float32), lambda: torch.iinfo(torch.float32)),
                   (lambda: mt.iinfo(mt.bool), lambda: torch.iinfo(torch.bool)),
                   (lambda: mt.finfo(3), lambda: torch.finfo(3))]:
        ours, theirs = error_pair(fm, ft)
        assert ours == theirs.replace("torch.", "minitorch.")


WINDOWS = [("hann_window", ()), ("hamming_window", ()), ("hamming_window", (0.5, 0.3)),
           ("blackman_window", ()), ("bartlett_window", ()), ("kaiser_window", ()),
           ("kaiser_window", (5.0,))]


@pytest.mark.parametrize("name,extra", WINDOWS)
@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_windows(name, extra, n, periodic, dtype):
    ours = getattr(mt, name)(n, periodic, *extra, dtype=getattr(mt, dtype))
    theirs = getattr(torch, name)(n, periodic, *extra, dtype=getattr(torch, dtype))
    assert ours.dtype == getattr(mt, dtype) and tuple(ours.shape) == tuple(theirs.shape)
    tol = {"float16": 1e-3, "float32": 3e-7, "float64": 1e-12}[dtype]
    if name == "kaiser_window":  # torch's float32 Bessel function is the less precise
        tol *= 10
    np.testing.assert_allclose(ours.double().numpy(), theirs.double().numpy(), atol=tol, rtol=tol)


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window", "kaiser_window"])
def test_window_defaults_and_errors(name):
    ours, theirs = getattr(mt, name), getattr(torch, name)
    w = ours(6, requires_grad=True)
    assert w.requires_grad and w.dtype == mt.float32
    np.testing.assert_allclose(w.detach().numpy(), theirs(6).numpy(), atol=1e-6)
    for args, kwargs in [((-1,), {}), ((3,), {"dtype": "int32"}), ((3.0,), {})]:
        kw = {k: getattr(mt, v) for k, v in kwargs.items()}
        tkw = {k: getattr(torch, v) for k, v in kwargs.items()}
        o, t = error_pair(lambda: ours(*args, **kw), lambda: theirs(*args, **tkw))
        assert o == t


def test_scalar_tensor():
    for s, kw in [(3, {}), (True, {}), (2.5, {}), (3, {"dtype": "int64"}), (7, {"dtype": "float64"})]:
        same(mt.scalar_tensor(s, **{k: getattr(mt, v) for k, v in kw.items()}),
             torch.scalar_tensor(s, **{k: getattr(torch, v) for k, v in kw.items()}))
    same(mt.scalar_tensor(mt.tensor(2)), torch.scalar_tensor(torch.tensor(2)))
    assert mt.scalar_tensor(1.0, requires_grad=True).requires_grad
    o, t = error_pair(lambda: mt.scalar_tensor("a"), lambda: torch.scalar_tensor("a"))
    assert o == t


UC_INPUTS = [[1, 1, 2, 2, 3, 1, 1, 2], [[1, 1], [1, 1], [2, 3], [1, 1]], [5.0], [],
             [1.0, float("nan"), float("nan"), 2.0], [[1, 1], [2, 2]]]


@pytest.mark.parametrize("data", UC_INPUTS)
@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("counts", [False, True])
@pytest.mark.parametrize("dim", [None, 0, -1])
def test_unique_consecutive(data, inverse, counts, dim):
    x, tx = mt.tensor(data), torch.tensor(data)
    if dim is not None and x.ndim == 1 and x.numel() == 0 and dim == -1:
        dim = 0
    ours = mt.unique_consecutive(x, return_inverse=inverse, return_counts=counts, dim=dim)
    theirs = torch.unique_consecutive(tx, return_inverse=inverse, return_counts=counts, dim=dim)
    if not isinstance(theirs, tuple):
        ours, theirs = (ours,), (theirs,)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        same(a, b)
    same(x.unique_consecutive(dim=dim), tx.unique_consecutive(dim=dim))


def test_unique_consecutive_edges():
    same(mt.unique_consecutive(mt.tensor(3.0), return_inverse=True)[1],
         torch.unique_consecutive(torch.tensor(3.0), return_inverse=True)[1])
    same(mt.unique_consecutive(mt.zeros(2, 0), dim=1), torch.unique_consecutive(torch.zeros(2, 0), dim=1))
    for fm, ft in [(lambda: mt.unique_consecutive(mt.zeros(2, 2), dim=2),
                    lambda: torch.unique_consecutive(torch.zeros(2, 2), dim=2)),
                   (lambda: mt.unique_consecutive(mt.tensor(3.0), dim=0),
                    lambda: torch.unique_consecutive(torch.tensor(3.0), dim=0)),
                   (lambda: mt.unique_consecutive(mt.zeros(2, 0), dim=0),
                    lambda: torch.unique_consecutive(torch.zeros(2, 0), dim=0))]:
        o, t = error_pair(fm, ft)
        assert o == t


def test_global_switches():
    try:
        mt.use_deterministic_algorithms(True, warn_only=True)
        assert mt.are_deterministic_algorithms_enabled()
        assert mt.is_deterministic_algorithms_warn_only_enabled()
    finally:
        mt.use_deterministic_algorithms(False)
    assert not mt.are_deterministic_algorithms_enabled()
    o, t = error_pair(lambda: mt.use_deterministic_algorithms(1),
                       lambda: torch.use_deterministic_algorithms(1))
    assert o == t
    before = mt.get_float32_matmul_precision()
    assert before == torch.get_float32_matmul_precision() == "highest"
    try:
        mt.set_float32_matmul_precision("high")
        assert mt.get_float32_matmul_precision() == "high"
        with pytest.warns(UserWarning, match="is not one of"):
            mt.set_float32_matmul_precision("foo")
        assert mt.get_float32_matmul_precision() == "high"
    finally:
        mt.set_float32_matmul_precision(before)
    mt.set_default_device("cpu")
    mt.set_default_device(None)
    assert mt.get_default_device() == mt.device("cpu")
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        mt.set_default_device("cuda")


def test_memory_formats_are_accepted():
    x = mt.arange(6.0).reshape(2, 3)
    for name in ("contiguous_format", "preserve_format"):
        fmt = getattr(mt, name)
        assert repr(fmt) == "minitorch." + name and isinstance(fmt, mt.memory_format)
        np.testing.assert_array_equal(x.contiguous(memory_format=fmt).numpy(), x.numpy())
        np.testing.assert_array_equal(x.clone(memory_format=fmt).numpy(), x.numpy())
        assert mt.empty_like(x, memory_format=fmt).shape == x.shape


def test_compile_and_jit_return_their_input():
    import minitorch._compile_stubs as stubs
    stubs._noted.clear()
    model = mt.nn.Linear(2, 2)
    with pytest.warns(UserWarning, match="no compiler"):
        assert mt.compile(model) is model
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mt.compile(model, mode="max-autotune") is model  # the note comes once
        assert mt.compile(fullgraph=True)(len) is len

        @mt.jit.ignore
        def helper(x):
            return x
    with pytest.warns(UserWarning, match="jit.script"):
        @mt.jit.script
        def f(x):
            return x + 1
    assert f(mt.tensor(1.0)).item() == 2.0 and helper(3) == 3
    with pytest.warns(UserWarning, match="jit.trace"):
        assert mt.jit.trace(model, mt.zeros(1, 2)) is model
