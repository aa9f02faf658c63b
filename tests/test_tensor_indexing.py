"""Indexing (x[key], x[key] = v) and data-movement ops against torch and NumPy."""
import re
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import minitorch as mt

torch = pytest.importorskip("torch")


def arr(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def same(m, t):
    np.testing.assert_array_equal(np.asarray(m.numpy()), t.numpy())
    assert tuple(m.shape) == tuple(t.shape)


def to_torch_key(key):
    if isinstance(key, tuple):
        return tuple(to_torch_key(k) for k in key)
    if isinstance(key, np.ndarray):
        return torch.tensor(key)
    return key


def to_mt_key(key):
    if isinstance(key, tuple):
        return tuple(to_mt_key(k) for k in key)
    if isinstance(key, np.ndarray):
        return mt.tensor(key)
    return key


KEYS = [
    0, -1, (1, 2), slice(None, None, 2), (Ellipsis, 1), (None, 0, None), (slice(1, 3), None),
    True, False, (), Ellipsis, [0, 2, 2], ([0, 1], [1, 2]), (slice(None), [2, 0]),
    ([0, 1], slice(None), [1, 2]), ([0, 1], None, [1, 2]), (1, slice(None), [0, 2]),
    np.array([True, False, True]), (slice(None), np.array([[1, 0], [2, 3]])),
    (np.array([[True, False, True, False]] * 3)), (Ellipsis, [0, -1]), [-1],
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_getitem_matches_torch(key):
    a = arr((3, 4, 5))
    same(mt.tensor(a)[to_mt_key(key)], torch.tensor(a)[to_torch_key(key)])


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_setitem_matches_torch(key):
    a = arr((3, 4, 5))
    x, tx = mt.tensor(a), torch.tensor(a)
    x[to_mt_key(key)] = 7.5
    tx[to_torch_key(key)] = 7.5
    same(x, tx)
    target_shape = tuple(tx[to_torch_key(key)].shape)
    v = arr(target_shape[1:], seed=3)
    x[to_mt_key(key)] = mt.tensor(v)
    tx[to_torch_key(key)] = torch.tensor(v)
    same(x, tx)


def test_basic_indexing_is_a_view_and_advanced_copies():
    x = mt.zeros([3, 4])
    v = x[1, 1:3]
    v[0] = 5
    assert x[1, 1].item() == 5.0
    c = x[[1]]
    c[0, 0] = 9
    assert x[1, 0].item() == 0.0


def test_noncontiguous_and_zero_size():
    a = arr((4, 6))
    x, tx = mt.tensor(a).t(), torch.tensor(a).t()
    same(x[1:5:2, [0, 3]], tx[1:5:2, [0, 3]])
    same(x[x.shape[0]:], tx[tx.shape[0]:])
    same(mt.zeros([0, 3])[:, [1]], torch.zeros(0, 3)[:, [1]])
    x[::2, 1] = mt.tensor([1.0, 2.0, 3.0])
    tx[::2, 1] = torch.tensor([1.0, 2.0, 3.0])
    same(x, tx)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                   "float16", "bfloat16", "float32", "float64"])
def test_dtypes_and_casting_assignment(dtype):
    x = mt.zeros([2, 3], dtype=getattr(mt, dtype))
    tx = torch.zeros(2, 3, dtype=getattr(torch, dtype))
    x[0, [0, 2]] = mt.tensor([1.0, 3.0]).to(x.dtype) if hasattr(x, "to") else 3
    tx[0, [0, 2]] = torch.tensor([1.0, 3.0]).to(tx.dtype) if hasattr(x, "to") else 3
    x[0, 1:] = mt.tensor([1.0, 3.0])
    tx[0, 1:] = torch.tensor([1.0, 3.0])
    x[1] = 1
    tx[1] = 1
    with pytest.raises(RuntimeError, match="Index put requires the source and destination"):
        x[[0]] = mt.zeros([3], dtype=mt.float32 if dtype == "float64" else mt.float64)
    assert x.tolist() == tx.tolist()


