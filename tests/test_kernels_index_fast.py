"""The row and along-dim index kernels (csrc/kernels/index_rows.c, index_dim.c)
against torch: every dim of 1-4-d tensors, non-contiguous self, index and
source, negative and duplicate indices, empty indices, all dtypes, torch's
error messages, gradients and float64 gradcheck; and nn.functional.embedding
built on them."""
import re

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

R = np.random.default_rng(2024)
SHAPES = [(7,), (5, 9), (3, 4, 6), (2, 3, 5, 4)]
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool"]


def values(shape, dtype):
    if dtype == "bool":
        return R.random(shape) < 0.5
    if dtype in ("uint8", "int8", "int16", "int32", "int64"):
        return R.integers(0, 100, shape)
    return R.standard_normal(shape)


def pair(arr, dtype, requires_grad=False):
    """The same data as a minitorch and a torch tensor of dtype."""
    a = np.ascontiguousarray(arr)
    t = torch.tensor(a).to(getattr(torch, dtype))
    if dtype in ("float16", "bfloat16"):
        # torch's rounding of the data, exactly representable from float32
        a = t.float().numpy()
    m = mt.tensor(a).to(getattr(mt, dtype))
    if requires_grad:
        m.requires_grad_(True)
        t.requires_grad_(True)
    return m, t


def as_np(x):
    if x.dtype in (mt.bfloat16, mt.float16):
        x = x.float()
    return x.detach().numpy() if isinstance(x, mt.Tensor) else x


def same(m, t, exact=False):
    """Equal values; exact for integers and moves, close for float sums (a
    half's sum may round once more or less than torch's vectorised one)."""
    tol = {torch.float16: 1e-2, torch.bfloat16: 6e-2}.get(t.dtype, 1e-5)
    if t.dtype in (torch.bfloat16, torch.float16):
        t = t.float()
    tn = t.detach().numpy()
    mn = as_np(m)
    assert tuple(mn.shape) == tuple(tn.shape)
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1] or \
        str(t.dtype).endswith("float32")
    if exact or tn.dtype.kind in "biu":
        np.testing.assert_array_equal(mn, tn)
    else:
        np.testing.assert_allclose(mn, tn, rtol=tol, atol=tol / 2)


def non_contiguous(m, t):
    """Transposed copies read back: the same values in a non-contiguous layout."""
    if m.dim() < 2:
        return m[::1], t[::1]
    return m.transpose(0, -1).contiguous().transpose(0, -1), \
        t.transpose(0, -1).contiguous().transpose(0, -1)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_index_select_every_dim(shape, dtype):
    m, t = pair(values(shape, dtype), dtype)
    for dim in range(-len(shape), len(shape)):
        n = shape[dim]
        ix = R.integers(0, n, 2 * n + 1)
        for im, it in [pair(ix, "int64"), pair(ix, "int32")]:
            same(m.index_select(dim, im), t.index_select(dim, it), exact=True)
        mn, tn = non_contiguous(m, t)
        im, it = pair(ix[::-1].copy(), "int64")
        same(mn.index_select(dim, im[::2]), tn.index_select(dim, it[::2]), exact=True)
        e = pair(np.zeros(0, np.int64), "int64")
        same(m.index_select(dim, e[0]), t.index_select(dim, e[1]))


@pytest.mark.parametrize("shape", [(4,), (4, 5), (2, 4, 5)])
def test_index_select_errors(shape):
    """torch words it per kernel: dim 1 of 2 or more dims has its own message."""
    m, t = pair(values(shape, "float32"), "float32")
    for dim in range(len(shape)):
        for bad in ([0, shape[dim]], [1, -1, 99]):
            for dt in ("int64", "int32"):
                with pytest.raises(Exception) as em:
                    m.index_select(dim, mt.tensor(bad).to(getattr(mt, dt)))
                with pytest.raises(Exception) as et:
                    t.index_select(dim, torch.tensor(bad).to(getattr(torch, dt)))
                assert type(em.value).__name__ == type(et.value).__name__
                assert str(em.value) == str(et.value)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int16", "bool", "float16"])
