"""index_put / put / masked_scatter against torch: values (duplicates with
accumulate, bool and integer indices, negative positions, broadcasting,
non-contiguous self and source), in-place forms, float64 gradients and
tangents, and torch's errors."""
import pytest

torch = pytest.importorskip("torch")

import minitorch as mt  # noqa: E402
from torch_pairs import close, raises_as_torch  # noqa: E402


def to_mt(t, requires_grad=False):
    if isinstance(t, (tuple, list)):
        return type(t)(to_mt(x) for x in t)
    if not isinstance(t, torch.Tensor):
        return t
    out = mt.tensor(t.detach().tolist(), dtype=getattr(mt, str(t.dtype).split(".")[1]))
    return out.requires_grad_() if requires_grad else out



def same_error(fn_torch, fn_mt):
    raises_as_torch(fn_mt, fn_torch)


INDEX_PUT_CASES = [
    ((5, 3), (torch.tensor([0, 2, 2, 4]),), (4, 3)),
    ((5, 3), (torch.tensor([0, 2, 2, 4]),), (3,)),
    ((5, 3), (torch.tensor([1, 1]), torch.tensor([0, 0])), ()),
    ((5, 3), (torch.tensor([-1, 0]), torch.tensor([2, -3])), (2,)),
    ((5, 3), (torch.tensor([True, False, True, False, True]),), (3, 3)),
    ((2, 3, 4), (torch.tensor([[0, 1], [1, 1]]),), (2, 2, 3, 4)),
    ((2, 3, 4), (torch.tensor([1, 1]), torch.tensor([2, 2]), torch.tensor([0, 3])), (2,)),
]


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("dtype", [torch.float64, torch.int64])
def test_index_put_values(accumulate, dtype):
    for k, (shape, indices, vshape) in enumerate(INDEX_PUT_CASES):
        g = torch.Generator().manual_seed(k)
        self = torch.randint(-5, 6, shape, generator=g).to(dtype)
        values = torch.randint(-5, 6, vshape, generator=g).to(dtype)
        dup = any(i.dtype != torch.bool and i.unique().numel() < i.numel() for i in indices)
        if dup and not accumulate:
            values = values.new_full(vshape, 3)  # the winner of repeated positions is unspecified
        want = torch.index_put(self, indices, values, accumulate)
        close(mt.index_put(to_mt(self), to_mt(indices), to_mt(values), accumulate), want)
        close(to_mt(self).index_put(list(to_mt(indices)), to_mt(values), accumulate), want)
        m = to_mt(self).mT.contiguous().mT  # non-contiguous self, written in place
        assert m.index_put_(to_mt(indices), to_mt(values), accumulate=accumulate) is m
        close(m, want)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_gradients_and_tangents(accumulate):
    self = torch.randn(5, 3, dtype=torch.float64)
    values = torch.randn(3, 3, dtype=torch.float64)
    indices = (torch.tensor([0, 3, 3]) if accumulate else torch.tensor([0, 3, 1]),)
    cot = torch.randn(5, 3, dtype=torch.float64)
    s, v = self.clone().requires_grad_(), values.clone().requires_grad_()
    want = torch.autograd.grad(torch.index_put(s, indices, v, accumulate), (s, v), cot)
    ms, mv = to_mt(self, True), to_mt(values, True)
    got = mt.autograd.grad(mt.index_put(ms, to_mt(indices), mv, accumulate), (ms, mv),
                           to_mt(cot))
    for a, b in zip(got, want):
        close(a, b)
    ts, tv = torch.randn(5, 3, dtype=torch.float64), torch.randn(3, 3, dtype=torch.float64)
    fw, mfw = torch.autograd.forward_ad, mt.autograd.forward_ad
    with fw.dual_level():
        out = torch.index_put(fw.make_dual(self, ts), indices, fw.make_dual(values, tv),
                              accumulate)
        want = fw.unpack_dual(out).tangent
    with mfw.dual_level():
        out = mt.index_put(mfw.make_dual(to_mt(self), to_mt(ts)), to_mt(indices),
                           mfw.make_dual(to_mt(values), to_mt(tv)), accumulate)
        close(mfw.unpack_dual(out).tangent, want)


def test_index_put_errors():
    x = torch.zeros(3, 3)
    for indices, values, acc in [((torch.tensor([0, 0]),), torch.ones(3).double(), False),
                                 ((torch.tensor([0, 0]).float(),), torch.ones(3), True),
                                 ((torch.tensor([0, 5]),), torch.ones(3), True),
                                 ((torch.tensor([0, 5]),), torch.ones(3), False),
                                 ((torch.tensor([0, 1]),), torch.ones(4), True),
                                 ((torch.tensor([0, 1]),), torch.ones(4), False)]:
        same_error(lambda: torch.index_put(x, indices, values, acc),
                   lambda: mt.index_put(to_mt(x), to_mt(indices), to_mt(values), acc))


