"""minitorch's own LU (csrc/kernels/lapack/lu.c) against torch: lu_factor's
pivots (LAPACK's partial pivoting) and factors at sizes around its panel
and substitution blocks up to 600, tall and wide, non-contiguous and
batched; singular matrices' info and errors; ill-conditioned ones; the
solves built on it (solve, lu_solve, solve_triangular, inv); NaN and
infinity; the same bits at one and two threads."""
import numpy as np
import pytest

import minitorch as mt
from linalg_pairs import to_np

torch = pytest.importorskip("torch")

TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-10, atol=1e-12)}
SIZES = [1, 2, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 100, 127, 128, 129, 255, 257, 511, 513,
         600]


def pair(a, dtype):
    return mt.tensor(a, dtype=getattr(mt, dtype)), torch.tensor(a, dtype=getattr(torch, dtype))


def general(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def close(got, want, dtype):
    """Equal to rounding, relative to the largest magnitude (solutions of
    random systems vary in size)."""
    want = want.numpy()
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(to_np(got) / scale, want / scale, **TOL[dtype])


def same_lu(a, dtype):
    """lu_factor_ex of a matches torch's: pivots exactly, info, factors to
    rounding (relative to the largest entry of U)."""
    m, t = pair(a, dtype)
    got, want = mt.linalg.lu_factor_ex(m), torch.linalg.lu_factor_ex(t)
    np.testing.assert_array_equal(to_np(got.pivots), want.pivots.numpy())
    np.testing.assert_array_equal(to_np(got.info), want.info.numpy())
    scale = max(1.0, float(np.abs(want.LU.numpy()).max()))
    np.testing.assert_allclose(to_np(got.LU) / scale, want.LU.numpy() / scale, **TOL[dtype])
    assert got.LU.stride() == want.LU.stride()
    return got


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_square_factors_and_pivots_match_torch(n, dtype):
    same_lu(general(n, n, seed=n), dtype)


@pytest.mark.parametrize("shape", [(70, 40), (40, 70), (3, 200), (200, 3), (129, 33), (33, 129),
                                   (600, 17), (17, 600), (1, 5), (5, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rectangular_factors_match_torch(shape, dtype):
    same_lu(general(*shape, seed=1), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_non_contiguous_and_batched_inputs(dtype):
    a = general(3, 90, 90, seed=2)
    m, t = pair(a, dtype)
    for got_in, want_in in [(m.mT, t.mT), (m[:, ::2, ::2], t[:, ::2, ::2]),
                            (m[1, 5:70, 3:68], t[1, 5:70, 3:68])]:
        got, want = mt.linalg.lu_factor(got_in), torch.linalg.lu_factor(want_in)
        np.testing.assert_array_equal(to_np(got.pivots), want.pivots.numpy())
        np.testing.assert_allclose(to_np(got.LU), want.LU.numpy(), **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(64, 32, 32), (5, 3, 7, 7), (2, 200, 200)])
def test_batched_solve_matches_torch(dtype, shape):
    a = general(*shape, seed=3) + 2 * np.eye(shape[-1])
    b = general(*shape[:-1], 8, seed=4)
    (m, t), (mb, tb) = pair(a, dtype), pair(b, dtype)
    close(mt.linalg.solve(m, mb), torch.linalg.solve(t, tb), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [5, 40, 100, 300])
@pytest.mark.parametrize("column", [0, 1, 16, 33, -1])
def test_singular_info_and_errors_match_torch(dtype, n, column):
    a = general(n, n, seed=5)
    a[:, column % n] = 0
    got = same_lu(a, dtype)
    assert int(got.info) > 0
    m, t = pair(a, dtype)
    with pytest.raises(RuntimeError) as want:
        torch.linalg.solve(t, t[:, :1])
    with pytest.raises(mt.linalg.LinAlgError) as err:
        mt.linalg.solve(m, m[:, :1])
    assert str(err.value) == str(want.value)
    with pytest.raises(RuntimeError) as want:
        torch.linalg.inv(t)
    with pytest.raises(mt.linalg.LinAlgError) as err:
        mt.linalg.inv(m)
    assert str(err.value) == str(want.value)


def test_batch_info_names_the_singular_element():
    a = general(4, 50, 50, seed=7)
    a[2, :, 20] = 0
    m, t = pair(a, "float64")
    np.testing.assert_array_equal(to_np(mt.linalg.lu_factor_ex(m).info),
                                  torch.linalg.lu_factor_ex(t).info.numpy())
    with pytest.raises(RuntimeError) as want:
        torch.linalg.solve(t, t[..., :1])
    with pytest.raises(mt.linalg.LinAlgError) as err:
        mt.linalg.solve(m, m[..., :1])
    assert str(err.value) == str(want.value)


@pytest.mark.parametrize("n", [8, 12, 60])
def test_ill_conditioned_matrices_match_torch(n):
    # graded columns (from 1 to 1e-12) and, while its pivots are still
    # above rounding noise, the Hilbert matrix (condition 1e10 at 8)
    i = np.arange(n)
    graded = general(n, n, seed=8) * np.logspace(0, -12, n)[None, :]
    for a in [graded] + ([1.0 / (i[:, None] + i[None, :] + 1)] if n <= 12 else []):
        same_lu(a, "float64")
        m, t = pair(a, "float64")
        b = general(n, 2, seed=9)
        x = to_np(mt.linalg.solve(m, mt.tensor(b)))
        want = torch.linalg.solve(t, torch.tensor(b)).numpy()
        # both as accurate as the conditioning allows: the same residual scale
        assert np.abs(a @ x - b).max() <= 10 * max(np.abs(a @ want - b).max(), 1e-14)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [3, 70, 300])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_forms_match_torch(dtype, n, left, adjoint):
    a = general(n, n, seed=10)
    b = general(n, 37, seed=11) if left else general(37, n, seed=11)
    (m, t), (mb, tb) = pair(a, dtype), pair(b, dtype)
    LU, piv = mt.linalg.lu_factor(m)
    tLU, tpiv = torch.linalg.lu_factor(t)
    got = mt.linalg.lu_solve(LU, piv, mb, left=left, adjoint=adjoint)
    want = torch.linalg.lu_solve(tLU, tpiv, tb, left=left, adjoint=adjoint)
    close(got, want, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_triangular_solves_match_torch(dtype, upper, unit):
    a = 0.1 * general(150, 150, seed=12) + 2 * np.eye(150)
    b = general(150, 70, seed=13)
    (m, t), (mb, tb) = pair(a, dtype), pair(b, dtype)
    got = mt.linalg.solve_triangular(m, mb, upper=upper, unitriangular=unit)
    close(got, torch.linalg.solve_triangular(t, tb, upper=upper, unitriangular=unit), dtype)


def test_zero_pivots_divide_as_torch():
    a = np.triu(general(6, 6, seed=14)) + 3 * np.eye(6)
    a[2, 2] = 0
    b = np.zeros((6, 3))
    b[4:, 1] = 1.0
    (m, t), (mb, tb) = pair(a, "float64"), pair(b, "float64")
    got = to_np(mt.linalg.solve_triangular(m, mb, upper=True))
    want = torch.linalg.solve_triangular(t, tb, upper=True).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    np.testing.assert_allclose(got[np.isfinite(want)], want[np.isfinite(want)], rtol=1e-12)
    a = general(6, 6, seed=14)
    a[:, 2] = 0
    (m, t), (mb, tb) = pair(a, "float64"), pair(b, "float64")
    for adjoint in (False, True):
        got = to_np(mt.linalg.lu_solve(*mt.linalg.lu_factor_ex(m)[:2], mb, adjoint=adjoint))
        want = torch.linalg.lu_solve(*torch.linalg.lu_factor_ex(t)[:2], tb,
                                     adjoint=adjoint).numpy()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [40, 260])
def test_inverse_matches_torch(dtype, n):
    m, t = pair(general(n, n, seed=15) + 4 * np.eye(n), dtype)
    close(mt.linalg.inv(m), torch.linalg.inv(t), dtype)


@pytest.mark.parametrize("place", [(2, 3), (0, 0), (4, 0), (1, 1)])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_entries_behave_as_torch(place, value):
    a = general(6, 6, seed=16)
    a[place] = value
    for dtype in ("float32", "float64"):
        m, t = pair(a, dtype)
        got, want = mt.linalg.lu_factor_ex(m), torch.linalg.lu_factor_ex(t)
        np.testing.assert_array_equal(to_np(got.pivots), want.pivots.numpy())
        np.testing.assert_array_equal(to_np(got.info), want.info.numpy())
        np.testing.assert_allclose(to_np(got.LU), want.LU.numpy(), equal_nan=True, **TOL[dtype])


# float32 only: float64's products are OpenBLAS's dgemm, which picks its
# kernel by the size of each thread's share of a product
@pytest.mark.parametrize("dtype", ["float32"])
@pytest.mark.parametrize("shape", [(512, 512), (300, 200), (200, 300), (16, 65, 65)])
def test_same_bits_at_one_and_two_threads(dtype, shape):
    a = general(*shape, seed=17)
    b = general(*shape[:-1], 9, seed=18) if shape[-1] == shape[-2] else None
    m = mt.tensor(a, dtype=getattr(mt, dtype))
    before = mt.get_num_threads()
    results = []
    try:
        for threads in (1, 2):
            mt.set_num_threads(threads)
            LU, piv = mt.linalg.lu_factor(m)
            out = [to_np(LU), to_np(piv)]
            if b is not None:
                out.append(to_np(mt.linalg.solve(m, mt.tensor(b, dtype=m.dtype))))
            results.append(out)
    finally:
        mt.set_num_threads(before)
    for one, two in zip(*results):
        np.testing.assert_array_equal(one, two)