@pytest.mark.parametrize("expr, exc, msg", [
    ("x[5]", IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
    ("x[0, 0]", IndexError, "too many indices for tensor of dimension 1"),
    ("x[::-1]", ValueError, "step must be greater than zero"),
    ("x[1.5]", IndexError, "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                           "Variables are valid indices (got float)"),
    ("x[[0, 3]]", IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
    ("x[X([1.0])]", IndexError, "tensors used as indices must be long, int, byte or bool tensors"),
    ("x[X([True, False])]", IndexError, "The shape of the mask [2] at index 0 does not match the "
                                        "shape of the indexed tensor [3] at index 0"),
])
def test_index_errors(expr, exc, msg):
    for lib in (mt, torch):
        x = lib.zeros(3)
        with pytest.raises(exc) as info:
            eval(expr, {"x": x, "X": lib.tensor})
        assert str(info.value) == msg


@pytest.mark.parametrize("stmt, exc, msg", [
    ("x[0] = [1, 2, 3]", TypeError, "can't assign a list to a torch.FloatTensor"),
    ("x[0] = X([1.0, 2.0])", RuntimeError,
     "The expanded size of the tensor (3) must match the existing size (2) at non-singleton "
     "dimension 0.  Target sizes: [3].  Tensor sizes: [2]"),
    ("x[[0]] = X([[1.0, 2.0]] * 2)", RuntimeError,
     "shape mismatch: value tensor of shape [2, 2] cannot be broadcast to indexing result of "
     "shape [1, 3]"),
])
def test_setitem_errors(stmt, exc, msg):
    for lib in (mt, torch):
        with pytest.raises(exc) as info:
            exec(stmt, {"x": lib.zeros(2, 3), "X": lib.tensor})
        assert str(info.value) == msg


def index_item(size):
    return st.one_of(
        st.integers(-size, size - 1),
        st.builds(slice, st.none() | st.integers(-size - 1, size + 1),
                  st.none() | st.integers(-size - 1, size + 1), st.none() | st.integers(1, 3)),
        st.lists(st.integers(-size, size - 1), min_size=1, max_size=3).map(np.array),
    ) if size else st.builds(slice, st.none(), st.none())


@st.composite
def shape_and_key(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=3)))
    n = draw(st.integers(0, len(shape)))
    key = tuple(draw(index_item(s)) for s in shape[:n])
    # one advanced-index shape so arrays broadcast
    lens = {len(k) for k in key if isinstance(k, np.ndarray)}
    if len(lens) > 1:
        key = tuple(k[:1] if isinstance(k, np.ndarray) else k for k in key)
    return shape, key


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(shape_and_key())
def test_fuzz_getitem_setitem_against_torch(sk):
    shape, key = sk
    a = arr(shape)
    tkey = to_torch_key(key)
    expected = torch.tensor(a)[tkey]
    same(mt.tensor(a)[to_mt_key(key)], expected)
    if not any(isinstance(k, np.ndarray) for k in key):
        # basic indexing agrees with NumPy too
        np.testing.assert_array_equal(mt.tensor(a)[to_mt_key(key)].numpy(), a[key])
    x, tx = mt.tensor(a), torch.tensor(a)
    v = arr(tuple(expected.shape), seed=1)
    x[to_mt_key(key)] = mt.tensor(v)
    tx[tkey] = torch.tensor(v)
    same(x, tx)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.integers(-10, 10))
def test_fuzz_out_of_range_raises_index_error(shape, i):
    x = mt.zeros(shape)
    if -shape[0] <= i < shape[0]:
        x[i]
        x[[i]]
    else:
        with pytest.raises(IndexError):
            x[i]
        with pytest.raises(IndexError):
            x[[i]]
        with pytest.raises(IndexError):
            x[[i]] = 1.0


# data movement

def both(a):
    return mt.tensor(a), torch.tensor(a)


@pytest.mark.parametrize("transpose", [False, True])
def test_cat_stack(transpose):
    a, b = arr((3, 4)), arr((3, 4), seed=1)
    (x, tx), (y, ty) = both(a), both(b)
    if transpose:
        x, tx, y, ty = x.t(), tx.t(), y.t(), ty.t()
    for d in (0, 1, -1):
        same(mt.cat([x, y], d), torch.cat([tx, ty], d))
        same(mt.stack([x, y], d), torch.stack([tx, ty], d))
    same(mt.cat([x, mt.zeros(0)]), torch.cat([tx, torch.zeros(0)]))
    same(mt.cat([mt.tensor([1, 2], dtype=mt.int32), mt.tensor([0.5])]),
         torch.cat([torch.tensor([1, 2], dtype=torch.int32), torch.tensor([0.5])]))


@pytest.mark.parametrize("expr", [
    "L.cat([])", "L.cat([L.ones(2, 3), L.ones(2, 2)])", "L.cat([L.ones(2), L.ones(2, 2)])",
    "L.stack([L.ones(2), L.ones(3)])",
])
def test_cat_stack_errors(expr):
    with pytest.raises(Exception) as ref:
        eval(expr, {"L": torch})
    with pytest.raises(type(ref.value)) as got:
        eval(expr, {"L": mt})
    assert str(got.value) == str(ref.value)


def test_flip_roll_repeat_tile():
    a = arr((3, 4))
    x, tx = both(a)
    x, tx = x.t(), tx.t()
    same(mt.flip(x, [0]), torch.flip(tx, [0]))
    same(mt.flip(x, [0, 1]), torch.flip(tx, [0, 1]))
    same(mt.roll(x, 3), torch.roll(tx, 3))
    same(mt.roll(x, [1, -5], [0, 1]), torch.roll(tx, [1, -5], [0, 1]))
    same(x.repeat(2, 1, 3), tx.repeat(2, 1, 3))
    same(mt.tile(x, [2]), torch.tile(tx, [2]))
    same(mt.zeros([0, 2]).repeat(2, 2), torch.zeros(0, 2).repeat(2, 2))


