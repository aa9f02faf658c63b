"""float32 products that mt_gemm runs on its own register-blocked kernel
(kernels/gemm/gemm_small.c) instead of BLAS: k up to 1024 (A stored
transposed: up to 64 rows), where the AVX-512 level is in use. Checked against torch in a
fresh process at each kernel level (the AVX-512 one takes the own path,
MINITORCH_SMALL_GEMM=avx2 and MINITORCH_NO_AVX512 send the same products to
BLAS), on sizes that leave partial row blocks and a column remainder past the
last 16, with A and B read in place, transposed (B packed) or strided, a
bias added by the kernel (addmm, linear), other alpha and beta, a transposed
out=, batches, the limits of the own path, and the gradients of linear. The
row split over two threads must not change a bit."""
import textwrap

import numpy as np
import pytest

import minitorch as mt
from kernel_levels import LEVELS, run_at_level

torch = pytest.importorskip("torch")


CHILD = textwrap.dedent("""
    import numpy as np, torch, minitorch as mt

    rng = np.random.default_rng(5)

    def mt_of(a, how):
        t = mt.tensor(np.ascontiguousarray(a.T) if how == "t" else
                      (a if how == "c" else np.zeros((a.shape[0], 2 * a.shape[1] + 1),
                                                     np.float32)))
        if how == "t":
            return t.t()
        if how == "s":
            t[:, 1::2] = mt.tensor(a)
            return t[:, 1::2]
        return t

    def check(got, want, k):
        got = got.detach().numpy() if hasattr(got, "detach") else got
        tol = 2e-5 * max(1, k) ** 0.5
        scale = max(1.0, float(np.abs(want).max()))
        assert got.shape == want.shape, (got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=tol * 10, atol=tol * scale)

    shapes = [(1024, 384, 128), (1023, 65, 128), (65, 128, 1024), (3, 48, 70),
              (130, 17, 33), (64, 64, 32), (37, 200, 1), (20, 16, 1024),
              (40, 300, 1025), (70, 1100, 120), (33, 512, 1024), (20, 513, 64),
              (5, 1030, 64), (16, 1024, 1024), (17, 1100, 96)]
    for m, n, k in shapes:
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        want = a.astype(np.float64) @ b.astype(np.float64)
        for ha in ("c", "t", "s"):
            for hb in ("c", "t", "s"):
                check(mt.mm(mt_of(a, ha), mt_of(b, hb)), want, k)
        bias = rng.standard_normal(n).astype(np.float32)
        check(mt.addmm(mt.tensor(bias), mt.tensor(a), mt.tensor(b)), want + bias, k)
        c0 = rng.standard_normal((m, n)).astype(np.float32)
        check(mt.addmm(mt.tensor(c0), mt_of(a, "t"), mt.tensor(b), beta=2.0, alpha=0.5),
              2.0 * c0 + 0.5 * want, k)
        out = mt.empty(n, m).t()
        mt.mm(mt.tensor(a), mt.tensor(b), out=out)
        check(out, want, k)

    x = rng.standard_normal((6, 50, 80)).astype(np.float32)
    y = rng.standard_normal((6, 80, 90)).astype(np.float32)
    check(mt.bmm(mt.tensor(x), mt.tensor(y)), x.astype(np.float64) @ y, 80)

    for bias in (True, False):
        tl = torch.nn.Linear(128, 65, bias=bias)
        ml = mt.nn.Linear(128, 65, bias=bias)
        for name, p in tl.named_parameters():
            getattr(ml, name).data.copy_(mt.tensor(p.detach().numpy()))
        xs = rng.standard_normal((4, 37, 128)).astype(np.float32)
        tx = torch.tensor(xs, requires_grad=True)
        mx = mt.tensor(xs, requires_grad=True)
        to, mo = tl(tx), ml(mx)
        g = rng.standard_normal(to.shape).astype(np.float32)
        to.backward(torch.tensor(g))
        mo.backward(mt.tensor(g))
        check(mo, to.detach().numpy(), 128)
        check(mx.grad, tx.grad.numpy(), 65)
        for name, p in tl.named_parameters():
            check(getattr(ml, name).grad, p.grad.numpy(), 148)
    print("ok")
""")

@pytest.mark.parametrize("level", ["avx2", "best", "no-avx512"])
def test_products_match_torch_at_every_level(level):
    run_at_level(CHILD, LEVELS[level])


@pytest.mark.parametrize("m,n,k", [(1024, 384, 128), (1023, 65, 128), (65, 128, 1024),
                                   (130, 17, 33)])
def test_thread_split_changes_no_bit(m, n, k):
    rng = np.random.default_rng(m + n + k)
    a = mt.tensor(rng.standard_normal((m, k)).astype(np.float32))
    b = mt.tensor(rng.standard_normal((n, k)).astype(np.float32)).t()
    bias = mt.tensor(rng.standard_normal(n).astype(np.float32))
    before = mt.get_num_threads()
    got = []
    try:
        for threads in (1, 2):
            mt.set_num_threads(threads)
            got.append([(a @ b).numpy(), mt.addmm(bias, a, b).numpy()])
    finally:
        mt.set_num_threads(before)
    for x, y in zip(*got):
        np.testing.assert_array_equal(x, y)
