"""out= on max/min (no dim), scatter, scatter_add and bernoulli, and which
overlaps between out= and the inputs each op refuses, as torch does."""
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

from torch_errors import same_error  # noqa: E402


def both(values, dtype="float32"):
    return torch.tensor(values, dtype=getattr(torch, dtype)), \
        mt.tensor(values, dtype=getattr(mt, dtype))


def quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dtype,out_dtype", [("float32", "float32"), ("float32", "float64"),
                                             ("float64", "float16"), ("int64", "float64"),
                                             ("int64", "int64"), ("bool", "int64")])
@pytest.mark.parametrize("shape", [(), (5,), (3, 4)])
def test_reduction_out_casts_as_torch(name, dtype, out_dtype, shape):
    values = np.random.default_rng(0).integers(-9, 9, size=shape).tolist()
    t, m = both(values, dtype)
    for out_shape in [(), (4,)]:
        to = torch.empty(out_shape, dtype=getattr(torch, out_dtype))
        mo = mt.empty(out_shape, dtype=getattr(mt, out_dtype))
        want = quiet(lambda: getattr(torch, name)(t, out=to))
        got = quiet(lambda: getattr(mt, name)(m, out=mo))
        assert got is mo and mo.dtype == getattr(mt, out_dtype)
        assert tuple(mo.shape) == tuple(want.shape) == ()
        assert mo.item() == want.item()


@pytest.mark.parametrize("name", ["max", "min"])
def test_reduction_out_refuses_narrowing_and_method_out(name):
    t, m = both([1.5, -2.0])
    with pytest.raises(RuntimeError):
        getattr(mt, name)(m, out=mt.empty((), dtype=mt.int64))
    with pytest.raises(RuntimeError):
        getattr(torch, name)(t, out=torch.empty((), dtype=torch.int64))
    with pytest.raises(TypeError):
        getattr(m, name)(out=mt.empty(()))


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_binary_takes_a_0d_tensor_as_other_not_dim(name, dtype):
    t, m = both([[1, 9, 4], [7, -3, 6]], dtype)
    for other in [6, -1, 1]:
        want = getattr(torch, name)(t, torch.tensor(other))
        got = getattr(mt, name)(m, mt.tensor(other))
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(getattr(m, name)(mt.tensor(other)).numpy(), want.numpy())
    # a Python int is still a dim
    np.testing.assert_array_equal(getattr(mt, name)(m, 1).values.numpy(),
                                  getattr(torch, name)(t, 1).values.numpy())


def scatter_args(lib, src_scalar=False):
    x = lib.arange(12, dtype=lib.float64).reshape(3, 4)
    index = lib.tensor([[0, 1, 2, 0], [2, 0, 1, 1]])
    src = 7.5 if src_scalar else lib.arange(8, dtype=lib.float64).reshape(2, 4) + 100
    return x, index, src


@pytest.mark.parametrize("call", [
    lambda lib, x, i, s, o: lib.scatter(x, 0, i, s, out=o),
    lambda lib, x, i, s, o: lib.scatter(x, 0, i, s, reduce="add", out=o),
    lambda lib, x, i, s, o: lib.scatter(x, 0, i, s, reduce="multiply", out=o),
    lambda lib, x, i, s, o: lib.scatter_add(x, 0, i, s, out=o),
])
@pytest.mark.parametrize("out_shape", [(3, 4), (0,), (5,)])
def test_scatter_out(call, out_shape):
    results = []
    for lib in (torch, mt):
        x, i, s = scatter_args(lib)
        o = lib.full(out_shape, -1.0, dtype=lib.float64)
        r = quiet(lambda: call(lib, x, i, s, o))
        assert r is o
        results.append(o.numpy().copy())
        assert x.numpy()[0, 0] == 0  # the input is untouched
    np.testing.assert_array_equal(results[1], results[0])


def test_scatter_out_takes_a_scalar_src_and_the_input_itself():
    for src_scalar in (True, False):
        got, want = [], []
        for lib, keep in ((torch, want), (mt, got)):
            x, i, s = scatter_args(lib, src_scalar)
            keep.append(lib.scatter(x, 0, i, s, out=x).numpy().copy())
            x, i, s = scatter_args(lib)
            keep.append(lib.scatter_add(x, 0, i, s, out=x).numpy().copy())
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("make", [
    # src sharing part of out's memory
    lambda lib, x, i, s: (lambda: lib.scatter(x, 0, i, x[:2], out=x)),
    lambda lib, x, i, s: (lambda: lib.scatter_add(x, 0, i, x[1:], out=x)),
    # src being out itself (out being the input is fine)
    lambda lib, x, i, s: (lambda: lib.scatter(x, 0, i, x, out=x)),
    lambda lib, x, i, s: (lambda: lib.scatter_add(x.clone(), 0, i, x, out=x)),
    # out with elements that are one location
    lambda lib, x, i, s: (lambda: lib.scatter_add(x, 0, i, s, out=lib.zeros(1, 1, dtype=lib.float64)
                                                  .expand(3, 4))),
    # out of another dtype
    lambda lib, x, i, s: (lambda: lib.scatter(x, 0, i, s, out=lib.empty(3, 4))),
])
def test_scatter_out_refusals(make):
    same_error(lambda: make(mt, *scatter_args(mt))(), lambda: make(torch, *scatter_args(torch))())