def test_index_add_copy_fill_duplicates(shape, dtype):
    base = values(shape, dtype)
    for dim in range(len(shape)):
        n = shape[dim]
        ix = R.integers(0, n, 3 * n)  # duplicates
        src_shape = list(shape)
        src_shape[dim] = len(ix)
        src = values(src_shape, dtype)
        (m, t), (ms, ts), (im, it) = pair(base, dtype), pair(src, dtype), pair(ix, "int64")
        alpha = 2 if dtype not in ("bool",) else True
        same(m.clone().index_add_(dim, im, ms, alpha=alpha),
             t.clone().index_add_(dim, it, ts, alpha=alpha))
        msn, tsn = non_contiguous(ms, ts)
        same(mt.index_add(m, dim, im, msn), torch.index_add(t, dim, it, tsn))
        # index_copy with distinct indices (duplicates are unspecified in torch)
        perm = R.permutation(n)
        cs = list(shape)
        cs[dim] = n
        (mc, tc), (pm, pt) = pair(values(cs, dtype), dtype), pair(perm, "int64")
        same(m.index_copy(dim, pm, mc), t.index_copy(dim, pt, tc), exact=True)
        same(m.index_fill(dim, im, 1), t.index_fill(dim, it, 1), exact=True)


def test_index_add_alias_and_errors():
    a = values((6, 4), "float64")
    (m, t), (im, it) = pair(a, "float64"), pair(np.array([1, 1, 3, 0, 5, 2]), "int64")
    for x in (m, t):
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            x.index_add_(0, im if x is m else it, x)
    same(m.index_add_(0, im, m.flip(0)), t.index_add_(0, it, t.flip(0)))
    # torch words it per kernel: int64 along the first or last of 2+ dims differs
    for shape in [(6,), (6, 4), (6, 4, 3), (2, 6, 4, 3)]:
        for dim in range(len(shape)):
            for bad in (shape[dim], -1):
                for idt in ("int64", "int32"):
                    s = list(shape)
                    s[dim] = 1
                    errs = []
                    for lib in (mt, torch):
                        with pytest.raises(Exception) as e:
                            lib.zeros(shape).index_add_(
                                dim, lib.tensor([0, bad]).to(getattr(lib, idt)), lib.ones(s[:dim] + [2] + s[dim + 1:]))
                        errs.append((type(e.value).__name__, str(e.value)))
                    assert errs[0] == errs[1]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_every_dim(shape, dtype):
    m, t = pair(values(shape, dtype), dtype)
    for dim in range(len(shape)):
        ishape = [max(1, s - 1) for s in shape]
        ishape[dim] = shape[dim] + 3
        ix = R.integers(0, shape[dim], ishape)
        im, it = pair(ix, "int64")
        same(mt.gather(m, dim, im), torch.gather(t, dim, it), exact=True)
        mn, tn = non_contiguous(m, t)
        imn, itn = non_contiguous(im, it)
        same(mn.gather(dim - len(shape), imn), tn.gather(dim - len(shape), itn), exact=True)


