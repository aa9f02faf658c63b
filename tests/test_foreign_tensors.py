"""Tensors of other libraries (issue 18, item 2): anything that is no
minitorch tensor, NumPy array or NumPy scalar and whose type has __dlpack__ or
__array_interface__. minitorch.tensor/as_tensor/from_dlpack take one as data;
as an operand it is refused with a TypeError naming its type, in both orders
and from either library's side, never a RecursionError (torch.Tensor's
__torch_function__ would hand every minitorch call back to minitorch)."""
import operator

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F

torch = pytest.importorskip("torch")

FOREIGN = r"must be a minitorch Tensor, not torch\.Tensor; a tensor of another library is " \
          r"not converted implicitly: convert it with minitorch\.as_tensor\(\) or " \
          r"minitorch\.from_dlpack\(\)"

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow, operator.matmul, operator.and_, operator.or_,
          operator.xor, operator.lshift, operator.rshift, operator.eq, operator.ne,
          operator.lt, operator.le, operator.gt, operator.ge]
INPLACE = [operator.iadd, operator.isub, operator.imul, operator.itruediv]


@pytest.mark.parametrize("op", BINARY + INPLACE, ids=lambda f: f.__name__)
def test_operators_refuse_a_torch_tensor_in_both_orders(op):
    ints = op in (operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift)
    dt = (mt.int64, torch.int64) if ints else (mt.float32, torch.float32)
    m = mt.ones(2, dtype=dt[0])
    t = torch.ones(2, dtype=dt[1])
    with pytest.raises(TypeError, match=FOREIGN):
        op(m, t)
    if op not in INPLACE:
        with pytest.raises(TypeError, match=FOREIGN):
            op(t, m)
    assert m.tolist() == [1, 1]


MT_CALLS = {
    "F.relu": lambda t: F.relu(t),
    "mt.allclose": lambda t: mt.allclose(mt.ones(2), t),
    "mt.add": lambda t: mt.add(t, mt.ones(2)),
    "mt.sum": lambda t: mt.sum(t),
    "mt.where": lambda t: mt.where(t > 0, mt.ones(2), mt.ones(2)),
    "mt.cat": lambda t: mt.cat([mt.ones(2), t]),
    "mt.stack": lambda t: mt.stack((mt.ones(2), t)),
    "Tensor.add_": lambda t: mt.ones(2).add_(t),
    "Tensor.copy_": lambda t: mt.ones(2).copy_(t),
    "F.mse_loss": lambda t: F.mse_loss(mt.ones(2), t),
    "nn.Linear": lambda t: mt.nn.Linear(2, 1)(t),
    "broadcast_tensors": lambda t: mt.broadcast_tensors(mt.ones(2), t),
    "setitem": lambda t: mt.ones(2).__setitem__(0, t),
    "einsum": lambda t: mt.einsum("i,i->", mt.ones(2), t),
}


@pytest.mark.parametrize("call", sorted(MT_CALLS))
def test_minitorch_functions_refuse_a_torch_tensor(call):
    with pytest.raises(TypeError, match=FOREIGN):
        MT_CALLS[call](torch.ones(2))


TORCH_CALLS = {
    "torch.add": lambda m: torch.add(m, torch.ones(2)),
    "torch.sum": lambda m: torch.sum(m),
    "torch.relu": lambda m: torch.relu(m),
    "torch F.relu": lambda m: torch.nn.functional.relu(m),
    "torch.cat": lambda m: torch.cat([torch.ones(2), m]),
    "Tensor.add": lambda m: torch.ones(2).add(m),
}


@pytest.mark.parametrize("call", sorted(TORCH_CALLS))
def test_torch_functions_given_a_minitorch_tensor_raise_torchs_type_error(call):
    with pytest.raises(TypeError, match="minitorch.Tensor"):
        TORCH_CALLS[call](mt.ones(2))


