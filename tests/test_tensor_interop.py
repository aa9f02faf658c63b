"""Conversions and interop: to/type/casts, copy_, result_type, NumPy zero copy,
DLPack round trips, pickling and copying."""
import copy
import gc
import pickle
import weakref

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1)
DTYPES = [mt.bool, mt.uint8, mt.int8, mt.int16, mt.int32, mt.int64, mt.float16, mt.bfloat16,
          mt.float32, mt.float64]
NP_DTYPES = {mt.bool: np.bool_, mt.uint8: np.uint8, mt.int8: np.int8, mt.int16: np.int16,
             mt.int32: np.int32, mt.int64: np.int64, mt.float16: np.float16,
             mt.float32: np.float32, mt.float64: np.float64}


def name(dt):
    return repr(dt)[len("minitorch."):]


def sample(dt, shape=(3, 4)):
    values = np.asarray(RNG.standard_normal(shape) * 5, dtype=np.float64)
    return mt.from_numpy(values).to(dt)


# ------------------------------------------------------------------ conversions

@pytest.mark.parametrize("dt", DTYPES)
def test_to_and_named_casts_match_torch(dt):
    a = (RNG.standard_normal((2, 5)) * 5).astype(np.float32)
    t, ref = mt.from_numpy(a).t(), torch.from_numpy(a).t()
    got = t.to(dt)
    want = ref.to(getattr(torch, name(dt)))
    assert got.dtype == dt and got.shape == want.shape
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
    assert got.stride() == want.stride()
    for meth in ("float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte",
                 "bool"):
        np.testing.assert_array_equal(getattr(got, meth)().float().numpy(),
                                      getattr(want, meth)().float().numpy())
        assert name(getattr(got, meth)().dtype) == repr(getattr(want, meth)().dtype)[6:]


def test_to_overloads_return_self_when_nothing_changes():
    x = mt.zeros(2, 3)
    assert x.to(mt.float32) is x
    assert x.to(x) is x
    assert x.to("cpu") is x
    assert x.to(mt.device("cpu")) is x
    assert x.float() is x
    assert x.to() is x
    assert x.to(mt.float32, copy=True) is not x
    y = x.to("cpu", mt.float64)
    assert y.dtype == mt.float64
    assert x.to(mt.zeros(1, dtype=mt.int16)).dtype == mt.int16
    assert x.to(dtype=mt.int8).dtype == mt.int8
    assert x.to(device="cpu", dtype=mt.int8).dtype == mt.int8
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        x.to("cuda")  # as a CPU-only torch build


def test_type():
    x = mt.zeros(2)
    assert x.type() == "minitorch.FloatTensor"
    assert x.int().type() == "minitorch.IntTensor"
    assert x.type(mt.int64).type() == "minitorch.LongTensor"
    assert x.type("torch.DoubleTensor").dtype == mt.float64
    assert x.type("minitorch.BoolTensor").dtype == mt.bool
    assert x.type(mt.float32) is x
    with pytest.raises(ValueError, match="invalid type: 'torch.Foo'"):
        x.type("torch.Foo")
    for dt in DTYPES:
        assert mt.zeros(1, dtype=dt).type()[len("minitorch."):] == \
            torch.zeros(1, dtype=getattr(torch, name(dt))).type()[len("torch."):]


@pytest.mark.parametrize("dt", DTYPES)
def test_copy_broadcasts_casts_and_bumps_version(dt):
    dst = mt.zeros(2, 3, 4, dtype=dt).transpose(0, 2)
    src_np = (RNG.standard_normal((3, 1)) * 4).astype(np.float64)
    v = dst._version
    out = dst.copy_(mt.from_numpy(src_np))
    assert out is dst and dst._version == v + 1
    want = torch.zeros(2, 3, 4, dtype=getattr(torch, name(dt))).transpose(0, 2)
    want.copy_(torch.from_numpy(src_np))
    np.testing.assert_array_equal(dst.float().numpy(), want.float().numpy())