def test_gather_errors_and_empty():
    m, t = pair(values((4, 5), "float32"), "float32")
    for ix in ([[0, 5]], [[-1, 0]]):
        im, it = mt.tensor(ix), torch.tensor(ix)
        with pytest.raises(RuntimeError) as em:
            mt.gather(m, 1, im)
        with pytest.raises(RuntimeError) as et:
            torch.gather(t, 1, it)
        assert str(em.value) == str(et.value)
    e = np.zeros((0, 5), np.int64)
    same(mt.gather(m, 0, mt.tensor(e)), torch.gather(t, 0, torch.tensor(e)))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_add_every_dim(shape, dtype):
    base = values(shape, dtype)
    for dim in range(len(shape)):
        ishape = list(shape)
        ishape[dim] = 2 * shape[dim] + 1  # duplicates along dim
        ix = R.integers(0, shape[dim], ishape)
        src = values(ishape, dtype)
        (m, t), (ms, ts), (im, it) = pair(base, dtype), pair(src, dtype), pair(ix, "int64")
        same(m.scatter_add(dim, im, ms), t.scatter_add(dim, it, ts))
        msn, tsn = non_contiguous(ms, ts)
        imn, itn = non_contiguous(im, it)
        same(m.clone().scatter_add_(dim, imn, msn), t.clone().scatter_add_(dim, itn, tsn))
        if dtype != "bool":
            same(m.scatter(dim, im, ms, reduce="add"), t.scatter(dim, it, ts, reduce="add"))
        if dtype in ("float64", "int64"):
            same(m.scatter(dim, im, ms, reduce="multiply"),
                 t.scatter(dim, it, ts, reduce="multiply"))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "float16"])
def test_scatter_set_distinct(shape, dtype):
    base = values(shape, dtype)
    for dim in range(len(shape)):
        # a permutation along dim per position: no duplicate, so the result is defined
        ix = np.argsort(R.random(shape), axis=dim)
        src = values(shape, dtype)
        (m, t), (ms, ts), (im, it) = pair(base, dtype), pair(src, dtype), pair(ix, "int64")
        same(m.scatter(dim, im, ms), t.scatter(dim, it, ts), exact=True)
        same(m.scatter(dim, im, 3), t.scatter(dim, it, 3), exact=True)
        # a src larger than the index is read through the index's part
        big = values([s + 2 for s in shape], dtype)
        bm, bt = pair(big, dtype)
        same(m.clone().scatter_(dim, im, bm), t.clone().scatter_(dim, it, bt), exact=True)


def test_scatter_errors():
    m, t = pair(values((3, 4), "float32"), "float32")
    for lib, x in ((mt, m), (torch, t)):
        with pytest.raises(RuntimeError, match="index 4 is out of bounds for dimension 1 with size 4"):
            x.scatter_add(1, lib.tensor([[0, 4]]), lib.ones(1, 2))
        with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 0 with size 3"):
            x.scatter(0, lib.tensor([[-1]]), 1.0)
        for src in (lib.ones(3, 4), 2.0):
            with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply"):
                x.scatter(0, lib.tensor([[0]]), src, reduce="abc")


