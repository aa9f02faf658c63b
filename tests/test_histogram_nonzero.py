"""histogram / histogramdd / argwhere / nonzero_static against torch:
bin counts with int and tensor bins, range, weight, density, points on the
edges, degenerate ranges, several dimensions, the out= form, the return
types, and torch's errors."""
import pytest

torch = pytest.importorskip("torch")

import minitorch as mt  # noqa: E402
from torch_pairs import close, raises_as_torch  # noqa: E402


def to_mt(t):
    if isinstance(t, (list, tuple)):
        return type(t)(to_mt(x) for x in t)
    if not isinstance(t, torch.Tensor):
        return t
    return mt.tensor(t.tolist(), dtype=getattr(mt, str(t.dtype).split(".")[1])).reshape(t.shape)



def same_error(fn_torch, fn_mt):
    raises_as_torch(fn_mt, fn_torch)


HIST_CASES = [
    dict(bins=5),
    dict(bins=3, range=(-1.0, 1.0)),
    dict(bins=4, range=(0.0, 0.0)),
    dict(bins=torch.tensor([-2.0, -0.5, 0.0, 0.25, 3.0])),
    dict(bins=torch.tensor([0.0, 1.0])),
    dict(bins=6, density=True),
    dict(bins=torch.tensor([-1.0, 0.0, 2.0]), density=True),
    dict(bins=2, weight=True),
    dict(bins=torch.tensor([-1.0, 0.0, 2.0]), weight=True, density=True),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(20,), (4, 5), (), (0,)])
def test_histogram(dtype, shape):
    g = torch.Generator().manual_seed(len(shape))
    x = torch.randn(shape, generator=g, dtype=dtype).round(decimals=1)  # values on edges
    for case in HIST_CASES:
        kwargs = dict(case)
        if isinstance(kwargs["bins"], torch.Tensor):
            kwargs["bins"] = kwargs["bins"].to(dtype)
        if kwargs.pop("weight", False):
            kwargs["weight"] = torch.rand(shape, generator=g, dtype=dtype)
        want = torch.histogram(x, **kwargs)
        got = mt.histogram(to_mt(x), **{k: to_mt(v) for k, v in kwargs.items()})
        close(got.hist, want.hist)
        close(got.bin_edges, want.bin_edges)
        got = to_mt(x).histogram(**{k: to_mt(v) for k, v in kwargs.items()})
        close(got[0], want[0])
    out = (mt.empty(0, dtype=to_mt(x).dtype), mt.empty(0, dtype=to_mt(x).dtype))
    got = mt.histogram(to_mt(x), 3, range=(-1.0, 1.0), out=out)
    want = torch.histogram(x, 3, range=(-1.0, 1.0))
    assert got.hist is out[0] and got.bin_edges is out[1]
    close(out[0], want.hist)
    close(out[1], want.bin_edges)


def test_histogram_return_type():
    got = mt.histogram(mt.tensor([1.0, 2.0, 2.5]), 2)
    assert type(got) is mt.return_types.histogram
    assert (got.hist, got.bin_edges) == tuple(got) and type(got).n_fields == 2
    assert repr(got).startswith("minitorch.return_types.histogram(\nhist=tensor(")
    got = mt.histogramdd(mt.ones(2, 2), 2)
    assert type(got) is mt.return_types.histogramdd
    assert (got.hist, got.bin_edges) == tuple(got) and type(got).n_fields == 2


def test_histogram_nonfinite_values_outside_range():
    x = torch.tensor([1.0, float("inf"), -float("inf"), float("nan"), 2.0, 3.0])
    want = torch.histogram(x, 4, range=(0.0, 3.0))
    got = mt.histogram(to_mt(x), 4, range=(0.0, 3.0))
    close(got.hist, want.hist)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_histogramdd(dtype):
    g = torch.Generator().manual_seed(3)
    for shape in [(30, 2), (4, 5, 3), (10, 1), (0, 2)]:
        x = torch.randn(shape, generator=g, dtype=dtype).round(decimals=1)
        d = shape[-1]
        edges = [torch.sort(torch.randn(k + 2, generator=g, dtype=dtype))[0] for k in range(d)]
        weight = torch.rand(shape[:-1], generator=g, dtype=dtype)
        for bins, kw in [(3, {}), ([2 + k for k in range(d)], {}), (edges, {}),
                         (4, {"range": [-1.0, 1.0] * d}), (3, {"density": True}),
                         (edges, {"weight": weight, "density": True}),
                         ([2] * d, {"weight": weight})]:
            want = torch.histogramdd(x, bins, **kw)
            got = mt.histogramdd(to_mt(x), to_mt(bins), **{k: to_mt(v) for k, v in kw.items()})
            close(got.hist, want.hist)
            assert len(got.bin_edges) == len(want.bin_edges)
            for a, b in zip(got.bin_edges, want.bin_edges):
                close(a, b)


def test_histogram_errors():
    x = torch.tensor([1.0, 2.0, 3.0])
    cases = [((x, 2), {"range": (3.0, 1.0)}), ((x, -1), {}), ((x, torch.tensor([[3.0, 1.0]])), {}),
             ((x, torch.tensor([1.0])), {}), ((x.long(), 2), {}),
             ((x, 2), {"weight": torch.tensor([1.0, 2.0])}),
             ((x, 2), {"range": (1.0, float("inf"))}),
             ((torch.tensor([1.0, float("nan")]), 2), {}),
             ((x.double(), torch.tensor([1.0, 2.0, 3.0])), {})]
    for args, kw in cases:
        same_error(lambda: torch.histogram(*args, **kw),
                   lambda: mt.histogram(*to_mt(args), **{k: to_mt(v) for k, v in kw.items()}))
    for bins in ([1, 2], 2.5, None, "a", True):
        same_error(lambda: torch.histogram(x, bins), lambda: mt.histogram(to_mt(x), bins))
    y = torch.randn(5, 2)
    for bins in ("a", 2.5):
        same_error(lambda: torch.histogramdd(y, bins), lambda: mt.histogramdd(to_mt(y), bins))
    for args, kw in [((y, [2, 3, 4]), {}), ((y, [2, 3]), {"range": [0.0, 1.0]}),
                     ((torch.randn(5), [2]), {}), ((y, 2), {"weight": torch.ones(4)})]:
        same_error(lambda: torch.histogramdd(*args, **kw),
                   lambda: mt.histogramdd(*to_mt(args), **{k: to_mt(v) for k, v in kw.items()}))


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 0), (), (2, 3, 2)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_argwhere_and_nonzero_static(shape, dtype):
    x = (torch.randint(0, 3, shape, generator=torch.Generator().manual_seed(1)) - 1).to(dtype)
    close(mt.argwhere(to_mt(x)), torch.argwhere(x))
    close(to_mt(x).argwhere(), torch.argwhere(x))
    for size in (0, 1, 3, 10):
        for fill in (-1, 7):
            want = torch.nonzero_static(x, size=size, fill_value=fill)
            close(mt.nonzero_static(to_mt(x), size=size, fill_value=fill), want)
            close(to_mt(x).nonzero_static(size=size, fill_value=fill), want)
    same_error(lambda: torch.nonzero_static(x, size=-1),
               lambda: mt.nonzero_static(to_mt(x), size=-1))
