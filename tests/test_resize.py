"""Tensor.resize_ and resize_as_ against torch: shapes, strides, kept
elements, storage growth, memory formats, version counts and errors."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def geometry(t):
    return tuple(t.shape), tuple(t.stride()), t.storage_offset()


def both(values, dtype="float32"):
    return (mt.tensor(values, dtype=getattr(mt, dtype)),
            torch.tensor(values, dtype=getattr(torch, dtype)))


def error_of(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "bool",
                                   "float16", "bfloat16"])
@pytest.mark.parametrize("steps", [[(2, 2)], [(3, 4)], [(3, 4), (2,)], [(2,), (5, 7)],
                                   [(0,), (4,)], [(1, 1, 1)], [(300,)], [(2, 3), (1000,)]])
def test_resize_keeps_leading_elements(dtype, steps):
    rng = np.random.default_rng(0)
    values = (rng.standard_normal(6) * 10).tolist()
    if dtype == "bool":
        values = [v > 0 for v in values]
    elif dtype in ("int64", "int32", "uint8"):
        values = [abs(int(v)) for v in values]
    m, t = both(values, dtype)
    kept = 6
    for shape in steps:
        rm, rt = m.resize_(*shape), t.resize_(*shape)
        assert rm is m and rt is t
        assert geometry(m) == geometry(t)
        kept = min(kept, int(np.prod(shape)))
        got = m.reshape(-1)[:kept].to(mt.float64).tolist()
        want = t.reshape(-1)[:kept].to(torch.float64).tolist()
        assert got == want


def test_resize_same_shape_keeps_strides():
    m, t = mt.zeros(2, 3).t(), torch.zeros(2, 3).t()
    m.resize_(3, 2)
    t.resize_(3, 2)
    assert geometry(m) == geometry(t) == ((3, 2), (1, 3), 0)


def test_resize_of_a_view_grows_the_shared_storage():
    m, t = mt.arange(6.0), torch.arange(6.0)
    vm, vt = m[1:], t[1:]
    vm.resize_(20)
    vt.resize_(20)
    assert geometry(vm) == geometry(vt)
    assert vm[:5].tolist() == vt[:5].tolist()
    assert vm._version == vt._version
    vm.fill_(3.0)
    vt.fill_(3.0)
    assert m.tolist() == t.tolist()


def test_view_resize_writes_reach_the_base_storage():
    m, t = mt.zeros(4), torch.zeros(4)
    wm, wt = m.view(2, 2), t.view(2, 2)
    wm.resize_(3, 3).fill_(1)
    wt.resize_(3, 3).fill_(1)
    assert m.tolist() == t.tolist()


def test_resize_counts_as_a_write():
    m, t = mt.ones(3), torch.ones(3)
    for shape in [(4,), (2, 2), (2, 2), (1,)]:
        m.resize_(*shape)
        t.resize_(*shape)
        assert m._version == t._version


@pytest.mark.parametrize("shape, fmt", [((2, 3, 4, 5), "channels_last"),
                                        ((2, 3, 4, 5, 6), "channels_last_3d"),
                                        ((2, 3, 4, 5), "contiguous_format"),
                                        ((2, 0, 4, 5), "channels_last")])
def test_resize_memory_format(shape, fmt):
    m, t = mt.ones(3), torch.ones(3)
    m.resize_(*shape, memory_format=getattr(mt, fmt))
    t.resize_(*shape, memory_format=getattr(torch, fmt))
    assert geometry(m) == geometry(t)


def test_resize_as_follows_template():
    m, t = mt.ones(3), torch.ones(3)
    tm = mt.ones(2, 3, 4, 5).to(memory_format=mt.channels_last)
    tt = torch.ones(2, 3, 4, 5).to(memory_format=torch.channels_last)
    assert geometry(m.resize_as_(tm)) == geometry(t.resize_as_(tt))
    m2, t2 = mt.ones(3), torch.ones(3)
    assert geometry(m2.resize_as_(tm, memory_format=mt.preserve_format)) == \
        geometry(t2.resize_as_(tt, memory_format=torch.preserve_format))
    assert geometry(mt.resize_as_(mt.ones(1), mt.ones(7))) == \
        geometry(torch.resize_as_(torch.ones(1), torch.ones(7)))
    # list and tuple sizes as torch takes them
    assert geometry(mt.ones(3).resize_([2, 2])) == geometry(torch.ones(3).resize_([2, 2]))
    assert geometry(mt.ones(3).resize_((2, 1))) == geometry(torch.ones(3).resize_((2, 1)))


def test_expanded_tensor_resizes():
    m, t = mt.ones(3)[:2].expand(3, 2), torch.ones(3)[:2].expand(3, 2)
    assert geometry(m.resize_(2, 2)) == geometry(t.resize_(2, 2))
    assert m.reshape(-1)[:3].tolist() == t.reshape(-1)[:3].tolist()


def test_numpy_memory_resizes_only_within_itself():
    a = np.arange(3.0)
    m, t = mt.from_numpy(a.copy()), torch.from_numpy(a.copy())
    assert geometry(m.resize_(2)) == geometry(t.resize_(2))
    assert geometry(m.resize_(3)) == geometry(t.resize_(3))
    assert m.tolist() == t.tolist()
    assert error_of(lambda: mt.from_numpy(a.copy()).resize_(5)) == \
        error_of(lambda: torch.from_numpy(a.copy()).resize_(5))


def test_errors_match_torch():
    cases = [
        lambda L: L.ones(3, requires_grad=True).resize_(4),
        lambda L: L.ones(3, requires_grad=True).resize_as_(L.ones(2)),
        lambda L: (L.ones(3, requires_grad=True) * 2).resize_(1),
        lambda L: L.ones(3).resize_(-1),
        lambda L: L.ones(3).resize_(2, -1),
        lambda L: L.ones(3).resize_(2, memory_format=L.preserve_format),
        lambda L: L.ones(3).resize_(2, 3, memory_format=L.channels_last),
        lambda L: L.ones(3).resize_(2, 3, memory_format=L.channels_last_3d),
    ]
    for case in cases:
        assert error_of(lambda: case(mt)) == error_of(lambda: case(torch))


def test_requires_grad_refused_under_no_grad():
    m, t = mt.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    with mt.no_grad():
        em = error_of(lambda: m.resize_(4))
    with torch.no_grad():
        et = error_of(lambda: t.resize_(4))
    assert em == et
    assert geometry(m.detach().resize_(5)) == geometry(t.detach().resize_(5))
