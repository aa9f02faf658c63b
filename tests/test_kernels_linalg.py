"""Matrix products against NumPy and PyTorch: shapes, broadcasting, strides,
dtypes, out= and torch's error messages."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1234)
TOL = {np.float32: dict(rtol=1e-4, atol=1e-4), np.float64: dict(rtol=1e-10, atol=1e-10)}


def rand(shape, dtype=np.float32):
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(-5, 6, size=shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def check(got, expected, dtype=np.float32):
    got = got.numpy()
    assert got.shape == np.shape(expected)
    assert got.dtype == np.asarray(expected).dtype
    if np.issubdtype(dtype, np.integer):
        np.testing.assert_array_equal(got, expected)
    else:
        # a long sum's rounding is relative to the size of its terms, not of
        # the result (an element that cancels to near 0 keeps the terms' error)
        scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
        np.testing.assert_allclose(got, expected, rtol=TOL[dtype]["rtol"],
                                   atol=TOL[dtype]["atol"] * scale)


def strided(a, how):
    """The same values as a, laid out contiguous, transposed or with a gap."""
    if how == "contiguous" or a.ndim < 2:
        return mt.from_numpy(np.ascontiguousarray(a))
    if how == "transposed":
        t = mt.from_numpy(np.ascontiguousarray(np.swapaxes(a, -1, -2)))
        return t.transpose(-1, -2)
    wide = np.zeros(a.shape[:-1] + (a.shape[-1] * 2,), a.dtype)
    wide[..., ::2] = a
    return mt.from_numpy(wide[..., ::2])


LAYOUTS = ["contiguous", "transposed", "gapped"]
DTYPES = [np.float32, np.float64, np.int64, np.int32]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", LAYOUTS)
def test_mm_layouts(dtype, la, lb):
    # narrow and ragged widths reach the own kernel's padded last panel; (64,
    # 128, 10) is an MLP's output layer, (100, 90, 80) a product split by rows
    for m, k, n in [(1, 1, 1), (3, 5, 2), (17, 9, 33), (64, 64, 64), (70, 130, 90),
                    (64, 128, 10), (10, 64, 128), (37, 50, 23), (100, 90, 80)]:
        a, b = rand((m, k), dtype), rand((k, n), dtype)
        check(mt.mm(strided(a, la), strided(b, lb)), a @ b, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_blas_sizes(dtype):
    a, b = rand((257, 300), dtype), rand((300, 129), dtype)
    check(mt.from_numpy(a) @ mt.from_numpy(b), a @ b, dtype)
    check(mt.from_numpy(a.T.copy()).t().mm(mt.from_numpy(b)), a @ b, dtype)
    # a column-major result through out=
    out = mt.from_numpy(np.zeros((129, 257), dtype)).t()
    mt.mm(mt.from_numpy(a), mt.from_numpy(b), out=out)
    check(out, a @ b, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_products_split_over_threads(dtype, threads):
    """BLAS products are split over our threads by rows, or by columns when
    there are few rows; every split and result layout gives the product."""
    old = mt.get_num_threads()
    mt.set_num_threads(threads)
    try:
        for m, k, n in [(64, 64, 128), (100, 90, 80), (40, 200, 100), (8, 100, 300),
                        (16, 3000, 27), (300, 200, 250)]:
            a, b = rand((m, k), dtype), rand((k, n), dtype)
            check(mt.from_numpy(a) @ mt.from_numpy(b), a @ b, dtype)
            check(strided(a, "transposed") @ strided(b, "transposed"), a @ b, dtype)
            out = mt.from_numpy(np.zeros((n, m), dtype)).t()
            mt.mm(mt.from_numpy(a), mt.from_numpy(b), out=out)
            check(out, a @ b, dtype)
            c = rand((m, n), dtype)
            check(mt.addmm(mt.from_numpy(c), mt.from_numpy(a), mt.from_numpy(b), beta=0.5,
                           alpha=2.0), 0.5 * c + 2.0 * (a @ b), dtype)
    finally:
        mt.set_num_threads(old)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("threads", [1, 2])
def test_small_products_into_row_strided_out(dtype, threads):
    """The own kernel writes a plain product straight into C's rows, on one or
    two threads; the columns between C's rows stay untouched."""
    old = mt.get_num_threads()
    mt.set_num_threads(threads)
    try:
        for m, k, n in [(1, 5, 7), (9, 12, 20), (40, 30, 33), (44, 44, 44), (48, 48, 48)]:
            a, b = rand((m, k), dtype), rand((k, n), dtype)
            wide = np.full((m, n + 3), 7, dtype)
            out = mt.from_numpy(wide)[:, :n]
            assert mt.mm(mt.from_numpy(a), mt.from_numpy(b), out=out) is out
            check(out, a @ b, dtype)
            np.testing.assert_array_equal(wide[:, n:], 7)
            got = mt.addmm(mt.from_numpy(wide[:, :n]), mt.from_numpy(a), mt.from_numpy(b),
                           beta=0, alpha=1)
            check(got, a @ b, dtype)
    finally:
        mt.set_num_threads(old)