def test_big_threaded_paths_match_serial():
    """Sizes past the threading grain, at 1 and 2 threads: the same bits."""
    x = values((300, 257), "float32")
    ix = R.integers(0, 257, (300, 600))
    src = values((300, 600), "float32")
    rows = R.integers(0, 300, 5000)
    out = []
    for n in (1, 2):
        mt.set_num_threads(n)
        (m, t), (im, it), (ms, ts) = pair(x, "float32"), pair(ix, "int64"), pair(src, "float32")
        (rm, rt) = pair(rows, "int64")
        r = [mt.gather(m, 1, im), m.scatter_add(1, im, ms), m.index_select(0, rm),
             m.T.index_select(1, rm), mt.zeros(300, 257).index_add_(0, rm, m.index_select(0, rm)),
             m.scatter_add(0, im[:, :257] % 300, ms[:, :257])]
        same(r[0], torch.gather(t, 1, it), exact=True)
        same(r[1], t.scatter_add(1, it, ts))
        same(r[2], t.index_select(0, rt), exact=True)
        same(r[3], t.T.index_select(1, rt), exact=True)
        same(r[4], torch.zeros(300, 257).index_add_(0, rt, t.index_select(0, rt)))
        same(r[5], t.scatter_add(0, it[:, :257] % 300, ts[:, :257]))
        out.append([as_np(v) for v in r])
    mt.set_num_threads(2)
    for a, b in zip(*out):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_take_negative_and_noncontiguous(dtype):
    m, t = pair(values((6, 7), dtype), dtype)
    ix = R.integers(-42, 42, (5, 3))
    (im, it) = pair(ix, "int64")
    same(mt.take(m, im), torch.take(t, it), exact=True)
    same(m.T.take(im), t.T.take(it), exact=True)
    with pytest.raises(IndexError):
        mt.take(m, mt.tensor([42]))
    e = pair(np.zeros((0,), np.int64), "int64")
    same(mt.take(m, e[0]), torch.take(t, e[1]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_advanced_getitem_setitem_masks(dtype):
    a = values((6, 5, 4), dtype)
    m, t = pair(a, dtype)
    i0 = R.integers(-6, 6, 9)
    i2 = R.integers(0, 4, (3, 3))
    (im, it), (jm, jt) = pair(i0, "int64"), pair(i2, "int64")
    same(m[im], t[it], exact=True)
    same(m[:, 1:4, jm], t[:, 1:4, jt], exact=True)
    same(m[im, :, im % 4], t[it, :, it % 4], exact=True)
    same(m.transpose(0, 2)[jm], t.transpose(0, 2)[jt], exact=True)
    mask = R.random((6, 5)) < 0.5
    (mm, tm) = pair(mask, "bool")
    same(m[mm], t[tm], exact=True)
    same(m[:, :, 1][mm], t[:, :, 1][tm], exact=True)
    big = R.random(10_000) < 0.5
    (bm, bt), (vm, vt) = pair(big, "bool"), pair(values(10_000, dtype), dtype)
    same(vm[bm], vt[bt], exact=True)
    # setitem: distinct indices, values broadcast and non-contiguous
    perm = R.permutation(6)[:4]
    (pm, pt) = pair(perm, "int64")
    mc, tc = m.clone(), t.clone()
    val = values((4, 5, 4), dtype)
    (vm2, vt2) = pair(val, dtype)
    mc[pm] = vm2.transpose(1, 2).contiguous().transpose(1, 2)
    tc[pt] = vt2
    same(mc, tc, exact=True)
    mc[mm] = 1
    tc[tm] = 1
    same(mc, tc, exact=True)
    mc[:, 2, jm] = vm2[0, 0, 0]
    tc[:, 2, jt] = vt2[0, 0, 0]
    same(mc, tc, exact=True)


def test_getitem_out_of_range_message():
    for lib in (mt, torch):
        x = lib.zeros(1000)
        with pytest.raises(IndexError, match=re.escape(
                "index 1000 is out of bounds for dimension 0 with size 1000")):
            x[lib.tensor([1, 1000])]


def gradcheck_both(fn_m, fn_t, *arrays):
    """Gradients of sum(fn(x) * w) against torch's, and minitorch's gradcheck."""
    ms = [mt.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    ym, yt = fn_m(*ms), fn_t(*ts)
    w = R.standard_normal(tuple(yt.shape))
    (ym * mt.tensor(w)).sum().backward()
    (yt * torch.tensor(w)).sum().backward()
    for a, b in zip(ms, ts):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert mt.autograd.gradcheck(fn_m, tuple(mt.tensor(a, requires_grad=True) for a in arrays))


def test_gradients_float64():
    x = R.standard_normal((4, 5, 3))
    s = R.standard_normal((4, 9, 3))
    rows = R.integers(0, 5, 9)
    ix = R.integers(0, 5, (4, 9, 3))
    gradcheck_both(lambda a: a.index_select(1, mt.tensor(rows)),
                   lambda a: a.index_select(1, torch.tensor(rows)), x)
    gradcheck_both(lambda a: a.gather(1, mt.tensor(ix[:, :4])),
                   lambda a: a.gather(1, torch.tensor(ix[:, :4])), x)
    gradcheck_both(lambda a, b: a.scatter_add(1, mt.tensor(ix), b),
                   lambda a, b: a.scatter_add(1, torch.tensor(ix), b), x, s)
    gradcheck_both(lambda a, b: a.index_add(1, mt.tensor(rows), b, alpha=3),
                   lambda a, b: a.index_add(1, torch.tensor(rows), b, alpha=3), x, s[:, :, :])
    gradcheck_both(lambda a: a[mt.tensor(rows % 4 - 4)], lambda a: a[torch.tensor(rows % 4 - 4)], x)
    gradcheck_both(lambda a: a.take(mt.tensor(ix[0] - 20)),
                   lambda a: a.take(torch.tensor(ix[0] - 20)), x)
    mask = R.random((4, 5)) < 0.5
    gradcheck_both(lambda a: a[mt.tensor(mask)], lambda a: a[torch.tensor(mask)], x)
    # a 0-d input keeps the position-picking formula
    gradcheck_both(lambda a: a.index_select(0, mt.tensor([0])),
                   lambda a: a.index_select(0, torch.tensor([0])), np.array(1.5))


def test_double_backward_index_select():
    x = R.standard_normal((5, 3))
    rows = np.array([4, 0, 4, 2])
    res = []
    for lib in (mt, torch):
        a = lib.tensor(x, requires_grad=True)
        g = lib.tensor(R.standard_normal((4, 3)) if lib is mt else res[0][1], requires_grad=True)
        y = a.index_select(0, lib.tensor(rows))
        (ga,) = lib.autograd.grad(y, a, g, create_graph=True)
        (gg,) = lib.autograd.grad((ga ** 2).sum(), g)
        res.append((gg.detach().numpy(), g.detach().numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12)


@pytest.mark.parametrize("kw", [{}, {"padding_idx": 3}, {"padding_idx": -2},
                                {"scale_grad_by_freq": True},
                                {"padding_idx": 0, "scale_grad_by_freq": True}])
@pytest.mark.parametrize("idtype", ["int64", "int32"])
def test_embedding_forward_backward(kw, idtype):
    w = R.standard_normal((11, 7))
    ids = R.integers(0, 11, (4, 6))
    ids[0, :3] = 3
    ids[1, 0] = 9
    (im, it) = pair(ids, idtype)
    wm, wt = mt.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    ym = mt.nn.functional.embedding(im, wm, **kw)
    yt = torch.nn.functional.embedding(it, wt, **kw)
    same(ym, yt, exact=True)
    g = R.standard_normal((4, 6, 7))
    ym.backward(mt.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(wm.grad.numpy(), wt.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_embedding_max_norm_and_errors():
    w = R.standard_normal((10, 4)) * 3
    ids = np.array([[1, 2, 2], [9, 0, 1]])
    wm, wt = mt.tensor(w), torch.tensor(w)
    ym = mt.nn.functional.embedding(mt.tensor(ids), wm, max_norm=1.5)
    yt = torch.nn.functional.embedding(torch.tensor(ids), wt, max_norm=1.5)
    same(ym, yt)
    same(wm, wt)  # renormed in place, as torch
    for bad in ([10], [-1]):
        for lib, wl in ((mt, wm), (torch, wt)):
            with pytest.raises(IndexError, match="index out of range in self"):
                lib.nn.functional.embedding(lib.tensor(bad), wl)
    e = np.zeros((2, 0), np.int64)
    same(mt.nn.functional.embedding(mt.tensor(e), wm),
         torch.nn.functional.embedding(torch.tensor(e), wt))


def test_embedding_module_big_threaded():
    ids = R.integers(0, 1000, (16, 64))
    out = []
    for n in (1, 2):
        mt.set_num_threads(n)
        mt.manual_seed(0)
        emb = mt.nn.Embedding(1000, 96)
        y = emb(mt.tensor(ids))
        y.backward(mt.ones(16, 64, 96))
        out.append((y.detach().numpy(), emb.weight.grad.numpy(), emb.weight.detach().numpy()))
    mt.set_num_threads(2)
    for a, b in zip(*out):
        np.testing.assert_array_equal(a, b)
    w = out[0][2]
    np.testing.assert_array_equal(out[0][0], w[ids])
    counts = np.bincount(ids.ravel(), minlength=1000).astype(np.float32)
    np.testing.assert_array_equal(out[0][1], np.repeat(counts[:, None], 96, 1))
