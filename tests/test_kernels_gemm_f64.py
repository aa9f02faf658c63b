"""float64 products on the register-blocked kernel (kernels/gemm/gemm_small.c's
float64 levels, driven by mt_gemm's row panels like float32): the small
products below the BLAS threshold, and every size with MINITORCH_BLAS=none.
Checked against torch in a fresh process at each kernel level, on sizes that
leave partial row blocks (m % 4) and a column remainder past the last 8
(n < 8 included), with A and B read in place, transposed or strided, addmm's
bias and other alpha and beta, a transposed out=, bmm, broadcast matmul and
linear's gradients. The levels that fuse (AVX-512, AVX2 + FMA) sum each term
in the same order, so they must give the same bits; so must 1 and 2
threads."""
import textwrap

import numpy as np
import pytest

import minitorch as mt
from kernel_levels import LEVELS, run_at_level

torch = pytest.importorskip("torch")


CHILD = textwrap.dedent("""
    import sys
    import numpy as np, torch, minitorch as mt

    rng = np.random.default_rng(7)
    torch.manual_seed(7)
    results = []

    def mt_of(a, how):
        if how == "t":
            return mt.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).transpose(-1, -2)
        if how == "s":
            w = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,))
            w[..., 1::2] = a
            return mt.tensor(w)[..., 1::2]
        return mt.tensor(a)

    def check(got, want, k):
        got = got.detach().numpy() if hasattr(got, "detach") else got
        want = want.detach().numpy() if hasattr(want, "detach") else want
        assert got.dtype == np.float64 and got.shape == want.shape, (got.dtype, got.shape)
        tol = 1e-14 * max(1, k) ** 0.5
        scale = max(1.0, float(np.abs(want).max()))
        np.testing.assert_allclose(got, want, rtol=tol * 10, atol=tol * scale)
        results.append(got)

    shapes = [(1, 1, 1), (4, 4, 3), (5, 7, 9), (8, 8, 8), (7, 9, 13), (12, 16, 5),
              (13, 17, 33), (33, 23, 31), (4, 40, 64), (64, 3, 20), (70, 65, 1),
              (2, 70, 47), (47, 47, 47), (9, 1, 70), (130, 12, 60), (257, 11, 33),
              (100, 100, 100), (300, 37, 129)]
    for i, (m, n, k) in enumerate(shapes):
        a = rng.standard_normal((m, k))
        b = rng.standard_normal((k, n))
        ta, tb = torch.tensor(a), torch.tensor(b)
        for ha in ("c", "t", "s"):
            for hb in ("c", "t", "s"):
                check(mt.mm(mt_of(a, ha), mt_of(b, hb)), ta @ tb, k)
        bias = rng.standard_normal(n)
        check(mt.addmm(mt.tensor(bias), mt.tensor(a), mt_of(b, "t")),
              torch.addmm(torch.tensor(bias), ta, tb), k)
        c0 = rng.standard_normal((m, n))
        check(mt.addmm(mt.tensor(c0), mt_of(a, "s"), mt.tensor(b), beta=2.0, alpha=0.5),
              torch.addmm(torch.tensor(c0), ta, tb, beta=2.0, alpha=0.5), k)
        out = mt.empty(n, m, dtype=mt.float64).t()
        mt.mm(mt.tensor(a), mt.tensor(b), out=out)
        check(out, ta @ tb, k)
        x = rng.standard_normal((3, m, k))
        y = rng.standard_normal((3, k, n))
        check(mt.bmm(mt_of(x, "t"), mt.tensor(y)), torch.bmm(torch.tensor(x), torch.tensor(y)), k)
        check(mt.matmul(mt.tensor(x), mt.tensor(b)), torch.tensor(x) @ tb, k)
        x4 = rng.standard_normal((2, 1, m, k))
        check(mt.matmul(mt.tensor(x4), mt.tensor(y)), torch.tensor(x4) @ torch.tensor(y), k)

    for bias in (True, False):
        tl = torch.nn.Linear(37, 13, bias=bias).double()
        ml = mt.nn.Linear(37, 13, bias=bias, dtype=mt.float64)
        for name, p in tl.named_parameters():
            getattr(ml, name).data.copy_(mt.tensor(p.detach().numpy()))
        xs = rng.standard_normal((3, 21, 37))
        tx = torch.tensor(xs, requires_grad=True)
        mx = mt.tensor(xs, requires_grad=True)
        to, mo = tl(tx), ml(mx)
        g = rng.standard_normal(to.shape)
        to.backward(torch.tensor(g))
        mo.backward(mt.tensor(g))
        check(mo, to, 37)
        check(mx.grad, tx.grad, 13)
        for name, p in tl.named_parameters():
            check(getattr(ml, name).grad, p.grad, 63)
    np.savez(sys.argv[1], *results)
    print("ok")
""")

# the levels with BLAS off too, so matmul's every product reaches the kernel
F64_LEVELS = dict(LEVELS, **{
    "best-noblas": {"MINITORCH_BLAS": "none"},
    "avx2-noblas": {"MINITORCH_BLAS": "none", "MINITORCH_SMALL_GEMM": "avx2"}})


def run_level(level, path):
    run_at_level(CHILD, F64_LEVELS[level], path)
    with np.load(path) as z:
        return [z[f] for f in z.files]


@pytest.mark.parametrize("level", sorted(F64_LEVELS))
def test_products_match_torch_at_every_level(level, tmp_path):
    run_level(level, tmp_path / "out.npz")


def test_fused_levels_give_the_same_bits(tmp_path):
    if not mt._C._build_info()["cpu_avx2_fma"]:
        pytest.skip("no AVX2 + FMA level on this CPU")
    got = [run_level(level, tmp_path / f"{level}.npz")
           for level in ("best-noblas", "avx2-noblas")]
    assert len(got[0]) == len(got[1]) > 100
    for x, y in zip(*got):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("m,n,k", [(130, 17, 33), (64, 5, 100), (1000, 12, 20), (40, 40, 40)])
def test_thread_split_changes_no_bit(m, n, k):
    rng = np.random.default_rng(m + n + k)
    a = mt.tensor(rng.standard_normal((m, k)))
    b = mt.tensor(rng.standard_normal((n, k))).t()
    c0 = mt.tensor(rng.standard_normal((m, n)))
    before = mt.get_num_threads()
    got = []
    try:
        for threads in (1, 2):
            mt.set_num_threads(threads)
            got.append([(a @ b).numpy(), mt.addmm(c0, a, b, beta=0.5).numpy()])
    finally:
        mt.set_num_threads(before)
    for x, y in zip(*got):
        np.testing.assert_array_equal(x, y)
