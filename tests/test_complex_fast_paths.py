"""The complex kernels' fast paths against torch: elementwise mul by torch's
plain formula (its NaN where C's Annex G would recover an infinity), abs of
complex128 by the plain formula within the safe range and hypot outside it,
and the one-pass sum/mean of a whole contiguous tensor (lengths around the
vector and block sizes, empty, 0-dim; strided and partial reductions keep
the general path)."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

CDTYPES = ["complex64", "complex128"]
INF, NAN = float("inf"), float("nan")


def both(v, dtype):
    a = np.asarray(v).astype(dtype)
    return mt.from_numpy(a.copy()), torch.from_numpy(a.copy())


def check(got, want, **tol):
    assert str(got.dtype)[len("minitorch."):] == str(want.dtype)[len("torch."):]
    assert tuple(got.shape) == tuple(want.shape)
    g = torch.from_numpy(np.array(got.numpy()))
    torch.testing.assert_close(g, want, equal_nan=True, **tol)


SPECIAL = [0, 1j, -1, complex(INF, 0), complex(INF, INF), complex(NAN, 1), complex(-0.0, -0.0),
           complex(0, -INF), 1e30 + 1e30j, 1e-30 - 1e-30j, 3 - 4j]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", [1, 7, 64])
def test_mul_special_values(dtype, n):
    xs = np.array([a for a in SPECIAL for _ in SPECIAL] * 1)
    ys = np.array([b for _ in SPECIAL for b in SPECIAL])
    # both the vector body and the scalar tail of the loop
    reps = max(1, n // len(xs))
    x, tx = both(np.tile(xs, reps), dtype)
    y, ty = both(np.tile(ys, reps), dtype)
    check(x * y, tx * ty)
    m = len(xs) * reps // 2
    check(x[::2][:m] * y[1::2][:m], tx[::2][:m] * ty[1::2][:m])
    check(x * (2 - 1j), tx * (2 - 1j))
    got = mt.tensor([complex(INF, INF)] * 9, dtype=getattr(mt, dtype)) * (1 + 0j)
    assert all(np.isnan(v) for v in got.numpy())


@pytest.mark.parametrize("scale", [1.0, 1e-160, 1e160, 1e300, 1e-310, 1e151, 1e-151])
def test_abs_complex128_across_ranges(scale):
    rng = np.random.default_rng(1)
    v = (rng.standard_normal(100) + 1j * rng.standard_normal(100)) * scale
    x, tx = both(v, "complex128")
    # within an ulp or two of torch's (Sleef's) and NumPy's hypot
    check(x.abs(), tx.abs(), rtol=4.5e-16, atol=1e-323)
    assert np.allclose(x.abs().numpy(), np.abs(v), rtol=4.5e-16, atol=1e-323)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_abs_special_values(dtype):
    x, tx = both(SPECIAL + [complex(NAN, INF), complex(1e200, 1e-200), complex(1e-200, 1e200)],
                 dtype)
    check(x.abs(), tx.abs())


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", [0, 1, 3, 15, 16, 17, 1023, 1024, 1025, 2048 * 3 + 5, 100000])
def test_whole_sum_and_mean(dtype, n):
    rng = np.random.default_rng(n)
    x, tx = both(rng.standard_normal(n) + 1j * rng.standard_normal(n), dtype)
    tol = {} if dtype == "complex128" else {"rtol": 1e-5, "atol": 1e-4}
    check(x.sum(), tx.sum(), **tol)
    check(x.mean(), tx.mean(), **tol)
    check(mt.sum(x.reshape(-1, 1) if n else x), torch.sum(tx.reshape(-1, 1) if n else tx), **tol)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_sum_paths_agree(dtype):
    rng = np.random.default_rng(3)
    v = rng.standard_normal((40, 30)) + 1j * rng.standard_normal((40, 30))
    x, tx = both(v, dtype)
    tol = {} if dtype == "complex128" else {"rtol": 1e-5, "atol": 1e-4}
    check(x.sum(), tx.sum(), **tol)
    check(x.t().sum(), tx.t().sum(), **tol)          # not contiguous: general path
    check(x[:, ::3].mean(), tx[:, ::3].mean(), **tol)
    check(x.sum(0), tx.sum(0), **tol)
    check(x.mean((0, 1), keepdim=True), tx.mean((0, 1), keepdim=True), **tol)
    s, ts = both(2 - 3j, dtype)
    check(s.sum(), ts.sum())
    check(s.mean(), ts.mean())
    special, tspecial = both(SPECIAL, dtype)
    check(special.sum(), tspecial.sum())
    out = mt.empty((), dtype=getattr(mt, dtype))
    check(mt.sum(x, (0, 1), out=out), torch.sum(tx, (0, 1)), **tol)
    check(out, torch.sum(tx), **tol)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", [32767, 32768, 32769, 100_003, 1 << 20])
def test_whole_sum_in_chunks_same_bits_at_any_thread_count(dtype, n):
    # a whole tensor's sum is taken in fixed chunks summed on the threads and
    # added in order: torch's value, and the same bits on one thread as on two
    rng = np.random.default_rng(n)
    x, tx = both(rng.standard_normal(n) + 1j * rng.standard_normal(n), dtype)
    before = mt.get_num_threads()
    try:
        got = []
        for nt in (1, 2):
            mt.set_num_threads(nt)
            got.append(x.sum().item())
    finally:
        mt.set_num_threads(before)
    assert got[0] == got[1]
    tol = {} if dtype == "complex128" else {"rtol": 1e-5, "atol": 1e-3}
    check(x.sum(), tx.sum(), **tol)