def test_copy_errors_and_overlap():
    with pytest.raises(RuntimeError, match="The size of tensor a"):
        mt.zeros(2, 3, 4).copy_(mt.zeros(5))
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the "
                       r"broadcast shape \[2, 3\]"):
        mt.zeros(3).copy_(mt.zeros(2, 3))
    a = mt.from_numpy(np.arange(9.0).reshape(3, 3))
    # torch refuses a source that is the target in another order (issue 13)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the "
                       "written-to tensor refer to a single memory location"):
        a.copy_(a.t())
    a.copy_(a.t().clone())
    np.testing.assert_array_equal(a.numpy(), np.arange(9.0).reshape(3, 3).T)


def test_result_type():
    cases = [
        (lambda m: m.zeros(2, dtype=m.int32), 2.5),
        (lambda m: m.zeros(2, dtype=m.int32), 2),
        (lambda m: m.zeros(2, dtype=m.uint8), lambda m: m.tensor(1, dtype=m.int64)),
        (lambda m: m.zeros(2, dtype=m.float16), lambda m: m.zeros(2, dtype=m.bfloat16)),
        (True, lambda m: m.tensor(1, dtype=m.uint8)),
        (2, 2.5), (True, False), (3, True),
    ]
    for x, y in cases:
        def make(v, m):
            return v(m) if callable(v) else v
        got = mt.result_type(make(x, mt), make(y, mt))
        want = torch.result_type(make(x, torch), make(y, torch))
        assert name(got) == repr(want)[6:]


def test_device():
    x = mt.zeros(2)
    assert repr(x.device) == "device(type='cpu')"
    assert str(x.device) == "cpu"
    assert x.device == mt.device("cpu") and isinstance(x.device, mt.device)
    assert repr(mt.device("cpu", 0)) == "device(type='cpu', index=0)"
    assert pickle.loads(pickle.dumps(x.device)) == x.device
    assert x.is_cpu


# ------------------------------------------------------------------------ NumPy

@pytest.mark.parametrize("dt", [d for d in DTYPES if d is not mt.bfloat16])
def test_numpy_zero_copy_both_ways(dt):
    a = np.zeros((3, 4), NP_DTYPES[dt])
    t = mt.from_numpy(a)
    assert t.dtype == dt and t.data_ptr() == a.ctypes.data
    t.select(0, 1).copy_(mt.tensor(1))
    assert a[1].all() and not a[0].any()
    back = t.numpy()
    assert back.ctypes.data == a.ctypes.data
    back[2, 3] = 1
    assert t.tolist()[2][3] == 1
    view = t.t().numpy()
    assert view.strides == a.T.strides
    assert np.asarray(t).ctypes.data == a.ctypes.data


