"""positive, rsub, fill, constant_pad_nd, Tensor.sum_to_size,
Tensor.__rdiv__ and combinations against torch: values and dtypes over
shapes and dtypes, gradients, and torch's errors."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "int64", "bool"]


def _pair(shape, dtype, seed=0):
    data = np.random.default_rng(seed).standard_normal(shape) * 3
    data = data.astype(dtype) if dtype != "bool" else data > 0
    return mt.tensor(data), torch.tensor(data)


def _same(got, want):
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    assert tuple(got.shape) == tuple(want.shape)
    # float32 sums may add in another order
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-5)


def _same_error(fn):
    with pytest.raises(Exception) as want:
        fn(torch)
    with pytest.raises(type(want.value)) as got:
        fn(mt)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dtype", DTYPES[:3])
def test_positive_is_the_input(dtype):
    x, _ = _pair((2, 3), dtype)
    assert mt.positive(x) is x and x.positive() is x


def test_positive_refuses_bool():
    _same_error(lambda m: m.positive(m.ones(2, dtype=m.bool)))


@pytest.mark.parametrize("dtype", DTYPES[:3])
@pytest.mark.parametrize("other", [2, 2.5, "tensor", "row"])
@pytest.mark.parametrize("alpha", [1, 2])
def test_rsub(dtype, other, alpha):
    x, tx = _pair((3, 4), dtype)
    if other == "tensor":
        o, to = _pair((3, 4), dtype, seed=1)
    elif other == "row":
        o, to = _pair((4,), "float64", seed=2)
    else:
        o = to = other
    _same(mt.rsub(x, o, alpha=alpha), torch.rsub(tx, to, alpha=alpha))


def test_rsub_gradient_and_errors():
    x = mt.randn(3, dtype=mt.float64, requires_grad=True)
    y = mt.randn(3, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda a, b: mt.rsub(a, b, alpha=3), (x, y))
    _same_error(lambda m: m.rsub(m.ones(2, dtype=m.bool), True))
    _same_error(lambda m: m.rsub(m.ones(2), m.ones(3)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("value", [0, 2, 2.7, True, "tensor"])
def test_fill(dtype, value):
    x, tx = _pair((2, 3), dtype)
    v, tv = (mt.tensor(1.5), torch.tensor(1.5)) if value == "tensor" else (value, value)
    got = mt.fill(x, v)
    _same(got, torch.fill(tx, tv))
    assert got.data_ptr() != x.data_ptr()
    _same(x, tx)


def test_fill_gradient_and_errors():
    x = mt.randn(2, 3, dtype=mt.float64, requires_grad=True)
    v = mt.tensor(0.5, dtype=mt.float64, requires_grad=True)
    mt.fill(x, v).sum().backward()
    assert x.grad.tolist() == [[0.0] * 3] * 2 and v.grad.item() == 6.0
    _same_error(lambda m: m.fill(m.ones(2), m.ones(2)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pad", [[1, 2], [0, 0, 2, 1], [-1, 1], [1, 1, 1, 1, 1, 1], []])
def test_constant_pad_nd(dtype, pad):
    x, tx = _pair((2, 3, 4), dtype)
    value = True if dtype == "bool" else 3
    _same(mt.constant_pad_nd(x, pad, value), torch.constant_pad_nd(tx, pad, value))
    _same(mt.constant_pad_nd(x, pad), torch.constant_pad_nd(tx, pad))


def test_constant_pad_nd_gradient_and_errors():
    x = mt.randn(2, 3, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: mt.constant_pad_nd(t, [1, -1, 2, 0], 1.5), (x,))
    _same_error(lambda m: m.constant_pad_nd(m.ones(2, 3), [1, 2, 3]))
    _same_error(lambda m: m.constant_pad_nd(m.ones(2, 3), [1] * 6))


@pytest.mark.parametrize("size", [(10, 5, 10), (5, 1), (1,), (), (10, 1, 1), (1, 1, 10),
                                  (5, 10)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_to_size(size, dtype):
    x, tx = _pair((10, 5, 10), dtype)
    if size:
        _same(x.sum_to_size(*size), tx.sum_to_size(*size))
    _same(x.sum_to_size(size), tx.sum_to_size(size))


def test_sum_to_size_edge_cases():
    x = mt.ones(3, 4)
    assert x.sum_to_size(3, 4) is x
    _same_error(lambda m: m.ones(3).sum_to_size())
    b, tb = _pair((), "bool")
    _same(b.sum_to_size(()), tb.sum_to_size(()))
    for size in [(10, 10), (1, 10, 5, 10), (2, 10, 5, 10)]:
        _same_error(lambda m, size=size: m.ones(10, 5, 10).sum_to_size(*size))
    y = mt.randn(3, 4, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: t.sum_to_size(1, 4), (y,))


@pytest.mark.parametrize("dtype", DTYPES[:3])
@pytest.mark.parametrize("other", [2, 0.5, -3])
def test_rdiv(dtype, other):
    x, tx = _pair((3, 4), dtype)
    _same(x.__rdiv__(other), tx.__rdiv__(other))
    y = mt.randn(3, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: t.__rdiv__(other), (y,))


def test_rdiv_needs_a_tensor_self():
    with pytest.raises(TypeError):
        mt.Tensor.__rdiv__(2, mt.tensor([1, 2, 3]))


@pytest.mark.parametrize("n", [0, 1, 4])
@pytest.mark.parametrize("r", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("with_replacement", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_combinations(n, r, with_replacement, dtype):
    x, tx = _pair((n,), dtype)
    _same(mt.combinations(x, r, with_replacement), torch.combinations(tx, r, with_replacement))


def test_combinations_gradient_and_errors():
    x = mt.randn(4, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: mt.combinations(t, 3, True), (x,))
    _same_error(lambda m: m.combinations(m.ones(2, 3)))
    _same_error(lambda m: m.combinations(m.tensor(1.0)))
    _same_error(lambda m: m.combinations(m.ones(3), -1))