@pytest.mark.parametrize("make", [
    lambda lib, x: lib.take(x, lib.tensor([0, 1]), out=x),
    lambda lib, x: lib.take(x, lib.tensor([0, 1]), out=x[1:3]),
    lambda lib, x: lib.masked_select(x, x > 2, out=x),
    lambda lib, x: lib.gather(x, 0, lib.tensor([0, 1]), out=x),
    lambda lib, x: lib.cat([x, x], out=x),
    lambda lib, x: lib.cat([x[:2], lib.zeros(2)], out=x),
    lambda lib, x: lib.kthvalue(x, 2, out=(x, lib.zeros((), dtype=lib.int64))),
    lambda lib, x: lib.topk(x, 2, out=(x[:2], lib.zeros(2, dtype=lib.int64))),
    lambda lib, x: lib.max(x, 0, out=(x[:1], lib.zeros(1, dtype=lib.int64))),
    lambda lib, x: lib.aminmax(x, dim=0, out=(x[:1], lib.zeros(1))),
    lambda lib, x: lib.bernoulli(x / 10, out=lib.zeros(1).expand(4)),
    lambda lib, x: (lambda y: lib.bernoulli(y[:4], out=y[1:]))(lib.rand(5)),
])
def test_out_overlapping_an_input_is_refused(make):
    same_error(lambda: quiet(lambda: make(mt, mt.tensor([3.0, 1.0, 2.0, 5.0]))),
               lambda: quiet(lambda: make(torch, torch.tensor([3.0, 1.0, 2.0, 5.0]))))


@pytest.mark.parametrize("make", [
    # torch checks nothing for these
    lambda lib, x: lib.sort(x, out=(x, lib.zeros(4, dtype=lib.int64))),
    lambda lib, x: lib.cummax(x, 0, out=(x, lib.zeros(4, dtype=lib.int64))),
    lambda lib, x: lib.cummin(x, 0, out=(x, lib.zeros(4, dtype=lib.int64))),
    lambda lib, x: lib.max(x, out=x[:1]),
])
def test_out_overlaps_torch_allows(make):
    got = quiet(lambda: make(mt, mt.tensor([3.0, 1.0, 2.0, 5.0])))
    want = quiet(lambda: make(torch, torch.tensor([3.0, 1.0, 2.0, 5.0])))
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("make", [
    # allowed, but torch's values then depend on its writing order
    lambda lib, x: lib.bernoulli(x / 10, out=x),
    lambda lib, x: (lambda y: lib.kthvalue(y, 2, out=(lib.zeros((), dtype=lib.int64), y)))(
        x.long()),
    lambda lib, x: lib.cummin(x, 0, out=(x[1:], lib.zeros(4, dtype=lib.int64))),
])
def test_out_overlaps_torch_allows_without_values(make):
    quiet(lambda: make(torch, torch.tensor([3.0, 1.0, 2.0, 5.0])))
    quiet(lambda: make(mt, mt.tensor([3.0, 1.0, 2.0, 5.0])))


@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64", "bool", "int32"])
def test_bernoulli_out_any_dtype(out_dtype):
    p = mt.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    for shape in [(2, 3), (0,), (7,)]:
        o = mt.empty(shape, dtype=getattr(mt, out_dtype))
        r = quiet(lambda: mt.bernoulli(p, out=o))
        assert r is o and tuple(o.shape) == (2, 3) and o.dtype == getattr(mt, out_dtype)
        want = torch.bernoulli(torch.tensor(p.numpy()),
                               out=torch.empty(0, dtype=getattr(torch, out_dtype)))
        np.testing.assert_array_equal(o.numpy(), want.numpy())


def test_bernoulli_out_refuses_autograd_and_p_overload():
    x = mt.rand(3, requires_grad=True)
    same_error(lambda: mt.bernoulli(x, out=mt.empty(3)),
               lambda: torch.bernoulli(torch.rand(3, requires_grad=True), out=torch.empty(3)))
    with pytest.raises(TypeError):
        mt.bernoulli(x.detach(), 0.5, out=mt.empty(3))


def test_bernoulli_has_torch_zero_gradient():
    for shape in [(3,), (2, 4), ()]:
        x = mt.rand(shape, dtype=mt.float64, requires_grad=True)
        y = mt.bernoulli(x)
        assert y.requires_grad and type(y.grad_fn).__name__ == "BernoulliBackward0"
        (g,) = mt.autograd.grad((y * 3).sum(), x)
        np.testing.assert_array_equal(g.numpy(), np.zeros(shape))
    assert mt.bernoulli(mt.rand(3, requires_grad=True), 0.5).requires_grad is False
