"""Fuzzing: constructors with bad sizes raise cleanly, random view chains and
indexing keys agree with NumPy (values and data sharing), and indexing keys
dispatch __torch_function__ as torch does."""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minitorch as mt

try:
    import torch
except ImportError:
    torch = None

FAST = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
CLEAN = (RuntimeError, MemoryError, ValueError, TypeError, IndexError, OverflowError)

# Sizes are small, or hold something no allocator can satisfy (2**40 elements,
# products that overflow int64, negatives): never a size that would really be
# allocated and touched.
small = st.lists(st.integers(-3, 5), max_size=5)
huge = st.sampled_from([[2**40], [2**62, 2**62], [2**63 - 1, 3], [-2**63], [2**64]])
sizes = st.builds(lambda a, h, at: a[:at] + h + a[at:], small, huge, st.integers(0, 5)) | small


def must_raise(shape):
    nonzero = [float(s) for s in shape if s]
    return any(s < 0 for s in shape) or (0 not in shape and np.prod(nonzero) >= 2**40)


@FAST
@given(sizes, st.sampled_from(["zeros", "ones", "empty", "full", "Tensor", "rand"]))
def test_constructors_bad_sizes_raise_cleanly(shape, name):
    try:
        if name == "full":
            t = mt.full(shape, 2.0)
        elif name == "Tensor":
            t = mt.Tensor(*shape)
        else:
            t = getattr(mt, name)(*shape)
    except CLEAN:
        assert must_raise(shape) or max(shape, default=0) >= 2**40 or not shape
        return
    assert not must_raise(shape)
    assert list(t.shape) == (shape or ([0] if name == "Tensor" else []))
    assert t.numel() == int(np.prod(shape or [name != "Tensor"], dtype=np.int64))


def test_constructor_error_texts():
    torch = pytest.importorskip("torch")
    for shape in ([2, -1], [-2**63]):
        with pytest.raises(RuntimeError) as ours:
            mt.zeros(shape)
        with pytest.raises(RuntimeError) as theirs:
            torch.zeros(shape)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises((RuntimeError, MemoryError)):
        mt.empty(2**40, dtype=mt.float64)


@FAST
@given(st.recursive(st.one_of(st.integers(-2**70, 2**70), st.floats(allow_nan=True),
                              st.booleans(), st.none(), st.text(max_size=2)),
                    lambda c: st.lists(c, max_size=3), max_leaves=12),
       st.sampled_from([None, mt.int64, mt.int32, mt.uint8, mt.float32, mt.bool]))
def test_tensor_from_random_data(data, dtype):
    for make in ("tensor", "as_tensor"):
        try:
            t = getattr(mt, make)(data, dtype=dtype)
        except CLEAN as e:
            t = e
        if torch is None:
            continue
        try:
            ref = getattr(torch, make)(data, dtype=getattr(torch, str(dtype)[10:]) if dtype else None)
        except Exception as e:  # noqa: BLE001 - the exception type is compared
            ref = e
        if isinstance(ref, Exception) or isinstance(t, Exception):
            # with an explicit dtype torch is lax about some leaves (str, None)
            assert type(t) is type(ref) or dtype is not None, (t, ref)
        else:
            assert tuple(t.shape) == tuple(ref.shape)
            np.testing.assert_array_equal(t.numpy(), ref.numpy())


def test_data_conversion_errors():
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64 without overflow"):
        mt.tensor([1e30], dtype=mt.int64)
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8 without overflow"):
        mt.tensor([300], dtype=mt.uint8)
    with pytest.raises(RuntimeError, match="type int64 without overflow"):
        mt.tensor(float("nan"), dtype=mt.int64)
    assert mt.tensor([-1], dtype=mt.uint8).tolist() == [255]
    assert mt.tensor([1e30], dtype=mt.bool).tolist() == [True]
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        mt.tensor([2**63])
    with pytest.raises(RuntimeError, match="Could not infer dtype of object"):
        mt.tensor([object()])
    with pytest.raises(TypeError, match="new\\(\\): invalid data type 'bytes'"):
        mt.tensor(b"ab")
    # a tensor where a scalar belongs used to be copied whole, past the buffer
    with pytest.raises(ValueError, match="only one element tensors can be converted"):
        mt.tensor([[1, 2], mt.zeros(2, 3)])
    with pytest.raises(TypeError, match="only 0-dimensional arrays"):
        mt.tensor([[1, 2], np.zeros((2, 3))])
    with pytest.raises(TypeError, match="not a sequence"):
        mt.tensor([[[1, 2]], mt.zeros(1)])
    assert mt.tensor([[1, 2], mt.zeros(2, 1)]).tolist() == [[1, 2], [0, 0]]


# ------------------------------------------------------------ view chains

