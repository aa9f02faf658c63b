"""scatter_reduce / index_reduce against torch: values over reductions,
include_self, dims, dtypes and index shapes; float64 gradients (ties of
amax/amin, zeros in prod), forward-mode tangents, double backward, the
in-place and out= forms, and torch's errors."""
import itertools

import pytest

torch = pytest.importorskip("torch")

import minitorch as mt  # noqa: E402

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def to_mt(t, requires_grad=False):
    return mt.tensor(t.detach().tolist(), dtype=getattr(mt, str(t.dtype).split(".")[1]),
                     requires_grad=requires_grad)


def close(got, want):
    assert got.dtype == getattr(mt, str(want.dtype).split(".")[1])
    assert list(got.shape) == list(want.shape)
    w = torch.tensor(got.detach().tolist(), dtype=want.dtype).reshape(want.shape)
    torch.testing.assert_close(w, want, equal_nan=True)


def case(seed, shape, dim, index_shape, dtype, ties=False):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.int64 or ties:
        self = torch.randint(-3, 4, shape, generator=g).to(dtype)
        src = torch.randint(-3, 4, index_shape, generator=g).to(dtype)
    else:
        self = torch.randn(shape, generator=g, dtype=dtype)
        src = torch.randn(index_shape, generator=g, dtype=dtype)
    index = torch.randint(0, shape[dim], index_shape, generator=g)
    return self, index, src


SHAPES = [((5,), 0, (7,)), ((3, 4), 0, (5, 4)), ((3, 4), 1, (2, 6)), ((3, 4), 1, (2, 2)),
          ((2, 3, 4), 2, (2, 3, 5)), ((2, 3, 4), 0, (4, 1, 2))]


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_scatter_reduce_values(reduce, include_self, dtype):
    for k, (shape, dim, ishape) in enumerate(SHAPES):
        self, index, src = case(k, shape, dim, ishape, dtype)
        want = torch.scatter_reduce(self, dim, index, src, reduce, include_self=include_self)
        got = mt.scatter_reduce(to_mt(self), dim, to_mt(index), to_mt(src), reduce,
                                include_self=include_self)
        close(got, want)
        got = to_mt(self).scatter_reduce(dim - len(shape), to_mt(index), to_mt(src), reduce,
                                         include_self=include_self)
        close(got, want)
        inplace = to_mt(self)
        assert inplace.scatter_reduce_(dim, to_mt(index), to_mt(src), reduce,
                                       include_self=include_self) is inplace
        close(inplace, want)
        out = mt.empty(0, dtype=inplace.dtype)
        assert mt.scatter_reduce(to_mt(self), dim, to_mt(index), to_mt(src), reduce,
                                 include_self=include_self, out=out) is out
        close(out, want)


@pytest.mark.parametrize("reduce", ["amax", "amin", "prod", "mean", "sum"])
def test_scatter_reduce_nan_inf_and_int32_index(reduce):
    nan, inf = float("nan"), float("inf")
    self = torch.tensor([1.0, nan, -inf, 2.0, 0.0])
    src = torch.tensor([nan, 3.0, inf, -inf, 5.0, 0.0, 0.0])
    index = torch.tensor([0, 0, 2, 2, 3, 4, 4], dtype=torch.int32)
    for include_self in (True, False):
        want = torch.scatter_reduce(self, 0, index, src, reduce, include_self=include_self)
        got = mt.scatter_reduce(to_mt(self), 0, to_mt(index), to_mt(src), reduce,
                                include_self=include_self)
        close(got, want)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_values(reduce, include_self):
    for k, (shape, dim) in enumerate([((5,), 0), ((3, 4), 0), ((3, 4), 1), ((2, 3, 4), 1)]):
        g = torch.Generator().manual_seed(k)
        n = 6
        src_shape = list(shape)
        src_shape[dim] = n
        for dtype in (torch.float64, torch.int64):
            self = torch.randint(-4, 5, shape, generator=g).to(dtype)
            source = torch.randint(-4, 5, src_shape, generator=g).to(dtype)
            index = torch.randint(0, shape[dim], (n,), generator=g)
            want = torch.index_reduce(self, dim, index, source, reduce,
                                      include_self=include_self)
            got = mt.index_reduce(to_mt(self), dim, to_mt(index), to_mt(source), reduce,
                                  include_self=include_self)
            close(got, want)
            inplace = to_mt(self)
            inplace.index_reduce_(dim, to_mt(index), to_mt(source), reduce,
                                  include_self=include_self)
            close(inplace, want)


