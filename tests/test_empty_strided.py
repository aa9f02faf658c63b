"""empty_strided, empty_permuted and Tensor.new_empty_strided against
torch: sizes, strides, dtypes, requires_grad, no view, and torch's
errors."""
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _same_error(fn):
    with pytest.raises(Exception) as want:
        fn(torch)
    with pytest.raises(type(want.value)) as got:
        fn(mt)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("size,stride", [((2, 3), (3, 1)), ((2, 3), (1, 2)), ((2, 3), (0, 0)),
                                         ((0, 3), (5, 5)), ((), ()), ((4,), (3,)),
                                         ((2, 1, 3), (7, 100, 2))])
@pytest.mark.parametrize("dtype", [None, mt.float64, mt.int64, mt.bool])
def test_empty_strided(size, stride, dtype):
    tdtype = None if dtype is None else getattr(torch, str(dtype).split(".")[1])
    got = mt.empty_strided(size, stride, dtype=dtype)
    want = torch.empty_strided(size, stride, dtype=tdtype)
    assert tuple(got.shape) == tuple(want.shape) and got.stride() == want.stride()
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    assert got._base is None and got.storage_offset() == 0
    x = mt.ones(2, dtype=mt.float64)
    made = x.new_empty_strided(size, stride, dtype=dtype)
    assert made.stride() == want.stride()
    assert made.dtype == (mt.float64 if dtype is None else dtype)


def test_requires_grad():
    t = mt.empty_strided((2, 2), (1, 2), requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    assert mt.empty_permuted((2, 2), (1, 0), requires_grad=True).requires_grad
    assert not mt.ones(1).new_empty_strided((2,), (1,)).requires_grad


@pytest.mark.parametrize("size,layout", [((2, 3, 4), (2, 0, 1)), ((2, 0, 4), (2, 0, 1)),
                                         ((2, 3), (0, 1)), ((2, 3), (1, 0)), ((), ()),
                                         ((5,), (0,)), ((2, 3, 4, 5), (0, 2, 3, 1))])
def test_empty_permuted(size, layout):
    got, want = mt.empty_permuted(size, layout), torch.empty_permuted(size, layout)
    assert tuple(got.shape) == tuple(want.shape) and got.stride() == want.stride()
    assert got._base is None


@pytest.mark.parametrize("call", [
    lambda m: m.empty_permuted((2,), (0, 1)),
    lambda m: m.empty_permuted((2,), (3,)),
    lambda m: m.empty_permuted((2, 3), (-1, 0)),
    lambda m: m.empty_permuted((2, 3), (0, 0)),
    lambda m: m.empty_permuted((2, -1), (0, 1)),
    lambda m: m.empty_strided((2, 3), (1,)),
    lambda m: m.empty_strided((2, -3), (1, 1)),
    lambda m: m.empty_strided((2, 3), (-1, 1)),
])
def test_errors_as_torch(call):
    _same_error(call)


def test_not_overridable_as_in_torch():
    ignored = mt.overrides.get_ignored_functions()
    assert mt.empty_strided in ignored and mt.empty_permuted in ignored
    assert mt.Tensor.new_empty_strided in ignored