@pytest.mark.parametrize("sa,sb", [
    ((3,), (3,)), ((4, 3), (3,)), ((3,), (3, 5)), ((4, 3), (3, 5)),
    ((2, 4, 3), (3,)), ((2, 4, 3), (3, 5)), ((3,), (2, 3, 5)), ((4, 3), (2, 3, 5)),
    ((2, 4, 3), (2, 3, 5)), ((2, 1, 4, 3), (5, 3, 2)), ((1, 4, 3), (6, 3, 2)),
    ((0, 3), (3, 4)), ((4, 0), (0, 5)), ((2, 0, 3), (3, 4)), ((0, 4, 3), (1, 3, 2)),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_matmul_broadcasting(sa, sb, dtype):
    a, b = rand(sa, dtype), rand(sb, dtype)
    ta, tb = mt.from_numpy(a), mt.from_numpy(b)
    expected = np.matmul(a, b)
    check(mt.matmul(ta, tb), expected, dtype)
    check(ta @ tb, expected, dtype)
    assert tuple(mt.matmul(ta, tb).shape) == tuple(
        torch.matmul(torch.from_numpy(a), torch.from_numpy(b)).shape)


def test_matmul_transposed_batches():
    a, b = rand((3, 4, 5)), rand((3, 5, 6))
    ta = mt.from_numpy(np.ascontiguousarray(a.transpose(2, 0, 1))).permute([1, 2, 0])
    tb = strided(b, "transposed")
    check(ta @ tb, a @ b)
    check(mt.bmm(ta, tb), a @ b)


def test_rmatmul():
    a, b = rand((2, 3)), rand((3, 4))
    check(mt.from_numpy(b).__rmatmul__(mt.from_numpy(a)), a @ b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_vector_ops(dtype):
    x, y, m = rand((7,), dtype), rand((7,), dtype), rand((5, 7), dtype)
    tx, ty, tm_ = mt.from_numpy(x), mt.from_numpy(y), mt.from_numpy(m)
    check(mt.dot(tx, ty), np.dot(x, y), dtype)
    check(tx.dot(ty), np.dot(x, y), dtype)
    check(mt.vdot(tx, ty), np.vdot(x, y), dtype)
    check(mt.mv(tm_, tx), m @ x, dtype)
    check(mt.outer(tx, mt.from_numpy(m[0])), np.outer(x, m[0]), dtype)
    check(mt.ger(tx, ty), np.outer(x, y), dtype)
    check(mt.dot(mt.from_numpy(x[:0]), mt.from_numpy(y[:0])), np.dot(x[:0], y[:0]), dtype)


def test_strided_vectors():
    x, y, m = rand((12,)), rand((12,)), rand((5, 6))
    tx, ty = mt.from_numpy(x[::2]), mt.from_numpy(y[1::2])
    check(mt.mv(mt.from_numpy(m), tx), m @ x[::2])
    check(mt.dot(tx, ty), np.dot(x[::2], y[1::2]))
    check(mt.outer(tx, ty), np.outer(x[::2], y[1::2]))


def test_outer_promotes():
    x, y = np.arange(3, dtype=np.int64), rand((4,), np.float32)
    check(mt.outer(mt.from_numpy(x), mt.from_numpy(y)), np.outer(x, y).astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_addmm_family(dtype):
    ints = np.issubdtype(dtype, np.integer)
    beta, alpha = (2, 3) if ints else (0.5, -1.5)
    c, a, b = rand((4, 2), dtype), rand((4, 3), dtype), rand((3, 2), dtype)
    tc, ta, tb = mt.from_numpy(c), mt.from_numpy(a), mt.from_numpy(b)
    check(mt.addmm(tc, ta, tb), c + a @ b, dtype)
    check(mt.addmm(tc, ta, tb, beta=beta, alpha=alpha), beta * c + alpha * (a @ b), dtype)
    row = rand((2,), dtype)
    check(mt.addmm(mt.from_numpy(row), ta, tb), row + a @ b, dtype)
    v, mv = rand((3,), dtype), rand((4,), dtype)
    check(mt.addmv(mt.from_numpy(mv), ta, mt.from_numpy(v), beta=beta, alpha=alpha),
          beta * mv + alpha * (a @ v), dtype)
    bc, b1, b2 = rand((2, 4, 2), dtype), rand((2, 4, 3), dtype), rand((2, 3, 2), dtype)
    check(mt.baddbmm(mt.from_numpy(bc), mt.from_numpy(b1), mt.from_numpy(b2), beta=beta,
                     alpha=alpha), beta * bc + alpha * (b1 @ b2), dtype)
    tc2 = mt.from_numpy(c.copy())
    r = tc2.addmm_(ta, tb)
    check(tc2, c + a @ b, dtype)
    assert r is tc2


def test_beta_zero_ignores_nan():
    c = np.full((2, 2), np.nan, np.float32)
    a, b = rand((2, 3)), rand((3, 2))
    check(mt.addmm(mt.from_numpy(c), mt.from_numpy(a), mt.from_numpy(b), beta=0), a @ b)


def test_k_zero_gives_zeros_and_beta_term():
    a, b, c = np.ones((3, 0), np.float32), np.ones((0, 2), np.float32), rand((3, 2))
    check(mt.mm(mt.from_numpy(a), mt.from_numpy(b)), np.zeros((3, 2), np.float32))
    check(mt.addmm(mt.from_numpy(c), mt.from_numpy(a), mt.from_numpy(b), beta=2), 2 * c)


def test_half_types_compute_in_float():
    a, b = rand((5, 6)), rand((6, 3))
    for d in (mt.float16, mt.bfloat16):
        got = mt.mm(mt.tensor(a, dtype=d), mt.tensor(b, dtype=d))
        assert got.dtype == d
        ref = torch.mm(torch.tensor(a, dtype=getattr(torch, str(d).split(".")[1])),
                       torch.tensor(b, dtype=getattr(torch, str(d).split(".")[1])))
        np.testing.assert_allclose(mt.tensor(got, dtype=mt.float32).numpy(),
                                   ref.float().numpy(), rtol=2e-2, atol=5e-2)


def test_out():
    a, b = rand((4, 3)), rand((3, 2))
    out = mt.from_numpy(np.zeros((4, 2), np.float32))
    r = mt.mm(mt.from_numpy(a), mt.from_numpy(b), out=out)
    assert r is out
    check(out, a @ b)
    out = mt.from_numpy(np.zeros((0,), np.float32))
    mt.matmul(mt.from_numpy(a), mt.from_numpy(b), out=out)
    check(out, a @ b)
    with pytest.warns(UserWarning, match="was resized"):
        mt.dot(mt.from_numpy(a[0]), mt.from_numpy(a[0]), out=mt.from_numpy(np.zeros(2, np.float32)))


def both(fn):
    """Runs fn with minitorch and torch; returns the two exceptions."""
    errs = []
    for lib in (mt, torch):
        with pytest.raises(Exception) as info:
            fn(lib)
        errs.append(info.value)
    return errs


def f32(lib, *shape):
    return lib.ones(*shape, dtype=lib.float32)


ERRORS = [
    lambda l: l.mm(f32(l, 4, 3), f32(l, 5, 2)),
    lambda l: l.mm(f32(l, 4), f32(l, 5, 2)),
    lambda l: l.mm(f32(l, 4, 3), f32(l, 3)),
    lambda l: l.mm(f32(l, 4, 3), l.ones(3, 2, dtype=l.float64)),
    lambda l: l.mm(l.ones(2, 2, dtype=l.int64), f32(l, 2, 2)),
    lambda l: l.mm(l.ones(2, 2, dtype=l.bool), l.ones(2, 2, dtype=l.bool)),
    lambda l: l.bmm(f32(l, 2, 4, 3), f32(l, 2, 5, 2)),
    lambda l: l.bmm(f32(l, 4, 3), f32(l, 3, 2)),
    lambda l: l.bmm(f32(l, 2, 4, 3), f32(l, 3, 2)),
    lambda l: l.bmm(f32(l, 2, 4, 3), l.ones(2, 3, 2, dtype=l.float64)),
    lambda l: l.matmul(f32(l, 3), f32(l, 4)),
    lambda l: l.matmul(f32(l, 3), f32(l, 4, 2)),
    lambda l: l.matmul(f32(l, 2, 3), f32(l, 4)),
    lambda l: l.matmul(f32(l, 2, 3, 3), f32(l, 4)),
    lambda l: l.matmul(f32(l, 2, 3, 3), f32(l, 4, 2)),
    lambda l: l.matmul(f32(l, 2, 2, 3), f32(l, 3, 3, 4)),
    lambda l: l.matmul(f32(l, 2, 2, 3), f32(l, 2, 4, 2)),
    lambda l: l.matmul(l.ones((), dtype=l.float32), f32(l, 3)),
    lambda l: l.matmul(f32(l, 2, 3, 3), l.ones(3, 3, dtype=l.float64)),
    lambda l: l.matmul(f32(l, 3, 3), l.ones(2, 3, 3, dtype=l.float64)),
    lambda l: l.matmul(l.ones(2, dtype=l.bool), l.ones(2, dtype=l.bool)),
    lambda l: l.mv(f32(l, 4, 3), f32(l, 4)),
    lambda l: l.mv(f32(l, 4, 3), f32(l, 3, 1)),
    lambda l: l.mv(f32(l, 4, 3), l.ones(3, dtype=l.int64)),
    lambda l: l.dot(f32(l, 3), f32(l, 4)),
    lambda l: l.dot(f32(l, 3, 1), f32(l, 3)),
    lambda l: l.dot(f32(l, 3), l.ones(3, dtype=l.float64)),
    lambda l: l.vdot(f32(l, 3), f32(l, 4)),
    lambda l: l.outer(f32(l, 3), f32(l, 4, 2)),
    lambda l: l.outer(f32(l, 3, 1), f32(l, 4)),
    lambda l: l.addmm(f32(l, 3, 2), f32(l, 4, 3), f32(l, 3, 2)),
    lambda l: l.addmm(f32(l, 4), f32(l, 4, 3), f32(l, 3, 2)),
    lambda l: l.addmm(l.ones(2, 2, dtype=l.int64), f32(l, 2, 2), f32(l, 2, 2)),
    lambda l: l.addmm(f32(l, 2, 2), l.ones(2, 2, dtype=l.int64), f32(l, 2, 2)),
    lambda l: l.addmv(f32(l, 5), f32(l, 4, 3), f32(l, 3)),
    lambda l: l.baddbmm(f32(l, 3, 4, 2), f32(l, 2, 4, 3), f32(l, 2, 3, 2)),
    lambda l: l.baddbmm(l.ones(2, 2, 2, dtype=l.int64), f32(l, 2, 2, 2), f32(l, 2, 2, 2)),
    lambda l: l.mm(f32(l, 4, 3), f32(l, 3, 2), out=l.ones(4, 2, dtype=l.float64)),
    lambda l: l.dot(f32(l, 2), f32(l, 2), out=l.ones((), dtype=l.int64)),
]


@pytest.mark.parametrize("fn", ERRORS)
def test_error_messages(fn):
    ours, theirs = both(fn)
    assert type(ours) is type(theirs)
    assert str(ours) == str(theirs).split("\n")[0]


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,i->", [(5,), (5,)]), ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]), ("ij->j", [(3, 4)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]), ("i,j->ij", [(3,), (4,)]), ("ij,jk", [(3, 4), (4, 5)]),
    ("ijk,ikl,lm->jm", [(2, 3, 4), (2, 4, 5), (5, 2)]), ("bij,j->bi", [(2, 3, 4), (4,)]),
    ("ij,ij->i", [(3, 4), (3, 4)]), ("aij,ajk->ik", [(2, 3, 4), (1, 4, 5)]),
    ("ij,jk->ik", [(0, 4), (4, 5)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM)
def test_einsum(eq, shapes):
    arrs = [rand(s, np.float64) for s in shapes]
    got = mt.einsum(eq, *[mt.from_numpy(a) for a in arrs])
    check(got, torch.einsum(eq, *[torch.from_numpy(a) for a in arrs]).numpy(), np.float64)


@pytest.mark.parametrize("sa,sb,dims", [
    ((3, 4), (4, 5), 1), ((2, 3, 4), (3, 4, 5), 2), ((3, 4, 5), (5, 4, 2), ([1, 2], [1, 0])),
    ((3,), (4,), 0), ((2, 3), (2, 3), 2),
])
def test_tensordot(sa, sb, dims):
    a, b = rand(sa, np.float64), rand(sb, np.float64)
    got = mt.tensordot(mt.from_numpy(a), mt.from_numpy(b), dims=dims)
    expected = torch.tensordot(torch.from_numpy(a), torch.from_numpy(b), dims=dims)
    check(got, expected.numpy(), np.float64)


@pytest.mark.parametrize("fn", [
    lambda l: l.tensordot(f32(l, 3, 4), f32(l, 5, 5), dims=1),
    lambda l: l.einsum("ij,jk->ik", f32(l, 3, 4), f32(l, 5, 5)),
])
def test_contraction_errors(fn):
    ours, theirs = both(fn)
    assert type(ours) is type(theirs)
    assert str(ours) == str(theirs).split("\n")[0]
