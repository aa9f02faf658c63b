"""The fused paths of the index kernels against torch: index_select's and
gather's backward without a graph (rows cleared or filled by the kernel, no
zeros pass), out-of-place scatters that fill each row from self just before
scattering into it, gathers that check indices while moving them (vector
gathers on AVX-512 machines), and plain dim-0 row moves. Each at 1 and 2
threads, at sizes past the threading grain, with duplicates, rows no index
reaches, negative zeros, int32 and int64 indices, non-contiguous operands and
every floating dtype."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

from index_compare import assert_same, bits, both, threads  # noqa: E402,F401 (autouse)

R = np.random.default_rng(77)
FLOATS = ["float32", "float64", "float16", "bfloat16"]


def exact_for(dtype):
    # float32/float64 sums are made in index order, as torch's; half sums may round differently
    return dtype in ("float32", "float64")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("idtype", ["int64", "int32"])
@pytest.mark.parametrize("shape,dim", [((3000, 13), 0), ((50, 7, 3), 0), ((6, 40, 5), 1),
                                       ((5, 6, 70), 2), ((1, 1), 0), ((9,), 0)])
def test_index_select_backward(dtype, idtype, shape, dim):
    n = shape[dim]
    k = 2 * n + 3
    rows = R.integers(0, n, k)
    rows[: min(3, k)] = 0  # duplicates
    if n > 4:
        rows[rows == n - 1] = n - 2  # a row no index reaches
    xm, xt = both(R.standard_normal(shape), dtype, True)
    im, it = both(rows, idtype)
    ym, yt = xm.index_select(dim, im), xt.index_select(dim, it)
    g = R.standard_normal(tuple(yt.shape))
    g.flat[::3] = -0.0  # a -0 gradient gives +0 in zeros + g
    gm, gt = both(g, dtype)
    ym.backward(gm)
    yt.backward(gt)
    assert_same(xm.grad, xt.grad, exact_for(dtype))


@pytest.mark.parametrize("idtype", ["int64", "int32"])
def test_embedding_backward_big(idtype):
    w = R.standard_normal((5000, 40)).astype(np.float32)
    ids = R.integers(0, 3000, (32, 70))  # rows 3000.. never reached
    ids[0, :10] = 7
    for kw in ({}, {"padding_idx": 7}, {"scale_grad_by_freq": True}, {"max_norm": 2.0}):
        wm, wt = both(w, "float32", True)
        im, it = both(ids, idtype)
        ym = mt.nn.functional.embedding(im, wm, **kw)
        yt = torch.nn.functional.embedding(it, wt, **kw)
        # max_norm rescales rows by norms whose float sums may round apart
        np.testing.assert_allclose(bits(ym), bits(yt), rtol=1e-6, atol=0 if not kw else 1e-6)
        g = R.standard_normal((32, 70, 40))
        g[1] = -0.0
        gm, gt = both(g, "float32")
        ym.backward(gm)
        yt.backward(gt)
        exact = "max_norm" not in kw and "scale_grad_by_freq" not in kw
        if exact:
            assert_same(wm.grad, wt.grad, exact=True)
        else:
            np.testing.assert_allclose(bits(wm.grad), bits(wt.grad), rtol=1e-5, atol=1e-6)


def test_index_select_backward_noncontiguous_grad_and_accumulation():
    x = R.standard_normal((400, 30))
    rows = R.integers(0, 400, 700)
    xm, xt = both(x, "float64", True)
    for _ in range(2):  # the second backward accumulates into .grad
        gm, gt = both(R.standard_normal((30, 700)), "float64")
        xm.index_select(0, mt.tensor(rows)).backward(gm.t())
        xt.index_select(0, torch.tensor(rows)).backward(gt.t())
    assert_same(xm.grad, xt.grad, exact=True)


def test_index_select_backward_empty_index():
    xm, xt = both(R.standard_normal((6, 4)), "float32", True)
    im, it = mt.zeros(0, dtype=mt.int64), torch.zeros(0, dtype=torch.int64)
    xm.index_select(0, im).sum().backward()
    xt.index_select(0, it).sum().backward()
    assert_same(xm.grad, xt.grad, exact=True)


def test_create_graph_keeps_the_op_formula():
    x = R.standard_normal((8, 3))
    rows = np.array([1, 1, 7, 0])
    cols = R.integers(0, 3, (8, 5))
    out = []
    for lib in (mt, torch):
        a = lib.tensor(x, requires_grad=True)
        g = lib.tensor(np.ones((4, 3)), requires_grad=True)
        (ga,) = lib.autograd.grad(a.index_select(0, lib.tensor(rows)), a, g, create_graph=True)
        h = lib.tensor(np.arange(40.0).reshape(8, 5), requires_grad=True)
        (gb,) = lib.autograd.grad(a.gather(1, lib.tensor(cols)), a, h, create_graph=True)
        (gg,) = lib.autograd.grad((ga * ga).sum() + (gb * gb).sum(), g)
        out.append((bits(ga), bits(gb), bits(gg), ga.grad_fn is not None))
    for a, b in zip(*out):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,dim,ishape", [((300, 257), 1, (300, 600)),
                                              ((300, 257), 1, (200, 100)),  # fewer rows
                                              ((40, 33), 0, (70, 33)),
                                              ((4, 5, 66), 2, (4, 5, 70)),
                                              ((4, 5, 6), 1, (4, 9, 6)),
                                              ((17,), 0, (40,))])
def test_gather_forward_backward(dtype, shape, dim, ishape):
    xm, xt = both(R.standard_normal(shape), dtype, True)
    ix = R.integers(0, shape[dim], ishape)
    im, it = both(ix, "int64")
    ym, yt = xm.gather(dim, im), xt.gather(dim, it)
    assert_same(ym, yt, exact=True)
    g = R.standard_normal(ishape)
    g.flat[::4] = -0.0
    gm, gt = both(g, dtype)
    ym.backward(gm)
    yt.backward(gt)
    assert_same(xm.grad, xt.grad, exact_for(dtype))


@pytest.mark.parametrize("dtype", ["float32", "int32", "float64", "int64", "int16", "uint8",
                                   "bool", "bfloat16"])
@pytest.mark.parametrize("n", [1, 15, 16, 17, 33, 1000])
def test_gather_row_lengths_and_dtypes(dtype, n):
    src = R.integers(0, 100, (3, n)) if dtype != "bool" else R.random((3, n)) < 0.5
    xm, xt = both(src, dtype)
    ix = R.integers(0, n, (3, n + 5))
    im, it = both(ix, "int64")
    assert_same(xm.gather(1, im).to(mt.float64), xt.gather(1, it).to(torch.float64), exact=True)
    # a non-contiguous index and a transposed source take the strided loop
    im2, it2 = both(ix[:, ::2], "int64")
    assert_same(xm.gather(1, im2).to(mt.float64), xt.gather(1, it2).to(torch.float64), exact=True)
    jm, jt = both(R.integers(0, 3, (3, n)), "int64")
    assert_same(xm.gather(0, jm).to(mt.float64), xt.gather(0, jt).to(torch.float64), exact=True)


@pytest.mark.parametrize("where", [0, 5, 16, 31, 39])
@pytest.mark.parametrize("bad", [-1, 40, 10 ** 12])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8"])
def test_gather_out_of_range_messages(where, bad, dtype):
    ix = R.integers(0, 40, (3, 40))
    ix[2, where] = bad
    msgs = []
    for lib in (mt, torch):
        x = lib.zeros(3, 40, dtype=getattr(lib, dtype))
        with pytest.raises(RuntimeError) as e:
            x.gather(1, lib.tensor(ix))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    for lib in (mt, torch):
        with pytest.raises(RuntimeError, match="out of bounds for dimension 1 with size 0"):
            lib.zeros(3, 0).gather(1, lib.tensor([[0]]))


@pytest.mark.parametrize("dtype", FLOATS + ["int64", "int32"])
@pytest.mark.parametrize("op", ["scatter_add", "scatter", "multiply"])
@pytest.mark.parametrize("case", ["rows", "fewer_rows", "dim0", "transposed_self", "3d"])
def test_out_of_place_scatter(dtype, op, case):
    shape, dim, ishape = {"rows": ((300, 257), 1, (300, 257)),
                          "fewer_rows": ((300, 257), 1, (120, 100)),
                          "dim0": ((40, 33), 0, (70, 33)),
                          "transposed_self": ((30, 40), 1, (30, 20)),
                          "3d": ((4, 5, 66), 2, (4, 5, 70))}[case]
    base = R.integers(-5, 5, shape) if dtype.startswith("int") else R.standard_normal(shape)
    bm, bt = both(base, dtype)
    if case == "transposed_self":
        bm, bt = bm.t().contiguous().t(), bt.t().contiguous().t()
    before = bits(bm).copy()
    src = R.integers(-5, 5, ishape) if dtype.startswith("int") else R.standard_normal(ishape)
    sm, st = both(src, dtype)
    if op == "scatter":
        # distinct positions along dim, so the value written is unambiguous
        keys = list(ishape)
        keys[dim] = shape[dim]
        ix = np.argsort(R.random(keys), axis=dim)
        ix = np.take(ix, np.arange(min(ishape[dim], shape[dim])), axis=dim)
    else:
        ix = R.integers(0, shape[dim], ishape)
    im, it = both(ix, "int64")
    sm, st = sm[tuple(slice(0, s) for s in ix.shape)], st[tuple(slice(0, s) for s in ix.shape)]
    if op == "scatter_add":
        rm, rt = bm.scatter_add(dim, im, sm), bt.scatter_add(dim, it, st)
    elif op == "scatter":
        rm, rt = bm.scatter(dim, im, sm), bt.scatter(dim, it, st)
    else:
        rm, rt = bm.scatter(dim, im, sm, reduce="multiply"), bt.scatter(dim, it, st,
                                                                         reduce="multiply")
    assert_same(rm, rt, op == "scatter" or exact_for(dtype) or dtype.startswith("int"))
    np.testing.assert_array_equal(bits(bm), before)  # self is not written


def test_out_of_place_scatter_errors_leave_self():
    for lib in (mt, torch):
        b = lib.ones(3, 4)
        with pytest.raises(RuntimeError, match="index 9 is out of bounds for dimension 1 with "
                                               "size 4"):
            b.scatter_add(1, lib.tensor([[0, 9], [1, 1], [2, 2]]), lib.ones(3, 2))
        np.testing.assert_array_equal(b.numpy(), np.ones((3, 4)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "bool", "float16"])
@pytest.mark.parametrize("n", [1, 3, 4, 5, 8, 11, 1000])
def test_scatter_add_dense_rows(dtype, n):
    """Dense rows scatter four entries a step: duplicates inside a step, and
    row lengths that leave a tail, add up as torch's per-entry loop."""
    size = max(n // 3, 1)  # many duplicates, some within one step
    shape = (300, size)
    base = R.integers(0, 2, shape) if dtype == "bool" else R.integers(-9, 9, shape)
    src = R.integers(0, 2, (300, n)) if dtype == "bool" else R.integers(-9, 9, (300, n))
    ix = R.integers(0, size, (300, n))
    ix[:, : min(n, 4)] = 0  # one step all on one element
    (bm, bt), (sm, st), (im, it) = both(base, dtype), both(src, dtype), both(ix, "int64")
    assert_same(bm.scatter_add(1, im, sm), bt.scatter_add(1, it, st), True)
    assert_same(bm.clone().scatter_add_(1, im, sm), bt.clone().scatter_add_(1, it, st), True)


@pytest.mark.parametrize("where", [0, 3, 4, 6, 9])
def test_scatter_add_bad_index_writes_the_entries_before(where):
    """In place, a row stops at its first index out of range having written the
    entries before it, as torch's per-entry check (one thread: rows in order)."""
    ix = np.tile(np.arange(10), (3, 1))
    ix[1, where] = 99
    states = []
    before = mt.get_num_threads()
    mt.set_num_threads(1)
    try:
        for lib in (mt, torch):
            x = lib.zeros(3, 10)
            with pytest.raises(RuntimeError, match="index 99 is out of bounds for dimension 1 "
                                                   "with size 10"):
                x.scatter_add_(1, lib.tensor(ix), lib.ones(3, 10))
            states.append(bits(x))
    finally:
        mt.set_num_threads(before)
    np.testing.assert_array_equal(states[0], states[1])
    assert states[0][1, :where].all() and not states[0][1, where:].any()


def test_scatter_add_grads_float64():
    x = R.standard_normal((6, 9))
    s = R.standard_normal((6, 12))
    ix = R.integers(0, 9, (6, 12))
    res = []
    for lib in (mt, torch):
        a = lib.tensor(x, requires_grad=True)
        b = lib.tensor(s, requires_grad=True)
        a.scatter_add(1, lib.tensor(ix), b).mul(lib.tensor(np.arange(54.0).reshape(6, 9))) \
            .sum().backward()
        res.append((bits(a.grad), bits(b.grad)))
        assert lib.autograd.gradcheck(lambda a, b: a.scatter_add(1, lib.tensor(ix), b), (a, b))
        assert lib.autograd.gradcheck(lambda a: a.gather(1, lib.tensor(ix)), (a,))
        assert lib.autograd.gradcheck(lambda a: a.index_select(0, lib.tensor(ix[0] % 6)), (a,))
    for p, q in zip(*res):
        np.testing.assert_array_equal(p, q)


@pytest.mark.parametrize("dtype", FLOATS + ["int32"])
def test_plain_rows_index_add_and_select(dtype):
    base = R.integers(-5, 5, (500, 70)) if dtype == "int32" else R.standard_normal((500, 70))
    src = R.integers(-5, 5, (900, 70)) if dtype == "int32" else R.standard_normal((900, 70))
    rows = R.integers(0, 500, 900)
    bm, bt = both(base, dtype)
    sm, st = both(src, dtype)
    im, it = both(rows, "int64")
    assert_same(bm.index_select(0, im), bt.index_select(0, it), exact=True)
    assert_same(bm.index_add(0, im, sm), bt.index_add(0, it, st),
                exact_for(dtype) or dtype == "int32")
    # torch's vector loop fuses alpha * s + d into one rounding, minitorch rounds
    # twice: one rounding more per add, each within an ulp of the running sum,
    # whose size is bounded by the sum of the magnitudes added into the row
    got, want = bits(bm.index_add(0, im, sm, alpha=3)), bits(bt.index_add(0, it, st, alpha=3))
    bound = np.abs(base).astype(np.float64)
    np.add.at(bound, rows, 3 * np.abs(src))
    eps = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}.get(dtype, 2.0 ** -23)
    adds = np.bincount(rows, minlength=len(base))[:, None] + 1
    err = np.abs(np.asarray(got, np.float64) - np.asarray(want, np.float64))
    assert (err <= 2 * eps * adds * bound + 1e-30).all()
    # a non-contiguous source and self take the general walk
    sm2, st2 = sm.t().contiguous().t(), st.t().contiguous().t()
    assert_same(bm.index_add(0, im, sm2), bt.index_add(0, it, st2),
                exact_for(dtype) or dtype == "int32")
    assert_same(bm[:, ::2].index_select(0, im), bt[:, ::2].index_select(0, it), exact=True)


@pytest.mark.parametrize("idtype", ["int64", "int32"])
def test_index_select_index_read_in_place(idtype):
    """A dense int64 index is read where it is, others are converted first; both
    check every index, and the index is never modified."""
    xm, xt = both(R.standard_normal((50, 9)), "float32")
    rows = R.integers(0, 50, 41)
    im, it = both(rows, idtype)
    assert_same(xm.index_select(0, im), xt.index_select(0, it), exact=True)
    assert_same(xm.index_select(0, im[::3]), xt.index_select(0, it[::3]), exact=True)
    assert_same(xm.index_select(1, im[:5] % 9), xt.index_select(1, it[:5] % 9), exact=True)
    for bad in (-1, 50, 2 ** 40):
        r = rows.copy()
        r[-1] = bad
        msgs = []
        for lib, x in ((mt, xm), (torch, xt)):
            ix = lib.tensor(r)
            with pytest.raises(IndexError) as e:
                x.index_select(0, ix)
            msgs.append(str(e.value))
            np.testing.assert_array_equal(ix.numpy(), r)
        assert msgs[0] == msgs[1]
