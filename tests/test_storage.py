"""Tensor.untyped_storage() and Tensor.storage() against torch's: sizes,
element sizes, values, indexing, sharing between views, shared-memory
storages, the deprecation warning and printing."""
import warnings

import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool", "float16",
          "bfloat16"]


def _pair(dtype, n=6):
    values = [i % 2 == 0 for i in range(n)] if dtype == "bool" else list(range(n))
    return (mt.tensor(values, dtype=getattr(mt, dtype)),
            torch.tensor(values, dtype=getattr(torch, dtype)))


def _views(t):
    # every kind of view of a 2x3 reshape: slices, transposes, offsets
    m = t.reshape(2, 3)
    return [t, t[2:], t[1:5:2], m, m.t(), m[1], m[:, 1:]]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("dtype", DTYPES)
def test_untyped_storage_matches_torch(dtype):
    m, t = _pair(dtype)
    for mv, tv in zip(_views(m), _views(t)):
        ms, ts = mv.untyped_storage(), tv.untyped_storage()
        assert ms.nbytes() == ts.nbytes() == ms.size() == ts.size() == len(ms) == len(ts)
        assert ms.element_size() == ts.element_size() == 1
        assert ms.tolist() == ts.tolist()
        assert [ms[i] for i in (0, 1, -1)] == [ts[i] for i in (0, 1, -1)]
        assert ms[1:3].tolist() == ts[1:3].tolist()
        assert ms[1:3].data_ptr() - ms.data_ptr() == ts[1:3].data_ptr() - ts.data_ptr() == 1
        assert str(ms.device) == str(ts.device) == "cpu"
        # the tensor's data is its storage's start plus its offset
        assert mv.storage_offset() == tv.storage_offset()
        assert mv.data_ptr() == ms.data_ptr() + mv.storage_offset() * mv.element_size()


@pytest.mark.parametrize("dtype", DTYPES)
def test_typed_storage_matches_torch(dtype):
    m, t = _pair(dtype)
    for mv, tv in zip(_views(m), _views(t)):
        ms, ts = mv.storage(), tv.storage()
        assert str(ms.dtype) == "minitorch." + str(ts.dtype).split(".")[1]
        assert ms.size() == ts.size() == len(ms) == len(ts) == 6
        assert ms.nbytes() == ts.nbytes()
        assert ms.element_size() == ts.element_size()
        assert ms.tolist() == ts.tolist()
        assert [ms[i] for i in (0, 3, -1)] == [ts[i] for i in (0, 3, -1)]
        assert ms.data_ptr() == mv.untyped_storage().data_ptr()
        assert ms.untyped() is mv.untyped_storage()


def test_views_share_one_storage():
    a = mt.arange(6.0)
    views = _views(a)
    storages = [v.untyped_storage() for v in views]
    assert len({s.data_ptr() for s in storages}) == 1
    assert all(s is storages[0] for s in storages)  # one object per storage, as torch's
    assert len({s._cdata for s in storages}) == 1
    assert a.clone().untyped_storage().data_ptr() != storages[0].data_ptr()
    # writes through the storage are seen by the tensor, and back
    s = a[3:].storage()
    s[0] = 100.0
    assert a[0].item() == 100.0
    a[5] = -1.0
    assert s[5] == -1.0
    u = a.untyped_storage()
    u[0] = 0
    u[1] = 0
    u[2] = 0
    u[3] = 0
    assert a[0].item() == 0.0


def test_storage_outlives_its_tensor():
    a = mt.arange(4.0)
    u = a.untyped_storage()
    ptr = u.data_ptr()
    del a
    b = mt.zeros(4)
    assert b.data_ptr() != ptr
    assert mt.tensor(u.tolist(), dtype=mt.uint8).view(mt.float32).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_empty_storages():
    for lib in (mt, torch):
        e = lib.empty(0).untyped_storage()
        assert (e.nbytes(), e.data_ptr(), e.tolist()) == (0, 0, [])
        assert len(lib.empty(0).storage()) == 0


@pytest.mark.parametrize("n", [0, 1, 8, 100])
def test_new_shared(n):
    for lib in (mt, torch):
        u = lib.UntypedStorage._new_shared(n)
        assert type(u) is lib.UntypedStorage and u.nbytes() == n and u.is_shared()
        typed = lib.arange(4.0).storage()._new_shared(n)
        assert type(typed) is lib.TypedStorage and typed.size() == n
        assert typed.nbytes() == 4 * n and typed.is_shared()
        assert str(typed.dtype).endswith("float32")


def test_constructors_and_fill():
    for lib in (mt, torch):
        assert lib.UntypedStorage(5).nbytes() == 5
        assert lib.UntypedStorage([1, 2, 255]).tolist() == [1, 2, 255]
        typed = lib.TypedStorage(3, dtype=lib.int64)
        assert typed.size() == 3 and typed.nbytes() == 24
        assert typed.fill_(7).tolist() == [7, 7, 7]
        u = lib.zeros(2).untyped_storage()
        assert u.fill_(1).tolist() == [1] * 8
        c = u.clone()
        c[0] = 9
        assert u[0] == 1 and c.data_ptr() != u.data_ptr()


def test_errors_match_torch():
    m, t = mt.arange(6.0), torch.arange(6.0)
    for lib_storage in (m.untyped_storage(), t.untyped_storage()):
        with pytest.raises(IndexError, match="index 100 out of range for storage of size 24"):
            lib_storage[100]
        with pytest.raises(IndexError, match="index -1 out of range for storage of size 24"):
            lib_storage[-25]
    for typed in (m.storage(), t.storage()):
        with pytest.raises(IndexError, match="index 6 out of range for storage of size 6"):
            typed[6]
        with pytest.raises(RuntimeError, match="slices are only supported in "
                                               "UntypedStorage.__getitem__"):
            typed[1:3]


def test_repr_matches_torch():
    m, t = mt.arange(3.0), torch.arange(3.0)
    assert repr(m.storage()) == repr(t.storage()).replace("torch.", "minitorch.")
    assert repr(m.untyped_storage()[:2]) == repr(t.untyped_storage()[:2]).replace(
        "torch.", "minitorch.")


def test_typed_storage_warns_once_at_the_caller(monkeypatch):
    from minitorch import storage

    monkeypatch.setattr(storage, "_warned", [False])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mt.arange(3.0).storage()
        mt.arange(3.0).storage()
    assert len(caught) == 1
    assert "TypedStorage is deprecated" in str(caught[0].message)
    assert caught[0].filename == __file__
