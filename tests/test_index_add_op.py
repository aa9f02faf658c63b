"""index_add as one C row (minitorch.index_add, Tensor.index_add and its
in-place form index_add_) against torch: the out-of-place kernel that fills
each destination row from self and adds into it in one pass, split over
destination rows (duplicates in index order, rows no index reaches copied),
its fallback for non-contiguous operands, alpha converted to self's dtype as
torch does, every dtype, any dim, empty and 0-dim operands, torch's checks in
its words, and gradients (with double backward). At 1 and 2 threads and at
sizes past the threading grain."""
import subprocess
import sys

import numpy as np
import pytest

import minitorch as mt
from child_env import child_env

torch = pytest.importorskip("torch")

from index_compare import assert_same, bits, both, threads  # noqa: E402,F401 (autouse)

R = np.random.default_rng(2026)
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "uint8",
          "bool"]


def values(shape, dtype):
    if dtype == "bool":
        return R.integers(0, 2, shape).astype(bool)
    if dtype == "uint8":
        return R.integers(0, 50, shape)
    if dtype.startswith("int"):
        return R.integers(-50, 50, shape)
    a = R.standard_normal(shape)
    if a.size:
        a[tuple(0 for _ in shape)] = -0.0
    return a


def exact_for(dtype):
    # half sums may round differently from torch's; the rest add in index order as torch
    return dtype not in ("float16", "bfloat16")


