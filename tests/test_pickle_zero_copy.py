"""Pickling tensors: protocol 5 out-of-band buffers without copies, views
keeping their geometry and shared storage, every protocol, deepcopy and
Generator pickling, against torch and NumPy on the same data."""
import copy
import pickle

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn


def dump_oob(obj):
    buffers = []
    data = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    return data, buffers


def test_out_of_band_round_trip_is_zero_copy():
    x = mt.arange(1000, dtype=mt.float32).reshape(10, 100)
    data, buffers = dump_oob(x)
    assert len(buffers) == 1 and len(data) < 1000  # the bytes are not in the stream
    assert buffers[0].raw().nbytes == 4000
    y = pickle.loads(data, buffers=buffers)
    assert y.data_ptr() == x.data_ptr()  # the loaded tensor wraps the buffer
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    # NumPy behaves the same way with its out-of-band buffers
    a = np.arange(5.0)
    b_data, b_bufs = dump_oob(a)
    assert pickle.loads(b_data, buffers=b_bufs).ctypes.data == a.ctypes.data


def test_out_of_band_buffer_kept_alive_by_the_tensor():
    data, buffers = dump_oob(mt.arange(100, dtype=mt.int64))
    mem = [bytearray(b.raw()) for b in buffers]  # e.g. received from a socket
    del buffers
    y = pickle.loads(data, buffers=mem)
    addr = np.frombuffer(mem[0], dtype=np.uint8).ctypes.data
    del mem
    assert y.data_ptr() == addr
    assert y.tolist() == list(range(100))
    y.add_(1)
    assert y.sum().item() == sum(range(1, 101))


def test_read_only_buffers_are_copied_not_written():
    x = mt.arange(8, dtype=mt.int32)
    data, buffers = dump_oob(x)
    frozen = bytes(buffers[0].raw())
    y = pickle.loads(data, buffers=[frozen])
    y.fill_(7)
    assert np.frombuffer(frozen, dtype=np.int32).tolist() == list(range(8))
    assert y.tolist() == [7] * 8


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "bool", "uint8",
                                   "int8", "int16", "int32", "int64"])
def test_every_protocol_and_dtype_against_torch(protocol, dtype):
    torch = pytest.importorskip("torch")
    base = np.arange(24).reshape(2, 3, 4) % 5
    tt = torch.tensor(base).to(getattr(torch, dtype)).permute(2, 0, 1)[1:, :, ::2]
    mtt = mt.tensor(base).to(getattr(mt, dtype)).permute(2, 0, 1)[1:, :, ::2]
    u = pickle.loads(pickle.dumps(mtt, protocol=protocol))
    v = pickle.loads(pickle.dumps(tt, protocol=protocol))
    assert u.dtype == mtt.dtype and u.shape == tuple(v.shape)
    assert u.stride() == v.stride() and u.storage_offset() == v.storage_offset()
    assert u.float().tolist() == v.float().tolist()
    assert u.data_ptr() != mtt.data_ptr()


def test_views_pickled_together_share_one_storage():
    # As torch.save and copy.deepcopy keep it (torch's plain pickle does
    # not: it writes each view's storage again, and loads separate copies).
    torch = pytest.importorskip("torch")
    t = torch.arange(10.0)
    ta, tb, tc = copy.deepcopy([t, t[2:5], t.view(2, 5).t()])
    ta[3] = -1.0
    x = mt.arange(10.0)
    for protocol in (2, 4, 5):
        a, b, c = pickle.loads(pickle.dumps([x, x[2:5], x.view(2, 5).t()], protocol=protocol))
        a[3] = -1.0
        assert b.tolist() == tb.tolist() and c.tolist() == tc.tolist()
        assert a.data_ptr() != x.data_ptr()
    data, buffers = dump_oob([x, x[4:], x.view(5, 2)])
    assert len(buffers) == 1


def test_separate_pickles_do_not_share():
    x = mt.arange(4.0)
    a = pickle.loads(pickle.dumps(x))
    b = pickle.loads(pickle.dumps(x[1:]))
    a[1] = 9.0
    assert b[0].item() == 1.0


def test_requires_grad_subclass_parameter_like_torch():
    torch = pytest.importorskip("torch")
    for lib, param in ((mt, nn.Parameter), (torch, torch.nn.Parameter)):
        leaf = lib.ones(3, requires_grad=True)
        non_leaf = leaf * 2
        loaded = pickle.loads(pickle.dumps([leaf, non_leaf, param(lib.zeros(2))], protocol=5))
        assert [t.requires_grad for t in loaded] == [True, True, True]
        assert [t.is_leaf for t in loaded] == [True, True, True]
        assert type(loaded[2]) is param and loaded[2].grad is None


def test_deepcopy_keeps_grad_and_shared_storage_like_torch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (mt, torch):
        x = lib.arange(6.0).requires_grad_()
        x.grad = lib.full((6,), 0.5)
        y, z = copy.deepcopy([x, x.detach()[1:]])
        z[0] = 42.0
        results.append((y.requires_grad, y.is_leaf, y.grad.tolist(), y.detach().tolist(),
                        y.data_ptr() != x.data_ptr(), x.tolist()))
        with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
            copy.deepcopy(x * 2)
        p = (nn.Parameter if lib is mt else torch.nn.Parameter)(lib.ones(2))
        p.grad = lib.ones(2)
        q = copy.deepcopy(p)
        results.append((type(q).__name__, q.grad is None, q.requires_grad))
    assert results[0] == results[2] and results[1] == results[3]


def test_copy_copy_shares_storage_like_torch():
    torch = pytest.importorskip("torch")
    for lib in (mt, torch):
        x = lib.arange(3.0)
        assert copy.copy(x).data_ptr() == x.data_ptr()


def test_generator_pickles_and_continues_its_stream_like_torch():
    torch = pytest.importorskip("torch")
    for lib in (mt, torch):
        g = lib.Generator()
        g.manual_seed(1234)
        lib.rand(5, generator=g)
        h = pickle.loads(pickle.dumps(g))
        k = copy.deepcopy(g)
        assert h.initial_seed() == k.initial_seed() == 1234
        expected = lib.rand(4, generator=g).tolist()
        assert lib.rand(4, generator=h).tolist() == expected
        assert lib.rand(4, generator=k).tolist() == expected
