"""sort, argsort, msort, topk, median, mode, unique against NumPy and torch."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def data(shape, dtype, rng, nan=False):
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    x = rng.integers(-5, 6, shape).astype(dtype)  # many ties: stability matters
    if dtype.startswith("float") and nan and x.size:
        x.reshape(-1)[rng.integers(0, x.size, max(1, x.size // 5))] = np.nan
    return x


def pair(x):
    return mt.from_numpy(x.copy()), torch.from_numpy(x.copy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_stable_matches_torch(dtype, descending):
    rng = np.random.default_rng(0)
    for shape in [(7,), (3, 9), (4, 0, 3), (2, 3, 50), (2, 3, 150), (300,)]:
        x = data(shape, dtype, rng, nan=True)
        m, t = pair(x)
        for dim in range(-len(shape), len(shape)):
            got = mt.sort(m, dim=dim, descending=descending, stable=True)
            ref = torch.sort(t, dim=dim, descending=descending, stable=True)
            np.testing.assert_array_equal(got.values.numpy(), ref.values.numpy())
            np.testing.assert_array_equal(got.indices.numpy(), ref.indices.numpy())
            assert type(got).__name__ == "sort" and got.indices.dtype == mt.int64


def tied(shape, dtype, rng):
    """Few distinct values (NaN, -0.0 and 0.0 among floats): where equal
    elements end is all an unstable sort leaves open."""
    x = rng.integers(-1, rng.choice([2, 3, 9]), shape)
    if dtype == "bool":
        return (x > 0)
    x = x.astype(dtype)
    if dtype.startswith("float") and x.size:
        x[x == 0] = -0.0 if rng.random() < 0.5 else 0.0
        if rng.random() < 0.5:
            x.reshape(-1)[rng.integers(0, x.size, max(1, x.size // 6))] = np.nan
    return x


def assert_same(got, ref):
    np.testing.assert_array_equal(got.indices.numpy(), ref.indices.numpy())
    np.testing.assert_array_equal(np.signbit(got.values.numpy()), np.signbit(ref.values.numpy()))
    np.testing.assert_array_equal(got.values.numpy(), ref.values.numpy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_unstable_order_matches_torch(dtype):
    # torch's unstable sort is std::sort's introsort: its order of equal
    # elements (insertion sort up to 16, partitions beyond) is ours
    rng = np.random.default_rng(10)
    for shape in [(5,), (16,), (17,), (40,), (300,), (2000,), (6, 33), (3, 70, 4), (2, 3, 5, 18)]:
        x = tied(shape, dtype, rng)
        m, t = pair(x)
        for dim in range(-len(shape), len(shape)):
            for descending in (False, True):
                for stable in (None, False, True):
                    assert_same(mt.sort(m, dim=dim, descending=descending, stable=stable),
                                torch.sort(t, dim=dim, descending=descending, stable=stable))
                np.testing.assert_array_equal(m.argsort(dim, descending).numpy(),
                                              t.argsort(dim, descending).numpy())
                np.testing.assert_array_equal(m.sort(dim, descending).indices.numpy(),
                                              t.sort(dim, descending).indices.numpy())
        np.testing.assert_array_equal(mt.msort(m).numpy(), torch.msort(t).numpy())
    # a strided input sorts as its values do
    x = tied((40, 30), dtype, rng)
    m, t = pair(x)
    assert_same(m.t()[::2].sort(1), t.t()[::2].sort(1))


@pytest.mark.parametrize("dtype", ["int64", "float32", "int16"])
def test_sort_unstable_special_orders(dtype):
    rng = np.random.default_rng(11)
    # organ pipes drive the introsort past its depth limit into its heap sort
    n = 1000
    x = np.minimum(np.arange(n), n - np.arange(n)).astype(dtype)
    m, t = pair(x)
    for descending in (False, True):
        assert_same(m.sort(descending=descending), t.sort(descending=descending))
    # torch radix-sorts 1-D integral inputs of 32768 or more ascending (stable)
    for n in (32767, 32768):
        x = tied((n,), dtype, rng)
        m, t = pair(x)
        for descending in (False, True):
            assert_same(m.sort(descending=descending), t.sort(descending=descending))
    # a line that repeats one element (stride 0) stays in place
    m, t = mt.tensor([[1], [2]]).expand(2, 40), torch.tensor([[1], [2]]).expand(2, 40)
    for dim in (0, 1):
        assert_same(m.sort(dim, True), t.sort(dim, True))


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != "bool"])
def test_topk_ties_match_torch(dtype):
    # torch's topk: std::partial_sort when k * 64 <= n, else std::nth_element
    # then std::sort of the first k - 1 when sorted
    rng = np.random.default_rng(12)
    for shape in [(1,), (5,), (17,), (64,), (130,), (700,), (9, 40), (3, 200, 2)]:
        x = tied(shape, dtype, rng)
        m, t = pair(x)
        for dim in range(len(shape)):
            n = shape[dim]
            for k in sorted(k for k in {0, 1, 2, n // 64, n // 3, n - 1, n} if 0 <= k <= n):
                for largest in (True, False):
                    for srt in (True, False):
                        assert_same(m.topk(k, dim, largest, srt), t.topk(k, dim, largest, srt))
    n = 2000
    x = np.minimum(np.arange(n), n - np.arange(n)).astype(dtype if dtype != "int8" else "int16")
    m, t = pair(x)
    for k in (1, 10, 666, 1000):
        for largest in (True, False):
            assert_same(m.topk(k, largest=largest), t.topk(k, largest=largest))


def test_topk_bool_refused():
    with pytest.raises(RuntimeError, match="^topk does not support bool dtypes on CPU$"):
        mt.tensor([True, False]).topk(1)
    with pytest.raises(RuntimeError, match="^selected index k out of range$"):
        mt.tensor(True).topk(2)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_sort_stable_integers_full_range(dtype):
    # stable ascending lines of integers are radix-sorted: every byte of
    # the key, the sign included, must order as the value does
    info = np.iinfo(dtype)
    rng = np.random.default_rng(13)
    x = rng.integers(info.min, info.max, (3, 500), dtype=dtype, endpoint=True)
    x[:, :40] = rng.choice([info.min, info.max, 0, -1 if info.min else 1], (3, 40))
    m, t = pair(x)
    for stable in (True, None):
        got, ref = m.sort(stable=stable), t.sort(stable=stable)
        np.testing.assert_array_equal(got.values.numpy(), ref.values.numpy())
        np.testing.assert_array_equal(got.indices.numpy(), ref.indices.numpy())


def test_sort_non_contiguous_and_0dim():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 8)).astype(np.float32)
    m, t = pair(x)
    got, ref = m.t()[:, ::2].sort(0), t.t()[:, ::2].sort(0)
    np.testing.assert_array_equal(got.values.numpy(), ref.values.numpy())
    np.testing.assert_array_equal(got.indices.numpy(), ref.indices.numpy())
    v, i = mt.tensor(5.0).sort()
    assert v.item() == 5.0 and i.item() == 0 and v.dim() == 0
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                                         r"\[-2, 1\], but got 2\)"):
        m.sort(dim=2)


def test_sort_long_lines_threads():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((64, 5000)).astype(np.float64)
    m, t = pair(x)
    np.testing.assert_array_equal(m.sort(-1).values.numpy(), np.sort(x, -1))
    np.testing.assert_array_equal(m.argsort(dim=0, stable=True).numpy(),
                                  np.argsort(x, 0, kind="stable"))


def test_argsort_msort():
    rng = np.random.default_rng(3)
    x = data((5, 6), "int64", rng)
    m, t = pair(x)
    np.testing.assert_array_equal(m.argsort(descending=True, stable=True).numpy(),
                                  t.argsort(descending=True, stable=True).numpy())
    np.testing.assert_array_equal(mt.msort(m).numpy(), torch.msort(t).numpy())


@pytest.mark.parametrize("dtype", ["float32", "int64", "float64"])
def test_topk(dtype):
    rng = np.random.default_rng(4)
    x = rng.permutation(60).reshape(3, 4, 5).astype(dtype)  # distinct: indices are defined
    m, t = pair(x)
    for dim in (0, 1, -1):
        for k in (0, 1, x.shape[dim]):
            for largest in (True, False):
                got, ref = m.topk(k, dim, largest), t.topk(k, dim, largest)
                np.testing.assert_array_equal(got.values.numpy(), ref.values.numpy())
                np.testing.assert_array_equal(got.indices.numpy(), ref.indices.numpy())
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        m.topk(6)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        m.topk(-1)
    assert type(m.topk(1)).__name__ == "topk"


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int16"])
def test_median(dtype):
    rng = np.random.default_rng(5)
    for shape in [(7,), (4, 6), (3, 5, 2)]:
        x = data(shape, dtype, rng, nan=dtype.startswith("float") and len(shape) > 1)
        m, t = pair(x)
        np.testing.assert_array_equal(m.median().numpy(), t.median().numpy())
        for dim in range(len(shape)):
            for keepdim in (False, True):
                got, ref = m.median(dim, keepdim), t.median(dim, keepdim)
                np.testing.assert_array_equal(got.values.numpy(), ref.values.numpy())
                np.testing.assert_array_equal(got.indices.numpy(), ref.indices.numpy())


def test_median_edges():
    assert np.isnan(mt.tensor([]).median().item())
    got = mt.zeros(2, 0).median(0)
    assert got.values.shape == (0,) and got.indices.dtype == mt.int64
    with pytest.raises(IndexError, match=r"median\(\): Expected reduction dim 1 to have "
                                         r"non-zero size."):
        mt.zeros(2, 0).median(1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mode(dtype):
    rng = np.random.default_rng(6)
    for shape in [(1,), (9,), (4, 7), (3, 5, 6), (2, 40)]:
        x = data(shape, dtype, rng)  # values in [-5, 5]: ties between counts are common
        m, t = pair(x)
        for dim in range(-len(shape), len(shape)):
            for keepdim in (False, True):
                got, ref = m.mode(dim, keepdim), torch.mode(t, dim, keepdim)
                np.testing.assert_array_equal(got.values.numpy(), ref.values.numpy())
                assert type(got).__name__ == "mode"
                # torch's position: the last of the mode's run where std::sort
                # (unstable beyond 16) leaves it
                np.testing.assert_array_equal(got.indices.numpy(), ref.indices.numpy())
                picked = np.take_along_axis(x, np.expand_dims(got.indices.numpy(), dim)
                                            if not keepdim else got.indices.numpy(), dim)
                np.testing.assert_array_equal(picked.squeeze(dim) if not keepdim else picked,
                                              got.values.numpy())
        got, ref = mt.mode(m.transpose(0, -1)), torch.mode(t.transpose(0, -1))
        np.testing.assert_array_equal(got.values.numpy(), ref.values.numpy())
        np.testing.assert_array_equal(got.indices.numpy(), ref.indices.numpy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_mode_ties_match_torch(dtype):
    # torch's mode sorts by a bare `<` (NaN unordered, each NaN a run of its
    # own) with std::sort and takes the first longest run's last item
    rng = np.random.default_rng(14)
    for shape in [(17,), (40,), (300,), (5, 70), (3, 33, 4)]:
        x = tied(shape, dtype, rng)
        m, t = pair(x)
        for dim in range(len(shape)):
            got, ref = m.mode(dim), torch.mode(t, dim)
            np.testing.assert_array_equal(got.indices.numpy(), ref.indices.numpy())
            np.testing.assert_array_equal(got.values.numpy(), ref.values.numpy())


def test_mode_edges():
    v, i = mt.tensor(5.0).mode()
    assert v.item() == 5.0 and i.item() == 0 and v.dim() == 0
    got = mt.mode(mt.tensor([-0.0, 0.0, 1.0]))
    assert got.values.item() == 0.0 and got.indices.item() == 1  # equal: one run, its last
    nan = float("nan")
    assert np.isnan(mt.tensor([nan, 2.0, nan, 2.0, nan]).mode().values.item())
    assert mt.zeros(0, 3).mode(1).values.shape == (0,)
    with pytest.raises(IndexError, match=r"mode\(\): Expected reduction dim 1 to have "
                                         r"non-zero size."):
        mt.zeros(2, 0).mode(1)
    with pytest.raises(IndexError, match=r"Dimension out of range"):
        mt.zeros(2, 3).mode(2)


def test_named_pairs_print_as_torch():
    x = np.array([[3.0, 1.0], [2.0, 2.0]], np.float32)
    m, t = pair(x)
    for name, args in [("max", (1,)), ("min", (0,)), ("median", (1,)), ("mode", (0,)),
                       ("sort", ()), ("topk", (1,))]:
        assert repr(getattr(m, name)(*args)) == repr(getattr(t, name)(*args)).replace(
            "torch.", "minitorch.")


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "uint8"])
def test_unique(dtype):
    rng = np.random.default_rng(6)
    for shape in [(20,), (4, 5), (0,)]:
        x = data(shape, dtype, rng)
        m, t = pair(x)
        for inv in (False, True):
            for cnt in (False, True):
                got = mt.unique(m, return_inverse=inv, return_counts=cnt)
                ref = torch.unique(t, return_inverse=inv, return_counts=cnt)
                got = got if isinstance(got, tuple) else (got,)
                ref = ref if isinstance(ref, tuple) else (ref,)
                assert len(got) == len(ref)
                for g, r in zip(got, ref):
                    np.testing.assert_array_equal(g.numpy(), r.numpy())
                    assert tuple(g.shape) == tuple(r.shape)


def test_unique_nan_each_distinct():
    got = mt.unique(mt.tensor([1.0, float("nan"), float("nan"), 1.0]), return_counts=True)
    np.testing.assert_array_equal(got[0].numpy(), [1.0, np.nan, np.nan])
    np.testing.assert_array_equal(got[1].numpy(), [2, 1, 1])


@pytest.mark.parametrize("dtype", ["int64", "float32", "uint8"])
def test_unique_dim(dtype):
    rng = np.random.default_rng(7)
    for shape, dim in [((6, 3), 0), ((6, 3), 1), ((4, 5, 2), 1), ((4, 5, 2), -1), ((8, 2), 0)]:
        x = rng.integers(0, 2, shape).astype(dtype)
        m, t = pair(x)
        got = mt.unique(m.transpose(0, -1).transpose(0, -1), dim=dim, return_inverse=True,
                        return_counts=True)
        ref = torch.unique(t, dim=dim, return_inverse=True, return_counts=True)
        for g, r in zip(got, ref):
            np.testing.assert_array_equal(g.numpy(), r.numpy())
            assert tuple(g.shape) == tuple(r.shape)
        np.testing.assert_array_equal(mt.unique(m, dim=dim).numpy(),
                                      torch.unique(t, dim=dim).numpy())
    with pytest.raises(RuntimeError, match="There are 0 sized dimensions, and they aren't "
                                           "selected, so unique cannot be applied"):
        mt.unique(mt.zeros(5, 0), dim=0)