def operands(shape, dim, count, dtype, high=None):
    """self, index (with duplicates, and rows it never reaches) and source."""
    n = shape[dim]
    ix = R.integers(0, high or max(n // 2, 1), count) if n else np.zeros(0, np.int64)
    src = list(shape)
    src[dim] = count
    return values(shape, dtype), ix, values(src, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", [((700, 300), 0), ((300, 700), 1), ((40, 300, 30), 1),
                                       ((6, 50, 257), 0), ((6, 50, 257), 2), ((1001,), 0)])
def test_out_of_place_matches_torch(dtype, shape, dim):
    base, ix, src = operands(shape, dim, 3 * shape[dim] // 2, dtype)
    (bm, bt), (sm, st) = both(base, dtype), both(src, dtype)
    im, it = mt.tensor(ix), torch.tensor(ix)
    got, want = bm.index_add(dim, im, sm), bt.index_add(dim, it, st)
    assert_same(got, want, exact_for(dtype))
    assert_same(mt.index_add(bm, dim, im, sm), want, exact_for(dtype))
    # self is left as it was
    assert_same(bm, bt, True)
    # int32 index, the same result
    assert_same(bm.index_add(dim, im.to(mt.int32), sm), want, exact_for(dtype))
    # in place agrees with out of place
    assert_same(bm.clone().index_add_(dim, im, sm), want, exact_for(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "bool",
                                   "float16"])
@pytest.mark.parametrize("alpha", [2, -3, 0.5, -2.7, True, False])
def test_alpha_converted_as_torch(dtype, alpha):
    if dtype == "uint8" and isinstance(alpha, int) and alpha < 0:
        alpha = -1  # wraps to 255 in torch
    base, ix, src = operands((300, 70), 0, 500, dtype)
    (bm, bt), (sm, st) = both(base, dtype), both(src, dtype)
    im, it = mt.tensor(ix), torch.tensor(ix)
    try:
        want = bt.index_add(0, it, st, alpha=alpha)
    except RuntimeError:  # alpha out of the dtype's range
        assert _error(mt, lambda L: bm.index_add(0, im, sm, alpha=alpha)) == \
            _error(torch, lambda L: bt.index_add(0, it, st, alpha=alpha))
        return
    got = bm.index_add(0, im, sm, alpha=alpha)
    if dtype in ("float32", "float64", "float16") and alpha not in (True, False, 1):
        # torch's vector loop fuses alpha * s + d into one rounding, minitorch rounds twice
        tol = 2e-2 if dtype == "float16" else 1e-5
        np.testing.assert_allclose(bits(got), bits(want), rtol=tol, atol=tol)
    else:
        assert_same(got, want, True)
    assert_same(bm.clone().index_add_(0, im, sm, alpha=alpha), bits_like(got), True)


def bits_like(m):
    """A torch tensor of m's values and dtype, to compare two minitorch results."""
    return torch.tensor(bits(m)).to(getattr(torch, str(m.dtype).split(".")[-1]))


def test_duplicates_add_in_index_order():
    """A destination reached many times sums its sources in index order: with
    values of very different magnitude the order shows in the rounding."""
    base = np.zeros((4, 300), np.float32)
    src = np.tile(np.array([1e8, 1.0, -1e8, 1.0], np.float32)[:, None], (250, 300))
    ix = np.repeat(np.array([2, 2, 2, 2]), 250)
    (bm, bt), (sm, st) = both(base, "float32"), both(src, "float32")
    got, want = bm.index_add(0, mt.tensor(ix), sm), bt.index_add(0, torch.tensor(ix), st)
    assert_same(got, want, True)
    assert bits(got)[2, 0] == bits(want)[2, 0]


def test_negative_zero_rows():
    """A row no index reaches keeps self's -0; a reached one is self + source."""
    base = np.full((4, 80), -0.0)
    src = np.full((2, 80), -0.0)
    ix = np.array([1, 3])
    (bm, bt), (sm, st) = both(base, "float64"), both(src, "float64")
    got = bm.index_add(0, mt.tensor(ix), sm)
    assert_same(got, bt.index_add(0, torch.tensor(ix), st), True)
    assert np.signbit(bits(got)).all()
    # index_select's backward adds into zeros: -0 reads +0 as in zeros + g
    x = mt.zeros(4, 80, dtype=mt.float64, requires_grad=True)
    x.index_select(0, mt.tensor(ix)).backward(sm)
    assert not np.signbit(bits(x.grad)).any()


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_non_contiguous_operands(dim):
    shape = (30, 40, 50)
    base, ix, src = operands(shape, dim, 60, "float64")
    (bm, bt), (sm, st) = both(base, "float64"), both(src, "float64")
    im, it = mt.tensor(ix), torch.tensor(ix)
    # transposed self, transposed source, a strided index
    bmn = bm.transpose(0, 2).contiguous().transpose(0, 2)
    smn = sm.transpose(0, 2).contiguous().transpose(0, 2)
    assert not bmn.is_contiguous() and not smn.is_contiguous()
    want = bt.index_add(dim, it, st)
    for b, s in ((bmn, sm), (bm, smn), (bmn, smn)):
        assert_same(b.index_add(dim, im, s), want, True)
    i2 = np.repeat(ix, 2)
    assert_same(bm.index_add(dim, mt.tensor(i2)[::2], sm), want, True)
    # a source broadcast along the other dims (stride 0)
    sb = src.sum(axis=tuple(d for d in range(3) if d != dim), keepdims=True)
    smb, stb = both(sb, "float64")
    expand = list(src.shape)
    assert_same(bm.index_add(dim, im, smb.expand(*expand)),
                bt.index_add(dim, it, stb.expand(*expand)), True)


def test_empty_and_zero_dim():
    cases = [((3, 4), 0, [], (0, 4)), ((3, 0), 0, [5], (1, 0)), ((0, 3), 1, [5], (0, 1)),
             ((0,), 0, [], (0,)), ((5,), 0, [4, 4, 0], (3,)), ((), 0, [0], ()), ((), -1, [0], ())]
    for shape, dim, ix, sshape in cases:
        base, src = values(shape, "float32"), values(sshape, "float32")
        (bm, bt), (sm, st) = both(base, "float32"), both(src, "float32")
        im = mt.tensor(ix, dtype=mt.int64)
        it = torch.tensor(ix, dtype=torch.int64)
        assert_same(bm.index_add(dim, im, sm), bt.index_add(dim, it, st), True)
        assert_same(bm.clone().index_add_(dim, im, sm), bt.index_add(dim, it, st), True)
    # a 0-dim index is one entry
    (bm, bt), (sm, st) = both(values((3, 4), "float32"), "float32"), \
        both(values((1, 4), "float32"), "float32")
    assert_same(bm.index_add(0, mt.tensor(2), sm), bt.index_add(0, torch.tensor(2), st), True)


def _error(lib, f):
    with pytest.raises(Exception) as e:
        f(lib)
    return type(e.value).__name__, str(e.value).replace("minitorch", "torch")


BAD = [
    lambda L: L.zeros(3).index_add(0, L.tensor([0]), L.tensor(1.)),
    lambda L: L.tensor(1.).index_add(0, L.tensor([0, 0]), L.tensor([2., 3.])),
    lambda L: L.tensor(1.).index_add(0, L.tensor([1]), L.tensor(2.)),
    lambda L: L.zeros(3).index_add(0, L.tensor([0, 1]), L.tensor(1.)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([0]), L.ones(1, 5)),
    lambda L: L.zeros(3, 4).index_add(1, L.tensor([0]), L.ones(3)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([0]), L.ones(4)),
    lambda L: L.zeros(3, 4).index_add(2, L.tensor([0]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([[0]]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([[0.]]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([0.]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([True]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([0], dtype=L.uint8), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([0], dtype=L.int16), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([0]), L.ones(1, 4, dtype=L.int32)),
    lambda L: L.zeros(3, 4, dtype=L.float64).index_add_(0, L.tensor([0]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4, dtype=L.int32).index_add(0, L.tensor([0]),
                                                     L.ones(1, 4, dtype=L.int32), alpha=1e30),
    lambda L: L.zeros(3, 4, dtype=L.uint8).index_add(0, L.tensor([0]),
                                                     L.ones(1, 4, dtype=L.uint8), alpha=300),
    lambda L: L.zeros(3, 4, dtype=L.float16).index_add(0, L.tensor([0]),
                                                       L.ones(1, 4, dtype=L.float16), alpha=1e6),
]


@pytest.mark.parametrize("k", range(len(BAD)))
def test_checks_in_torch_words(k):
    assert _error(mt, BAD[k]) == _error(torch, BAD[k])


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("shape", [(6,), (6, 4), (6, 4, 3), (2, 6, 4, 3)])
def test_out_of_range_index_in_torch_words(shape, inplace):
    """torch words a bad index per the kernel it runs: an int64 index with
    alpha 1 along the first or last of 2+ dims goes to scatter_add."""
    for dim in range(len(shape)):
        for bad in (shape[dim], -1, -shape[dim] - 1):
            for idt in ("int64", "int32"):
                for alpha in (1, 2):
                    s = list(shape)
                    s[dim] = 2

                    def f(L):
                        x = L.zeros(shape)
                        ix = L.tensor([0, bad]).to(getattr(L, idt))
                        op = x.index_add_ if inplace else x.index_add
                        return op(dim, ix, L.ones(s), alpha=alpha)
                    assert _error(mt, f) == _error(torch, f)


def test_function_method_and_keywords():
    base, ix, src = operands((50, 8), 0, 30, "float64")
    (bm, bt), (sm, st) = both(base, "float64"), both(src, "float64")
    im, it = mt.tensor(ix), torch.tensor(ix)
    want = bt.index_add(0, it, st, alpha=2)
    assert_same(mt.index_add(bm, 0, im, sm, alpha=2), want, True)
    assert_same(bm.index_add(dim=0, index=im, source=sm, alpha=2), want, True)
    assert_same(mt.index_add(input=bm, dim=0, index=im, source=sm, alpha=2), want, True)
    y = bm.clone()
    v = y._version
    assert y.index_add_(0, im, sm, alpha=2) is y
    assert y._version == v + 1
    assert_same(y, want, True)
    assert mt.index_add(bm, 0, im, sm) is not bm


def test_threads_agree():
    base, ix, src = operands((2000, 130), 0, 3000, "float32", high=50)
    bm, sm, im = mt.tensor(base).float(), mt.tensor(src).float(), mt.tensor(ix)
    before = mt.get_num_threads()
    try:
        mt.set_num_threads(1)
        one = bits(bm.index_add(0, im, sm))
        mt.set_num_threads(2)
        two = bits(bm.index_add(0, im, sm))
    finally:
        mt.set_num_threads(before)
    np.testing.assert_array_equal(one, two)


def test_gradients_match_torch():
    base, ix, src = operands((40, 6, 5), 1, 9, "float64")
    res = []
    for lib in (mt, torch):
        a = lib.tensor(base, requires_grad=True)
        b = lib.tensor(src, requires_grad=True)
        out = a.index_add(1, lib.tensor(ix), b, alpha=-1.5)
        assert type(out.grad_fn).__name__ == "IndexAddBackward0"
        (out * lib.tensor(np.arange(out.numel(), dtype=np.float64).reshape(out.shape))).sum() \
            .backward()
        res.append((bits(a.grad), bits(b.grad)))
    for p, q in zip(*res):
        np.testing.assert_array_equal(p, q)


@pytest.mark.parametrize("dim", [0, 1])
def test_gradcheck_and_double_backward(dim):
    a = mt.tensor(R.standard_normal((4, 5)), requires_grad=True)
    shape = [4, 5]
    shape[dim] = 6
    b = mt.tensor(R.standard_normal(shape), requires_grad=True)
    ix = mt.tensor([0, 2, 2, 3, 0, 1] if dim == 0 else [4, 0, 4, 1, 1, 2])
    f = lambda a, b: mt.index_add(a, dim, ix, b, alpha=2.5)  # noqa: E731
    assert mt.autograd.gradcheck(f, (a, b))
    assert mt.autograd.gradgradcheck(f, (a, b))


def test_eight_lane_path_in_child():
    """The same results with AVX-512 turned off (the 8-lane clones)."""
    code = (
        "import numpy as np, torch, minitorch as mt\n"
        "r = np.random.default_rng(5)\n"
        "for dt, nd in (('float32', np.float32), ('float64', np.float64), ('int64', np.int64)):\n"
        "    b = (r.standard_normal((500, 257)) * 9).astype(nd)\n"
        "    s = (r.standard_normal((800, 257)) * 9).astype(nd)\n"
        "    i = r.integers(0, 400, 800)\n"
        "    for th in (1, 2):\n"
        "        mt.set_num_threads(th)\n"
        "        got = mt.tensor(b).index_add(0, mt.tensor(i), mt.tensor(s)).numpy()\n"
        "        want = torch.tensor(b).index_add(0, torch.tensor(i), torch.tensor(s)).numpy()\n"
        "        assert np.array_equal(got, want), dt\n"
        "print('ok')\n")
    env = dict(child_env(), MINITORCH_NO_AVX512="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