def test_gather_scatter_index_ops():
    a = arr((3, 4))
    x, tx = both(a)
    g = np.random.default_rng(2).integers(0, 4, (3, 2))
    gi, tgi = both(g)
    same(mt.gather(x, 1, gi), torch.gather(tx, 1, tgi))
    same(mt.scatter(x, 1, gi, 2.0), torch.scatter(tx, 1, tgi, 2.0))
    same(mt.scatter(x, 1, gi, x), torch.scatter(tx, 1, tgi, tx))
    np.testing.assert_allclose(mt.scatter_add(x, 1, gi, x).numpy(),
                               torch.scatter_add(tx, 1, tgi, tx).numpy(), rtol=1e-6)
    i = np.array([2, 0, 0])
    same(mt.index_select(x, 1, mt.tensor(i)), torch.index_select(tx, 1, torch.tensor(i)))
    same(mt.take(x.t(), mt.tensor(i)), torch.take(tx.t(), torch.tensor(i)))
    y, ty = x.clone(), tx.clone()
    y.index_add_(0, mt.tensor([0, 0]), mt.tensor(a[:2]), alpha=2)
    ty.index_add_(0, torch.tensor([0, 0]), torch.tensor(a[:2]), alpha=2)
    np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-6)


def test_masks_nonzero_triangles():
    a = arr((3, 4))
    x, tx = both(a)
    m = a > 0
    same(mt.masked_fill(x, mt.tensor(m), -1.0), tx.masked_fill(torch.tensor(m), -1.0))
    same(mt.masked_select(x, mt.tensor(m[0])), torch.masked_select(tx, torch.tensor(m[0])))
    same(mt.nonzero(x.t()), torch.nonzero(tx.t()))
    for r, e in zip(mt.nonzero(x, as_tuple=True), torch.nonzero(tx, as_tuple=True)):
        same(r, e)
    y = x.clone()
    y.masked_fill_(mt.tensor(m), 0)
    same(y, tx.masked_fill(torch.tensor(m), 0))
    for d in (-1, 0, 2):
        same(mt.tril(x.t(), d), torch.tril(tx.t(), d))
        same(mt.triu(x, d), torch.triu(tx, d))


EMPTY_DIM_CASES = {
    "get from a size-0 dim": lambda L: L.zeros(0, 3)[[2]],
    "set into a size-0 dim": lambda L: L.zeros(0, 1000).__setitem__(L.tensor([5]), 7.0),
    "take from an empty tensor": lambda L: L.take(L.tensor([]), L.tensor([1000000])),
    "index_select on a size-0 dim": lambda L: L.index_select(L.zeros(0, 3), 0, L.tensor([1])),
    "take nothing from an empty tensor": lambda L: L.take(L.tensor([]), L.tensor([], dtype=L.long)),
    "get nothing from a size-0 dim": lambda L: L.zeros(0, 3)[L.tensor([], dtype=L.long)],
    "an empty result is not checked": lambda L: L.zeros(2, 0)[[5]],
}


@pytest.mark.parametrize("case", sorted(EMPTY_DIM_CASES))
def test_indices_into_empty_dims_as_torch(case):
    try:
        want = EMPTY_DIM_CASES[case](torch)
    except Exception as e:  # noqa: BLE001 - minitorch must raise the same
        with pytest.raises(type(e), match="^" + re.escape(str(e)) + "$"):
            EMPTY_DIM_CASES[case](mt)
        return
    got = EMPTY_DIM_CASES[case](mt)
    assert tuple(got.shape) == tuple(want.shape)


@pytest.mark.parametrize("shape, key", [
    ((2, 3, 0), (Ellipsis, 0)), ((4, 5, 6), (Ellipsis, 9)), ((4, 5, 6), (Ellipsis, 9, 0)),
    ((4, 5, 6), (0, Ellipsis, 9)), ((4, 5, 6), (None, 0, 9)), ((4, 5, 6), (None, None, -9)),
    ((4, 5, 6), (slice(1, 2), None, Ellipsis, 7)), ((4, 5, 6), (True, 9)), ((4, 5, 6), 9),
])
@pytest.mark.parametrize("write", [False, True])
def test_an_integer_out_of_range_names_its_place_in_the_key_as_torch(shape, key, write):
    """torch's message gives the integer's position in the key tuple (not
    the dim it selects from) and that dim's size."""
    messages = []
    for lib in (torch, mt):
        x = lib.zeros(*shape)
        with pytest.raises(IndexError) as e:
            if write:
                x[key] = 1.0
            else:
                x[key]
        messages.append(str(e.value))
    assert messages[1] == messages[0]