def test_duck_types_without_data_still_dispatch():
    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "duck"

    class DuckWithData(Duck):
        def __dlpack__(self, *args, **kwargs):
            return np.ones(2).__dlpack__(*args, **kwargs)

    assert mt.add(Duck(), mt.ones(2)) == "duck"
    assert F.relu(Duck()) == "duck"
    assert not mt.overrides.has_torch_function((DuckWithData(),))
    with pytest.raises(TypeError, match=r"must be a minitorch Tensor, not .*DuckWithData"):
        mt.add(DuckWithData(), mt.ones(2))


# ------------------------------------------------------------------- as data

TORCH_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                "float32", "float64"]


def _torch_sample(name, shape=(3, 4)):
    g = torch.Generator().manual_seed(5)
    x = torch.randn(shape, generator=g) * 4
    return x.to(getattr(torch, name))


def _same_values(m, t):
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(m.shape) == tuple(t.shape)
    assert m.float().tolist() == t.float().tolist()


@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_tensor_as_tensor_and_from_dlpack_take_torch_tensors(name):
    t = _torch_sample(name)
    c = mt.tensor(t)
    _same_values(c, t)
    assert c.data_ptr() != t.data_ptr()
    for shared in (mt.as_tensor(t), mt.from_dlpack(t)):
        _same_values(shared, t)
        assert shared.data_ptr() == t.data_ptr()


def test_torch_tensors_strided_zero_dim_and_with_a_dtype():
    s = torch.arange(12.0).reshape(3, 4)[:, 1::2]
    m = mt.as_tensor(s)
    assert m.stride() == s.stride() and m.tolist() == s.tolist()
    z = mt.tensor(torch.tensor(2.5, dtype=torch.float64))
    assert z.dim() == 0 and z.dtype == mt.float64 and z.item() == 2.5
    d = mt.tensor(torch.arange(3), dtype=mt.float32)
    assert d.dtype == mt.float32 and d.tolist() == [0.0, 1.0, 2.0]
    a = mt.as_tensor(torch.arange(3), dtype=mt.float64)
    assert a.dtype == mt.float64 and a.tolist() == [0.0, 1.0, 2.0]


def test_a_torch_tensor_that_requires_grad_comes_without_its_graph():
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    for m in (mt.tensor(t), mt.as_tensor(t)):
        assert not m.requires_grad and m.tolist() == [1.0, 2.0]
    with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
        mt.from_dlpack(t)


def test_minitorch_tensors_as_data_to_torch():
    m = mt.arange(6.0).reshape(2, 3)
    t = torch.tensor(m)
    assert t.tolist() == m.tolist() and t.data_ptr() != m.data_ptr()
    assert torch.as_tensor(m).data_ptr() == m.data_ptr()


class ArrayInterfaceOnly:
    def __init__(self, a):
        self._a = a

    @property
    def __array_interface__(self):
        return self._a.__array_interface__


class DLPackOnly:
    def __init__(self, a):
        self._a = a

    def __dlpack__(self, *args, **kwargs):
        return self._a.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


@pytest.mark.parametrize("wrap", [ArrayInterfaceOnly, DLPackOnly])
def test_any_object_with_dlpack_or_the_array_interface_is_data(wrap):
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    o = wrap(a)
    c = mt.tensor(o)
    assert c.dtype == mt.int32 and c.tolist() == a.tolist()
    c[0, 0] = 9
    assert a[0, 0] == 0
    s = mt.as_tensor(o)
    assert s.data_ptr() == a.ctypes.data
    with pytest.raises(TypeError, match=r"must be a minitorch Tensor, not .*" + wrap.__name__):
        mt.add(mt.ones(2, 3), o)


def test_indexing_with_a_torch_tensor_is_an_index_tensor():
    m = mt.arange(4.0) * 10
    assert m[torch.tensor([1, 3])].tolist() == [10.0, 30.0]
    assert m[torch.tensor([True, False, True, False])].tolist() == [0.0, 20.0]
    assert m[torch.tensor(2)].dim() == 0 and m[torch.tensor(2)].item() == 20.0