PUT_CASES = [((3, 3), [0, 4, 8]), ((3, 3), [-1, -9, 2]), ((2, 3, 2), [[0, 11], [5, 5]]),
             ((), [0]), ((), [-1, 0]), ((4,), [])]


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_values(accumulate):
    for k, (shape, index) in enumerate(PUT_CASES):
        g = torch.Generator().manual_seed(k)
        self = torch.randn(shape, generator=g, dtype=torch.float64)
        index = torch.tensor(index, dtype=torch.int64)
        source = torch.randn(index.shape, generator=g, dtype=torch.float64)
        if not accumulate and index.unique().numel() < index.numel():
            source = torch.full(index.shape, 2.5, dtype=torch.float64)
        want = torch.put(self, index, source, accumulate)
        close(mt.put(to_mt(self), to_mt(index), to_mt(source), accumulate), want)
        if self.dim() == 2:
            m = to_mt(self.t().contiguous()).t()
            m.put_(to_mt(index), to_mt(source), accumulate=accumulate)
            close(m, self.t().contiguous().t().put_(index, source, accumulate=accumulate))


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_gradients(accumulate):
    self = torch.randn(3, 4, dtype=torch.float64)
    index = torch.tensor([[0, 5], [5, -1]]) if accumulate else torch.tensor([[0, 5], [6, -1]])
    source = torch.randn(2, 2, dtype=torch.float64)
    cot = torch.randn(3, 4, dtype=torch.float64)
    s, v = self.clone().requires_grad_(), source.clone().requires_grad_()
    want = torch.autograd.grad(torch.put(s, index, v, accumulate), (s, v), cot)
    ms, mv = to_mt(self, True), to_mt(source, True)
    got = mt.autograd.grad(mt.put(ms, to_mt(index), mv, accumulate), (ms, mv), to_mt(cot))
    for a, b in zip(got, want):
        close(a, b)


def test_put_errors():
    x = torch.zeros(3, 3)
    for index, source in [(torch.tensor([0, 1]), torch.ones(3)),
                          (torch.tensor([0, 1]), torch.ones(2).double()),
                          (torch.tensor([0, 1]).int(), torch.ones(2)),
                          (torch.tensor([0, 9]), torch.ones(2)),
                          (torch.tensor([0, -10]), torch.ones(2))]:
        same_error(lambda: x.clone().put_(index, source),
                   lambda: to_mt(x).put_(to_mt(index), to_mt(source)))


MASK_CASES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 4), ()), ((4,), (3, 4)), ((2, 1, 3), (4, 1))]


def test_masked_scatter_values():
    for k, (shape, mshape) in enumerate(MASK_CASES):
        g = torch.Generator().manual_seed(k)
        for dtype in (torch.float32, torch.int64, torch.bool):
            self = torch.randint(0, 2, shape, generator=g).to(dtype)
            mask = torch.rand(mshape, generator=g) > 0.5
            source = torch.randint(0, 9, (5, 6), generator=g).to(dtype)
            want = torch.masked_scatter(self, mask, source)
            close(mt.masked_scatter(to_mt(self), to_mt(mask), to_mt(source)), want)
            close(to_mt(self).masked_scatter(to_mt(mask), to_mt(source)), want)
            if list(want.shape) == list(shape):
                m = to_mt(self)
                assert m.masked_scatter_(to_mt(mask), to_mt(source).t()) is m
                close(m, self.clone().masked_scatter_(mask, source.t()))


def test_masked_scatter_gradients():
    self = torch.randn(3, 4, dtype=torch.float64)
    mask = torch.tensor([True, False, True, True])
    source = torch.randn(4, 3, dtype=torch.float64)
    cot = torch.randn(3, 4, dtype=torch.float64)
    s, v = self.clone().requires_grad_(), source.clone().requires_grad_()
    want = torch.autograd.grad(torch.masked_scatter(s, mask, v), (s, v), cot)
    ms, mv = to_mt(self, True), to_mt(source, True)
    got = mt.autograd.grad(mt.masked_scatter(ms, to_mt(mask), mv), (ms, mv), to_mt(cot))
    for a, b in zip(got, want):
        close(a, b)


def test_masked_scatter_errors():
    x = torch.zeros(3, 3)
    for mask, source in [(torch.ones(3, 3).bool(), torch.ones(8)),
                         (torch.ones(3, 3).bool(), torch.ones(9).double()),
                         (torch.ones(2, 3).bool(), torch.ones(9))]:
        same_error(lambda: x.clone().masked_scatter_(mask, source),
                   lambda: to_mt(x).masked_scatter_(to_mt(mask), to_mt(source)))
    with pytest.raises(RuntimeError, match="masked_scatter_ only supports boolean masks, but "
                                           "got mask with dtype Byte"):
        mt.zeros(3).masked_scatter(mt.ones(3, dtype=mt.uint8), mt.ones(3))


def test_namespaces_match_torch():
    for name in ("index_put_", "index_put", "put", "masked_scatter"):
        assert hasattr(mt, name) and hasattr(mt.Tensor, name)
    for name in ("put_", "masked_scatter_"):
        assert hasattr(mt.Tensor, name) and not hasattr(mt, name)
    x = mt.zeros(3)
    assert mt.index_put_(x, (mt.tensor([0, 0]),), mt.tensor(1.0), True) is x
    assert x.tolist() == [2.0, 0.0, 0.0]