def test_numpy_keeps_tensor_memory_alive():
    t = mt.ones(1000)
    arr = t.numpy()
    del t
    gc.collect()
    assert arr.sum() == 1000
    a = np.arange(5.0)
    t = mt.from_numpy(a)
    del a
    gc.collect()
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_array_priority_and_protocol():
    assert mt.Tensor.__array_priority__ > np.zeros(1).__array_priority__
    t = mt.from_numpy(np.arange(4, dtype=np.int32))
    np.testing.assert_array_equal(np.asarray(t, dtype=np.float64), [0.0, 1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        mt.zeros(2, dtype=mt.bfloat16).numpy()


# ------------------------------------------------------------------------ DLPack

@pytest.mark.parametrize("dt", [d for d in DTYPES if d is not mt.bfloat16])
def test_dlpack_numpy_round_trip(dt):
    a = (RNG.standard_normal((3, 5)) * 5).astype(NP_DTYPES[dt])
    t = mt.from_dlpack(a)
    assert t.dtype == dt and t.data_ptr() == a.ctypes.data
    np.testing.assert_array_equal(t.numpy(), a)
    b = np.from_dlpack(t.t())
    assert b.ctypes.data == a.ctypes.data
    np.testing.assert_array_equal(b, a.T)
    assert t.__dlpack_device__() == (1, 0)


def test_dlpack_with_torch_and_bfloat16():
    t = sample(mt.bfloat16)
    r = torch.from_dlpack(t)
    assert r.dtype == torch.bfloat16 and r.data_ptr() == t.data_ptr()
    back = mt.from_dlpack(r)
    assert back.dtype == mt.bfloat16 and back.data_ptr() == t.data_ptr()
    np.testing.assert_array_equal(back.float().numpy(), t.float().numpy())
    s = torch.arange(12.0).reshape(3, 4)[:, 1:]
    m = mt.from_dlpack(s)
    assert m.stride() == s.stride() and m.data_ptr() == s.data_ptr()
    np.testing.assert_array_equal(m.numpy(), s.numpy())


def test_dlpack_capsules_and_lifetime():
    t = mt.ones(4)
    cap = t.__dlpack__()
    assert "dltensor" in repr(cap)
    u = mt.from_dlpack(cap)
    with pytest.raises(ValueError, match="invalid capsule"):
        mt.from_dlpack(cap)
    del u, cap
    versioned = t.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(versioned)
    del versioned  # an unconsumed capsule releases its tensor

    a = np.arange(6.0)
    ref = weakref.ref(a)
    x = mt.from_dlpack(a)
    del a
    gc.collect()
    assert ref() is not None
    del x
    gc.collect()
    assert ref() is None

    y = mt.ones(3)
    alive = weakref.ref(y)
    arr = np.from_dlpack(y)
    del y
    gc.collect()
    assert alive() is not None and arr.sum() == 3
    del arr
    gc.collect()
    assert alive() is None


def test_dlpack_requires_grad():
    x = mt.zeros(2)
    x.requires_grad = True
    with pytest.raises(BufferError, match="Can't export tensors that require gradient, use "
                       "tensor.detach()"):
        x.__dlpack__()


# ---------------------------------------------------------------------- pickling

class Tagged(mt.Tensor):
    pass


@pytest.mark.parametrize("dt", DTYPES)
def test_pickle_round_trip(dt):
    t = sample(dt, (2, 3, 4)).permute(2, 0, 1)
    u = pickle.loads(pickle.dumps(t))
    assert type(u) is mt.Tensor and u.dtype == dt and u.shape == t.shape
    np.testing.assert_array_equal(u.float().numpy(), t.float().numpy())
    assert u.data_ptr() != t.data_ptr()
    z = pickle.loads(pickle.dumps(mt.zeros(0, 3, dtype=dt)))
    assert z.shape == (0, 3) and z.dtype == dt
    s = pickle.loads(pickle.dumps(sample(dt, ()), protocol=2))
    assert s.dim() == 0


def test_pickle_subclass_requires_grad_and_copies():
    t = sample(mt.float32).as_subclass(Tagged)
    t.requires_grad = True
    t.label = "weights"
    t.meta = {"k": [1, 2]}
    for u in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t), copy.copy(t)):
        assert type(u) is Tagged and u.requires_grad
        assert u.label == "weights" and u.meta == {"k": [1, 2]}
        np.testing.assert_array_equal(u.detach().numpy(), t.detach().numpy())
    # as torch's: a copy.copy shares the storage, the others own theirs
    assert copy.copy(t).data_ptr() == t.data_ptr()
    assert pickle.loads(pickle.dumps(t)).data_ptr() != t.data_ptr()
    assert copy.deepcopy(t).data_ptr() != t.data_ptr()
    d = copy.deepcopy(t)
    assert d.meta is not t.meta
    pair = copy.deepcopy([t, t])
    assert pair[0] is pair[1]


def test_conveniences():
    t = mt.from_numpy(np.arange(6.0).reshape(2, 3))
    assert len(t) == 2
    assert f"{mt.tensor(3.14159):.2f}" == "3.14"
    assert hash(t) == hash(t) and hash(t) != hash(t.view_as(t))
    assert [r.tolist() for r in t] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert mt.is_tensor(t) and not mt.is_tensor(np.zeros(1))


def test_operators_with_an_array_record_the_tensor_rows_node():
    x = mt.tensor([1.0, 2.0, 3.0], dtype=mt.float64, requires_grad=True)
    y = x * np.arange(3.0) + np.ones(3) - x / np.array([2.0, 4.0, 8.0])
    assert y.grad_fn.name() == "SubBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0 - 0.5, 1.0 - 0.25, 2.0 - 0.125]
    z = x.detach().clone().requires_grad_()
    w = z * 1
    w *= np.array([3.0, 3.0, 3.0])
    assert w.grad_fn.name() == "MulBackward0"
    w.sum().backward()
    assert z.grad.tolist() == [3.0, 3.0, 3.0]