def view_step(draw, t, a):
    """One random view op applied to both the tensor and the array."""
    ops = ["transpose", "permute", "unsqueeze", "slice", "select", "expand", "narrow", "flip_neg"]
    if t.ndim:
        ops += ["squeeze", "reshape", "view"]
    op = draw(st.sampled_from(ops))
    nd = t.ndim
    if op == "transpose" and nd >= 2:
        i, j = draw(st.integers(0, nd - 1)), draw(st.integers(-nd, nd - 1))
        return t.transpose(i, j), np.swapaxes(a, i, j)
    if op == "permute" and nd:
        p = draw(st.permutations(range(nd)))
        return t.permute(*p), a.transpose(p)
    if op == "unsqueeze" and nd < 6:
        d = draw(st.integers(-nd - 1, nd))
        return t.unsqueeze(d), np.expand_dims(a, d)
    if op == "squeeze":
        return t.squeeze(), a.squeeze()
    if op == "slice" and nd:
        d = draw(st.integers(0, nd - 1))
        start, stop = draw(st.integers(-5, 5)), draw(st.integers(-5, 5))
        step = draw(st.integers(1, 3))
        key = (slice(None),) * d + (slice(start, stop, step),)
        return t[key], a[key]
    if op == "select" and nd and t.shape[0]:
        i = draw(st.integers(-t.shape[0], t.shape[0] - 1))
        return t.select(0, i), a[i]
    if op == "narrow" and nd:
        d = draw(st.integers(0, nd - 1))
        start = draw(st.integers(0, t.shape[d]))
        length = draw(st.integers(0, t.shape[d] - start))
        return t.narrow(d, start, length), np.take(a, range(start, start + length), axis=d)
    if op == "expand" and nd:
        shape = [draw(st.integers(1, 3)) if s == 1 else s for s in t.shape]
        return t.expand(*shape), np.broadcast_to(a, shape)
    if op in ("reshape", "view"):
        shape = list(a.shape)
        if len(shape) >= 2 and draw(st.booleans()):
            shape[:2] = [shape[0] * shape[1]]
        if a.size:
            shape[draw(st.integers(0, len(shape) - 1))] = -1
        try:
            v = getattr(t, op)(*shape)
        except RuntimeError as e:
            assert op == "view" and "view size is not compatible" in str(e)
            return t, a
        return v, a.reshape(shape)
    return t, a


@FAST
@given(st.data())
def test_random_view_chains_match_numpy(data):
    shape = data.draw(st.lists(st.integers(0, 4), min_size=1, max_size=4))
    base_np = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    base = mt.tensor(base_np)
    t, a = base, base_np
    for _ in range(data.draw(st.integers(1, 6))):
        t, a = view_step(data.draw, t, a)
        assert tuple(t.shape) == a.shape
        np.testing.assert_array_equal(t.numpy(), a)
    # the views share storage with base: a write through base shows up
    if t.numel() and t.data_ptr() != 0 and np.may_share_memory(a, base_np) is not False:
        base.add_(1000)
        np.testing.assert_array_equal(t.numpy(), a + 1000)


# --------------------------------------------------------- random indexing

def index_item(draw, size):
    kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis", "list", "bool", "tensor", "mask"]))
    if kind == "int" and size:
        return draw(st.integers(-size, size - 1)), True
    if kind == "slice":
        return slice(draw(st.one_of(st.none(), st.integers(-6, 6))),
                     draw(st.one_of(st.none(), st.integers(-6, 6))),
                     draw(st.one_of(st.none(), st.integers(1, 3)))), True
    if kind == "none":
        return None, False
    if kind == "ellipsis":
        return Ellipsis, False
    if kind in ("list", "tensor") and size:
        idx = draw(st.lists(st.integers(-size, size - 1), min_size=1, max_size=3))
        return (idx if kind == "list" else np.array(idx)), True
    if kind == "mask":
        return np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size)), dtype=bool), True
    return slice(None), True


@FAST
@given(st.data())
def test_random_keys_match_torch(data):
    """NumPy treats an int beside an array as an advanced index, torch as a
    select: torch is the reference."""
    if torch is None:
        pytest.skip("needs torch")
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    x = mt.tensor(a)
    key, d = [], 0
    for _ in range(data.draw(st.integers(1, 4))):
        item, consumes = index_item(data.draw, shape[d] if d < len(shape) else 0)
        if item is Ellipsis and any(k is Ellipsis for k in key):
            continue
        if consumes and d >= len(shape):
            break
        key.append(item)
        d += consumes
    key = tuple(mt.from_numpy(k) if isinstance(k, np.ndarray) and data.draw(st.booleans()) else k
                for k in key)
    tkey = tuple(torch.from_numpy(k.numpy()) if isinstance(k, mt.Tensor) else k for k in key)
    t = torch.from_numpy(a.copy())
    try:
        expected = t[tkey]
    except IndexError:
        with pytest.raises(IndexError):
            x[key]
        return
    got = x[key]
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    # setitem through the same key writes the same places
    t[tkey] = -1
    x[key] = -1
    np.testing.assert_array_equal(x.numpy(), t.numpy())