def grads(lib, fn, self, index, src, reduce, include_self, cot):
    if lib is mt:
        s, x = to_mt(self, True), to_mt(src, True)
        out = fn(s, 0, to_mt(index), x, reduce, include_self=include_self)
        return mt.autograd.grad(out, (s, x), to_mt(cot))
    s, x = self.clone().requires_grad_(), src.clone().requires_grad_()
    out = fn(s, 0, index, x, reduce, include_self=include_self)
    return torch.autograd.grad(out, (s, x), cot)


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_gradients_with_ties_and_zeros(reduce, include_self):
    # small integer values: amax/amin ties, several zeros in one product
    for seed in range(4):
        self, index, src = case(seed, (4, 3), 0, (6, 3), torch.float64, ties=True)
        cot = torch.randn(4, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(9))
        want = grads(torch, torch.scatter_reduce, self, index, src, reduce, include_self, cot)
        got = grads(mt, mt.scatter_reduce, self, index, src, reduce, include_self, cot)
        for g, w in zip(got, want):
            close(g, w)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_gradients(reduce):
    for seed in range(3):
        g = torch.Generator().manual_seed(seed)
        self = torch.randint(-2, 3, (3, 2), generator=g).double()
        source = torch.randint(-2, 3, (5, 2), generator=g).double()
        index = torch.randint(0, 3, (5,), generator=g)
        cot = torch.randn(3, 2, dtype=torch.float64, generator=g)
        for include_self in (True, False):
            want = grads(torch, torch.index_reduce, self, index, source, reduce, include_self,
                         cot)
            got = grads(mt, mt.index_reduce, self, index, source, reduce, include_self, cot)
            for a, b in zip(got, want):
                close(a, b)


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin"])
def test_scatter_reduce_forward_ad(reduce):
    self, index, src = case(3, (4, 3), 0, (6, 3), torch.float64, ties=True)
    ts, tx = torch.randn(4, 3, dtype=torch.float64), torch.randn(6, 3, dtype=torch.float64)
    with torch.autograd.forward_ad.dual_level():
        out = torch.scatter_reduce(torch.autograd.forward_ad.make_dual(self, ts), 0, index,
                                   torch.autograd.forward_ad.make_dual(src, tx), reduce)
        want = torch.autograd.forward_ad.unpack_dual(out).tangent
    fw = mt.autograd.forward_ad
    with fw.dual_level():
        out = mt.scatter_reduce(fw.make_dual(to_mt(self), to_mt(ts)), 0, to_mt(index),
                                fw.make_dual(to_mt(src), to_mt(tx)), reduce)
        close(fw.unpack_dual(out).tangent, want)


def test_scatter_reduce_prod_has_no_forward_ad():
    fw = mt.autograd.forward_ad
    with fw.dual_level(), pytest.raises(NotImplementedError, match="forward AD with scatter"):
        mt.scatter_reduce(fw.make_dual(mt.ones(3, dtype=mt.float64), mt.ones(3, dtype=mt.float64)),
                          0, mt.tensor([0, 1]), mt.ones(2, dtype=mt.float64), "prod")


@pytest.mark.parametrize("fn", ["scatter_reduce", "index_reduce"])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_double_backward(fn, reduce):
    mt.manual_seed(0)
    x = mt.randn(3, 4, dtype=mt.float64, requires_grad=True)
    s = mt.randn(5, 4, dtype=mt.float64, requires_grad=True)
    if fn == "scatter_reduce":
        i = mt.tensor([0, 2, 2, 1, 0]).unsqueeze(1).expand(5, 4)
    else:
        i = mt.tensor([0, 2, 2, 1, 0])
    f = getattr(mt, fn)
    assert mt.autograd.gradgradcheck(lambda x, s: f(x, 0, i, s, reduce), (x, s))


@pytest.mark.parametrize("fn,what", [("scatter_reduce", "src"), ("index_reduce", "source")])
def test_prod_double_backward_error_with_two_zeros(fn, what):
    # the first derivative is right; the second is refused in torch's words
    x = mt.tensor([1.0], dtype=mt.float64, requires_grad=True)
    s = mt.tensor([0.0, 0.0], dtype=mt.float64, requires_grad=True)
    i = mt.tensor([0, 0])
    f = getattr(mt, fn)
    assert mt.autograd.gradcheck(f, (x, 0, i, s, "prod"))
    (g,) = mt.autograd.grad(f(x, 0, i, s, "prod"), s, create_graph=True)
    assert g.tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match=f"{fn}\\(\\): Double backward is unsupported for "
                                           f"{what} when >1 zeros"):
        mt.autograd.grad(g.sum(), s)


