"""Complex matrix products (cgemm/zgemm) against torch: mm, bmm, matmul, mv,
addmm, addmv, baddbmm, addbmm, dot, vdot, inner, outer, einsum and tensordot
over shapes with a row or a column of one, batches (broadcast too), empty
dims, transposed, strided and conjugated operands, complex alpha and beta,
out=, and complex with real operands."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")
from kernel_levels import LEVELS, run_at_level  # noqa: E402
from torch_pairs import random_pair  # noqa: E402

CDTYPES = ["complex64", "complex128"]


def check(got, want):
    assert str(got.dtype)[len("minitorch."):] == str(want.dtype)[len("torch."):]
    assert tuple(got.shape) == tuple(want.shape)
    g = torch.from_numpy(np.array(got.detach().numpy()))
    # sums of up to a few thousand products, accumulated in another order
    # than torch's BLAS call (cdotc, gemv): float32 rounding, times the length
    tol = {} if got.dtype == mt.complex128 else {"rtol": 1e-5, "atol": 1e-4}
    torch.testing.assert_close(g, want.detach(), equal_nan=True, **tol)


# (m, k, n): rows and columns of one, k of one, empty dims, BLAS-sized ones;
# the AVX-512 kernel's smallest product, one past its row, depth and column
# blocks (96 rows, 128 steps, 6 rows x 8 or 16 columns) with partial ones,
# exactly on and one short of them (whole blocks only, a last step block of
# one); from 256 columns its wide blocks (4 rows x 12 or 24 columns), whole,
# partial and one short
MKN = [(3, 4, 5), (1, 7, 6), (6, 7, 1), (1, 9, 1), (5, 1, 4), (0, 3, 4), (3, 0, 4), (3, 4, 0),
       (64, 48, 80), (130, 70, 33), (4, 3, 4), (203, 300, 37), (96, 128, 32), (95, 127, 15),
       (97, 129, 17), (12, 257, 8), (4, 5, 264), (9, 131, 268), (99, 3, 287)]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("m,k,n", MKN)
def test_mm_layouts(dtype, m, k, n):
    a, ta = random_pair((m, k), dtype, 1)
    b, tb = random_pair((k, n), dtype, 2)
    check(mt.mm(a, b), torch.mm(ta, tb))
    # transposed operands (column-major), each and both
    at, tat = random_pair((k, m), dtype, 3)
    bt, tbt = random_pair((n, k), dtype, 4)
    check(mt.mm(at.t(), b), torch.mm(tat.t(), tb))
    check(mt.mm(a, bt.t()), torch.mm(ta, tbt.t()))
    check(mt.mm(at.t(), bt.t()), torch.mm(tat.t(), tbt.t()))
    # strided operands no BLAS layout reads (packed)
    aw, taw = random_pair((m, 2 * k + 1), dtype, 5)
    bw, tbw = random_pair((2 * k, 3 * n), dtype, 6)
    check(mt.mm(aw[:, ::2][:, :k], bw[::2, ::3]), torch.mm(taw[:, ::2][:, :k], tbw[::2, ::3]))
    # conjugated operands, as the autograd formulas make them
    check(mt.mm(at.conj().t(), b.conj()), torch.mm(tat.conj().t(), tb.conj()))
    check(a @ b, ta @ tb)


def test_mm_layouts_on_the_blas():
    """MINITORCH_NO_AVX512 sends the products the AVX-512 kernel takes to
    cgemm/zgemm: the same cases in a child on that path."""
    code = ("import test_complex_matmul as t\n"
            "for d in t.CDTYPES:\n"
            "    for mkn in t.MKN:\n"
            "        t.test_mm_layouts(d, *mkn)\n"
            "print('ok')\n")
    run_at_level(code, LEVELS["no-avx512"])


@pytest.mark.parametrize("dtype", CDTYPES)
def test_mm_into_strided_and_transposed_out(dtype):
    a, ta = random_pair((5, 6), dtype, 7)
    b, tb = random_pair((6, 4), dtype, 8)
    for make in (lambda lib: lib.zeros(4, 5, dtype=getattr(lib, dtype)).t(),
                 lambda lib: lib.zeros(5, 8, dtype=getattr(lib, dtype))[:, ::2],
                 lambda lib: lib.zeros(10, 4, dtype=getattr(lib, dtype))[::2]):
        out, tout = make(mt), make(torch)
        assert mt.mm(a, b, out=out) is out
        torch.mm(ta, tb, out=tout)
        check(out, tout)
    # out= of another shape is resized
    out, tout = mt.empty(0, dtype=getattr(mt, dtype)), torch.empty(0, dtype=getattr(torch, dtype))
    check(mt.mm(a, b, out=out), torch.mm(ta, tb, out=tout))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        mt.mm(a, b, out=mt.empty(5, 4))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shapes", [((4, 3, 5), (4, 5, 2)), ((1, 1, 7), (1, 7, 1)),
                                    ((3, 1, 4), (3, 4, 6)), ((0, 2, 3), (0, 3, 4)),
                                    ((6, 40, 30), (6, 30, 50))])
def test_bmm(dtype, shapes):
    a, ta = random_pair(shapes[0], dtype, 9)
    b, tb = random_pair(shapes[1], dtype, 10)
    check(mt.bmm(a, b), torch.bmm(ta, tb))
    check(mt.bmm(a.transpose(1, 2).contiguous().transpose(1, 2), b),
          torch.bmm(ta.transpose(1, 2).contiguous().transpose(1, 2), tb))
    check(mt.bmm(a, b.transpose(1, 2).contiguous().transpose(1, 2).conj()),
          torch.bmm(ta, tb.transpose(1, 2).contiguous().transpose(1, 2).conj()))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shapes", [((4, 3, 5), (4, 5, 2)), ((1, 1, 7), (1, 7, 1)),
                                    ((3, 1, 4), (3, 4, 6)), ((0, 2, 3), (0, 3, 4)),
                                    ((6, 40, 30), (6, 30, 50))])
def test_baddbmm_addbmm(dtype, shapes):
    a, ta = random_pair(shapes[0], dtype, 9)
    b, tb = random_pair(shapes[1], dtype, 10)
    c, tc = random_pair((shapes[0][0], shapes[0][1], shapes[1][2]), dtype, 11)
    check(mt.baddbmm(c, a, b), torch.baddbmm(tc, ta, tb))
    check(mt.baddbmm(c, a, b, beta=0.5 - 1j, alpha=2j), torch.baddbmm(tc, ta, tb, beta=0.5 - 1j,
                                                                      alpha=2j))
    c2, tc2 = random_pair((shapes[0][1], shapes[1][2]), dtype, 12)
    check(mt.addbmm(c2, a, b), torch.addbmm(tc2, ta, tb))
    check(mt.addbmm(c2, a, b, beta=1j, alpha=-1 + 0.5j),
          torch.addbmm(tc2, ta, tb, beta=1j, alpha=-1 + 0.5j))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shapes", [((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
                                    ((4,), (3, 4, 2)), ((3, 2, 4), (4,)), ((7,), (7,)),
                                    ((3, 4), (4,)), ((4,), (4, 3)), ((2, 0, 4), (4, 3))])
def test_matmul_shapes(dtype, shapes):
    a, ta = random_pair(shapes[0], dtype, 13)
    b, tb = random_pair(shapes[1], dtype, 14)
    check(mt.matmul(a, b), torch.matmul(ta, tb))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("alpha,beta", [(1, 1), (2j, 0.5), (1 - 1j, 0), (0, 1j), (-0.5, 2 + 3j)])
def test_addmm_addmv_scales(dtype, alpha, beta):
    a, ta = random_pair((5, 6), dtype, 15)
    b, tb = random_pair((6, 3), dtype, 16)
    for cshape in ((5, 3), (3,), (1, 3), ()):
        c, tc = random_pair(cshape, dtype, 17)
        check(mt.addmm(c, a, b, beta=beta, alpha=alpha),
              torch.addmm(tc, ta, tb, beta=beta, alpha=alpha))
    v, tv = random_pair((6,), dtype, 18)
    c, tc = random_pair((5,), dtype, 19)
    check(mt.addmv(c, a, v, beta=beta, alpha=alpha), torch.addmv(tc, ta, tv, beta=beta,
                                                                 alpha=alpha))
    c, tc = random_pair((5, 3), dtype, 20)
    c.addmm_(a, b, beta=beta, alpha=alpha)
    tc.addmm_(ta, tb, beta=beta, alpha=alpha)
    check(c, tc)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_beta_zero_ignores_nan(dtype):
    a, ta = random_pair((4, 3), dtype, 21)
    b, tb = random_pair((3, 2), dtype, 22)
    c = mt.full((4, 2), complex(float("nan"), float("nan")), dtype=getattr(mt, dtype))
    tc = torch.full((4, 2), complex(float("nan"), float("nan")), dtype=getattr(torch, dtype))
    check(mt.addmm(c, a, b, beta=0), torch.addmm(tc, ta, tb, beta=0))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("m,n", [(5, 7), (1, 7), (7, 1), (0, 3), (3, 0), (200, 90)])
def test_mv(dtype, m, n):
    a, ta = random_pair((m, n), dtype, 23)
    v, tv = random_pair((n,), dtype, 24)
    check(mt.mv(a, v), torch.mv(ta, tv))
    check(mt.mv(a.t().contiguous().t(), v), torch.mv(ta.t().contiguous().t(), tv))
    w, tw = random_pair((2 * n,), dtype, 25)
    check(mt.mv(a, w[::2]), torch.mv(ta, tw[::2]))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", [0, 1, 5, 1000])
def test_dot_vdot_inner(dtype, n):
    x, tx = random_pair((n,), dtype, 26)
    y, ty = random_pair((2 * n,), dtype, 27)
    for xs, txs in ((x, tx), (y[::2], ty[::2])):
        check(mt.dot(xs, y[1::2]), torch.dot(txs, ty[1::2]))
        check(mt.vdot(xs, y[1::2]), torch.vdot(txs, ty[1::2]))
        check(mt.inner(xs, y[1::2]), torch.inner(txs, ty[1::2]))
    check(mt.vdot(x, x), torch.vdot(tx, tx))
    if n:
        v = mt.vdot(x, x)
        assert abs(v.item().imag) <= 1e-6 * abs(v.item().real)
    out = mt.empty((), dtype=getattr(mt, dtype))
    tout = torch.empty((), dtype=getattr(torch, dtype))
    check(mt.vdot(x, y[:n], out=out), torch.vdot(tx, ty[:n], out=tout))
    check(out, tout)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_vdot_of_a_real_first_operand(dtype):
    x = np.arange(4.0)
    y, ty = random_pair((4,), dtype, 28)
    rd = "float32" if dtype == "complex64" else "float64"
    with pytest.raises(RuntimeError) as got:
        mt.vdot(mt.tensor(x, dtype=getattr(mt, rd)), y)
    with pytest.raises(RuntimeError) as want:
        torch.vdot(torch.tensor(x, dtype=getattr(torch, rd)), ty)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_inner_outer_einsum_tensordot(dtype):
    a, ta = random_pair((3, 4, 5), dtype, 29)
    b, tb = random_pair((6, 5), dtype, 30)
    check(mt.inner(a, b), torch.inner(ta, tb))
    v, tv = random_pair((4,), dtype, 31)
    w, tw = random_pair((7,), dtype, 32)
    check(mt.outer(v, w), torch.outer(tv, tw))
    check(mt.einsum("ijk,lk->ijl", a, b), torch.einsum("ijk,lk->ijl", ta, tb))
    check(mt.einsum("ijk,j->ik", a, v), torch.einsum("ijk,j->ik", ta, tv))
    check(mt.einsum("i,i->", v, v), torch.einsum("i,i->", tv, tv))
    check(mt.einsum("bij,bjk->bik", a[:, :, :4], a), torch.einsum("bij,bjk->bik", ta[:, :, :4], ta))
    check(mt.tensordot(a, b, dims=([2], [1])), torch.tensordot(ta, tb, dims=([2], [1])))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_complex_with_real_operands(dtype):
    rd = "float32" if dtype == "complex64" else "float64"
    a, ta = random_pair((3, 4), dtype, 33)
    r = np.random.default_rng(34).standard_normal((4, 2))
    b, tb = mt.tensor(r, dtype=getattr(mt, rd)), torch.tensor(r, dtype=getattr(torch, rd))
    # the products refuse mixed dtypes in torch's words; outer promotes
    for f in (lambda lib, x, y: lib.mm(x, y), lambda lib, x, y: lib.matmul(x, y),
              lambda lib, x, y: lib.mm(y.t(), x.t())):
        with pytest.raises(RuntimeError) as got:
            f(mt, a, b)
        with pytest.raises(RuntimeError) as want:
            f(torch, ta, tb)
        assert str(got.value) == str(want.value)
    check(mt.outer(a[0], b[:, 0]), torch.outer(ta[0], tb[:, 0]))
    check(mt.mm(a, b.to(getattr(mt, dtype))), torch.mm(ta, tb.to(getattr(torch, dtype))))
    with pytest.raises(RuntimeError) as got:
        mt.mm(a, b, out=mt.empty(3, 2, dtype=getattr(mt, dtype)))
    with pytest.raises(RuntimeError) as want:
        torch.mm(ta, tb, out=torch.empty(3, 2, dtype=getattr(torch, dtype)))
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_special_values_propagate(dtype):
    a, ta = random_pair((3, 3), dtype, 35)
    b, tb = random_pair((3, 3), dtype, 36)
    a[1, 2] = complex(float("inf"), 0)
    ta[1, 2] = complex(float("inf"), 0)
    b[0, 0] = complex(float("nan"), 1)
    tb[0, 0] = complex(float("nan"), 1)
    got, want = mt.mm(a, b), torch.mm(ta, tb)
    g = np.array(got.numpy())
    w = want.numpy()
    assert (np.isnan(g) == np.isnan(w)).all()
    assert (np.isinf(g) == np.isinf(w)).all()


@pytest.mark.parametrize("dtype", CDTYPES)
def test_product_gradients(dtype):
    a, ta = random_pair((4, 3), dtype, 37)
    b, tb = random_pair((3, 5), dtype, 38)
    g, tg = random_pair((4, 5), dtype, 39)
    a.requires_grad_()
    b.requires_grad_()
    ta.requires_grad_()
    tb.requires_grad_()
    (mt.mm(a, b) * g).abs().sum().backward()
    (torch.mm(ta, tb) * tg).abs().sum().backward()
    check(a.grad, ta.grad)
    check(b.grad, tb.grad)
