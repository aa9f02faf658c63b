"""diagonal_scatter and as_strided_scatter (with select_scatter and
slice_scatter, one mechanism) against torch: values over shapes, offsets,
dims and dtypes, the input untouched, gradients by gradcheck and against
torch, and torch's errors."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _pair(shape, dtype="float64", seed=0):
    data = np.random.default_rng(seed).standard_normal(shape)
    data = data.astype(dtype) if dtype != "bool" else data > 0
    return mt.tensor(data), torch.tensor(data)


DIAGONAL = [((3, 4), 0, 0, 1), ((3, 4), 1, 0, 1), ((3, 4), -2, 1, 0), ((4, 3), 2, -1, -2),
            ((2, 3, 4), 0, 0, 2), ((2, 3, 4), -1, 2, 1), ((3, 0), 0, 0, 1), ((3, 4), 5, 0, 1)]


@pytest.mark.parametrize("shape,offset,dim1,dim2", DIAGONAL)
@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
def test_diagonal_scatter_values(shape, offset, dim1, dim2, dtype):
    x, tx = _pair(shape, dtype)
    n = tuple(tx.diagonal(offset, dim1, dim2).shape)
    s, ts = _pair(n, dtype, seed=1)
    got = mt.diagonal_scatter(x, s, offset, dim1, dim2)
    want = torch.diagonal_scatter(tx, ts, offset, dim1, dim2)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(x.numpy(), tx.numpy())
    np.testing.assert_array_equal(x.diagonal_scatter(s, offset, dim1, dim2).numpy(),
                                  want.numpy())


STRIDED = [((4, 4), (2, 2), (1, 2), 1), ((4, 4), (2, 2), (4, 1), None), ((3, 5), (3,), (5,), 0),
           ((6,), (2, 2), (2, 1), 2), ((2, 3), (0,), (1,), 0)]


@pytest.mark.parametrize("shape,size,stride,offset", STRIDED)
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_as_strided_scatter_values(shape, size, stride, offset, dtype):
    x, tx = _pair(shape, dtype)
    s, ts = _pair(size, dtype, seed=1)
    got = mt.as_strided_scatter(x, s, size, stride, offset)
    want = torch.as_strided_scatter(tx, ts, size, stride, offset)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(x.numpy(), tx.numpy())


@pytest.mark.parametrize("view", ["t", "rows", "cols"])
def test_as_strided_scatter_counts_from_the_input(view):
    base, tbase = _pair((4, 6))
    pick = {"t": lambda t: t.t(), "rows": lambda t: t[1:], "cols": lambda t: t[:, 2:]}[view]
    x, tx = pick(base), pick(tbase)
    for offset in (None, tx.storage_offset(), tx.storage_offset() + 1):
        got = mt.as_strided_scatter(x, mt.ones(2), (2,), (1,), offset)
        want = torch.as_strided_scatter(tx, torch.ones(2, dtype=torch.float64), (2,), (1,),
                                        offset)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_diagonal_scatter_gradients():
    x = mt.randn(3, 4, dtype=mt.float64, requires_grad=True)
    s = mt.randn(3, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda a, b: mt.diagonal_scatter(a, b, 1), (x, s))
    assert mt.autograd.gradgradcheck(lambda a, b: mt.diagonal_scatter(a, b, 1), (x, s))
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    ts = torch.tensor(s.detach().numpy(), requires_grad=True)
    w = np.arange(12.).reshape(3, 4)
    (mt.diagonal_scatter(x, s, 1) * mt.tensor(w)).sum().backward()
    (torch.diagonal_scatter(tx, ts, 1) * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    np.testing.assert_array_equal(s.grad.numpy(), ts.grad.numpy())


@pytest.mark.parametrize("offset", [0, 1, 3])
def test_as_strided_scatter_gradients(offset):
    # compared by gradcheck only: torch's own gradient for input is wrong here
    x = mt.randn(4, 4, dtype=mt.float64, requires_grad=True)
    s = mt.randn(2, 2, dtype=mt.float64, requires_grad=True)
    fn = lambda a, b: mt.as_strided_scatter(a, b, (2, 2), (1, 2), offset)  # noqa: E731
    assert mt.autograd.gradcheck(fn, (x, s))
    out = fn(x, s)
    (out * mt.arange(16., dtype=mt.float64).reshape(4, 4)).sum().backward()
    written = {offset + i + 2 * j for i in range(2) for j in range(2)}
    expect = [0.0 if k in written else float(k) for k in range(16)]
    assert x.grad.reshape(-1).tolist() == expect


@pytest.mark.parametrize("call", [
    lambda m, x: m.diagonal_scatter(x, m.ones(2), 0, 0, 1),
    lambda m, x: m.diagonal_scatter(x, m.ones(3), 0, 0, 0),
    lambda m, x: m.diagonal_scatter(x, m.ones(3), 0, 0, 5),
    lambda m, x: m.as_strided_scatter(x, m.ones(3, 3), (2, 2), (1, 1)),
    lambda m, x: m.as_strided_scatter(x, m.ones(2, 2), (2, 2), (1, 1), 20),
    lambda m, x: m.select_scatter(x, m.ones(3), 0, 1),
    lambda m, x: m.slice_scatter(x, m.ones(3, 3), 1, 0, 2),
])
def test_errors_as_torch(call):
    with pytest.raises(Exception) as want:
        call(torch, torch.zeros(3, 4))
    with pytest.raises(type(want.value)) as got:
        call(mt, mt.zeros(3, 4))
    assert str(got.value) == str(want.value)


def test_as_strided_scatter_refuses_a_non_contiguous_input_that_requires_grad():
    x = mt.zeros(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="only supported for contiguous inputs"):
        mt.as_strided_scatter(x.t(), mt.ones(2), (2,), (1,), 1)


def test_slice_scatter_out():
    x, src = mt.zeros(3, 4), mt.ones(3, 2)
    out = mt.empty(3, 4)
    assert mt.slice_scatter(x, src, 1, 0, 4, 2, out=out) is out
    want = torch.slice_scatter(torch.zeros(3, 4), torch.ones(3, 2), 1, 0, 4, 2)
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got "
                                           "double instead"):
        mt.slice_scatter(x, src, 1, 0, 4, 2, out=mt.empty(3, 4, dtype=mt.float64))
    with pytest.raises(TypeError):
        mt.select_scatter(x, mt.ones(4), 0, 0, out=out)


@pytest.mark.parametrize("shape", [(10, 20), (10, 5, 20), (3,)])
@pytest.mark.parametrize("dims", [{"dim1": 1, "dim2": 1}, {"dim1": 10000}, {"dim2": 10000},
                                  {"dim1": -5}, {"dim1": 0, "dim2": -4}])
def test_diag_embed_errors_as_torch(shape, dims):
    with pytest.raises(Exception) as want:
        torch.diag_embed(torch.ones(shape), **dims)
    with pytest.raises(type(want.value)) as got:
        mt.diag_embed(mt.ones(*shape), **dims)
    assert str(got.value) == str(want.value)