def errors(fn_name, args, kwargs=None):
    kwargs = kwargs or {}
    with pytest.raises(Exception) as want:
        getattr(torch, fn_name)(*args, **kwargs)
    conv = [to_mt(a) if isinstance(a, torch.Tensor) else a for a in args]
    with pytest.raises(want.type) as got:
        getattr(mt, fn_name)(*conv, **kwargs)
    assert str(got.value) == str(want.value)


def test_scatter_reduce_errors():
    x, i, s = torch.zeros(3, 4), torch.tensor([[0, 1], [2, 0]]), torch.ones(2, 2)
    for args in [(x, 0, i, s, "foo"), (x, 0, i.float(), s, "sum"), (x, 0, i, s.double(), "sum"),
                 (x, 0, i + 5, s, "amax"), (x, 0, i, torch.ones(1, 1), "sum"),
                 (x, 0, i[0], s, "sum"), (x, 5, i, s, "sum"),
                 (x.bool(), 0, i, s.bool(), "mean")]:
        errors("scatter_reduce", args)


def test_index_reduce_errors():
    x, i, s = torch.zeros(3, 4), torch.tensor([0, 1]), torch.ones(2, 4)
    for args in [(x, 0, i, s, "sum"), (x, 0, i, s, "foo"), (x, 0, i, s.double(), "mean"),
                 (x, 0, i.reshape(1, 2), s, "amax"), (x, 0, i.float(), s, "prod"),
                 (x, 0, i, torch.ones(2, 3), "mean"), (x, 0, torch.tensor([0, 1, 2]), s, "mean"),
                 (x, 2, i, s, "mean")]:
        errors("index_reduce", args)


def test_grad_fn_names():
    x = mt.ones(3, requires_grad=True)
    for f, name in [(mt.scatter_reduce, "ScatterReduceBackward0"),
                    (mt.index_reduce, "IndexReduceBackward0")]:
        out = f(x, 0, mt.tensor([0, 0]), mt.ones(2), "amax")
        assert type(out.grad_fn).__name__ == name


@pytest.mark.parametrize("reduce,include_self", list(itertools.product(REDUCTIONS, [True, False])))
def test_empty_index(reduce, include_self):
    self = torch.arange(6.0).reshape(2, 3)
    index, src = torch.zeros(0, 3, dtype=torch.int64), torch.zeros(0, 3)
    want = torch.scatter_reduce(self, 0, index, src, reduce, include_self=include_self)
    got = mt.scatter_reduce(to_mt(self), 0, mt.zeros(0, 3, dtype=mt.int64), mt.zeros(0, 3),
                            reduce, include_self=include_self)
    close(got, want)


@pytest.mark.parametrize("reduce", ["amax", "amin"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.bool])
def test_extreme_rows_large_and_threaded(reduce, dtype):
    # big enough that the scatter splits across threads; NaN in self and src
    g = torch.Generator().manual_seed(5)
    self = (torch.randn(300, 200, generator=g) * 3).round().to(dtype)
    src = (torch.randn(700, 200, generator=g) * 3).round().to(dtype)
    if dtype.is_floating_point:
        src[3, 5] = float("nan")
        self[7, 7] = float("nan")
    for dim, index, part in [(0, torch.randint(0, 300, (700, 200), generator=g), src),
                             (1, torch.randint(0, 200, (300, 150), generator=g),
                              src[:300, :150])]:
        for include_self in (True, False):
            want = torch.scatter_reduce(self, dim, index, part, reduce, include_self=include_self)
            got = mt.scatter_reduce(mt.from_numpy(self.numpy().copy()), dim,
                                    mt.from_numpy(index.numpy().copy()),
                                    mt.from_numpy(part.contiguous().numpy().copy()), reduce,
                                    include_self=include_self)
            got = torch.from_numpy(got.numpy())
            if dtype.is_floating_point:
                assert torch.equal(got.isnan(), want.isnan())
                got, want = got.nan_to_num(), want.nan_to_num()
            assert torch.equal(got, want)