@pytest.mark.parametrize("key, exc, text", [
    (1.5, IndexError, "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                      "Variables are valid indices (got float)"),
    ({0: 1}, IndexError, "(got dict)"),
    (np.True_, IndexError, "(got numpy.bool)"),
    ("ab", TypeError, "new(): invalid data type 'str'"),
    ([object()], RuntimeError, "Could not infer dtype of object"),
    ([1e30], RuntimeError, "value cannot be converted to type int64 without overflow"),
    (mt.tensor([0.5]), IndexError, "tensors used as indices must be long, int, byte or bool tensors"),
    ((..., ...), IndexError, "an index can only have a single ellipsis ('...')"),
    ((0, 0, 0), IndexError, "too many indices for tensor of dimension 2"),
    (slice(None, None, -1), ValueError, "step must be greater than zero"),
    (9, IndexError, "index 9 is out of bounds for dimension 0 with size 3"),
])
def test_wrong_index_types_raise_torch_errors(key, exc, text):
    x = mt.zeros(3, 4)
    with pytest.raises(exc) as info:
        x[key]
    assert text in str(info.value)


torch_keys = ["[[0, 1], [1, 2]]", "[[0, 1]]", "[[0, 1], [1, 2], [2, 0]]", "[0, [1, 2]]",
              "[[0, 1], slice(None)]", "[None, 0]", "[Ellipsis, 1]", "[[True, False, True]]",
              "[[]]", "[[0] * 40]", "[[0]] * 32", "[[0]] * 31", "[0.0]", "[1.7, 0]",
              "[np.array([1, 2])]", "np.array([1.7])", "np.array([[1, 0, 1]], dtype=np.uint8)",
              "np.array(True)", "np.array(2.5)", "range(2)", "[range(2)]", "[1, None]",
              "[[0, 1], [0]]", "[(0, 1), (1, 2)]"]


@pytest.mark.parametrize("key", torch_keys)
def test_sequence_keys_match_torch(key):
    torch = pytest.importorskip("torch")
    x = np.arange(12).reshape(3, 4)
    results = []
    for lib in (torch, mt):
        k = eval(key)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                r = lib.from_numpy(x.copy())[k]
                out = (tuple(r.shape), r.flatten().tolist())
            except Exception as e:  # noqa: BLE001 - the exception type is compared
                out = type(e).__name__
        msgs = [str(m.message).split(" (Triggered")[0] for m in w]
        results.append((out, msgs))
    assert results[0] == results[1]
    x2 = mt.from_numpy(x.copy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            x2[eval(key)] = -1
        except Exception:  # noqa: BLE001
            return
        t2 = torch.from_numpy(x.copy())
        t2[eval(key)] = -1
    np.testing.assert_array_equal(x2.numpy(), t2.numpy())


# ------------------------------------------------------ __torch_function__

class Duck:
    calls = []

    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append((func, types, args))
        return "duck"


@pytest.mark.parametrize("key", [lambda d: d, lambda d: (d, 0), lambda d: [d, 0],
                                 lambda d: ([d], 0), lambda d: (0, [d, 1])])
def test_duck_in_key_dispatches(key):
    Duck.calls.clear()
    x = mt.arange(12.0).reshape(3, 4)
    k = key(Duck(1))
    assert x[k] == "duck"
    func, types, args = Duck.calls[0]
    assert func is mt.Tensor.__getitem__
    assert types == (Duck,) and args[0] is x and args[1] is k


def test_duck_in_slice_does_not_dispatch():
    Duck.calls.clear()
    x = mt.arange(12.0).reshape(3, 4)
    assert x[slice(Duck(1), None)].shape == (2, 4)
    assert not Duck.calls


def test_duck_as_setitem_value_and_key():
    x = mt.zeros(3)
    for k, v in [(0, Duck(1)), (Duck(1), 5.0)]:
        Duck.calls.clear()
        x[k] = v
        func, types, args = Duck.calls[0]
        assert func is mt.Tensor.__setitem__ and args[1] is k and args[2] is v
    assert x.tolist() == [0, 0, 0]


def test_subclass_key_and_value():
    class Sub(mt.Tensor):
        pass

    calls = []

    class Logged(mt.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = mt.arange(12.0).reshape(3, 4)
    r = x[mt.tensor([0, 2]).as_subclass(Sub)]
    assert type(r) is Sub and r.tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]
    r = x[mt.tensor([0, 2]).as_subclass(Logged), 1]
    assert type(r) is Logged and r.tolist() == [1, 9]
    assert calls[0] is mt.Tensor.__getitem__
    x[0] = mt.zeros(4).as_subclass(Logged)
    assert calls[-1] is mt.Tensor.__setitem__ and x[0].tolist() == [0, 0, 0, 0]
