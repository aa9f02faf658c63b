"""linalg argument handling found through PyTorch's own test_linalg.py:
pinv's rcond (torch's older name for rtol, also positional), and torch's
messages for pinv and lstsq inputs of too few dimensions, lstsq's row
mismatch for a vector right-hand side, string-order norms of 1-D inputs, and
cond of singular matrices (inf, the others of the batch unaffected)."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def outcome(fn):
    try:
        r = fn()
    except (RuntimeError, IndexError, TypeError) as e:
        return type(e).__name__, str(e)
    return "ok", [round(v, 10) for v in r.double().flatten().tolist()]


@pytest.mark.parametrize("case", ["pinv_rcond_kw", "pinv_rcond_pos", "pinv_rcond_tensor",
                                  "pinv_rcond_hermitian", "pinv_1d", "pinv_0d",
                                  "lstsq_1d_input", "lstsq_0d_other", "lstsq_vector_rows",
                                  "lstsq_matrix_rows", "norm_fro_1d", "norm_nuc_0d",
                                  "norm_fro_3d"])
def test_matches_torch(case):
    def run(lib):
        g = lib.Generator().manual_seed(0) if lib is torch else None
        a = lib.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 1e-9]], dtype=lib.float64)
        r = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64)
        del g
        return {
            "pinv_rcond_kw": lambda: lib.linalg.pinv(a, rcond=1e-3),
            "pinv_rcond_pos": lambda: lib.linalg.pinv(a, 1e-3),
            "pinv_rcond_tensor": lambda: lib.linalg.pinv(a, rcond=lib.tensor(1e-3)),
            "pinv_rcond_hermitian": lambda: lib.linalg.pinv(a, 1e-3, True),
            "pinv_1d": lambda: lib.linalg.pinv(lib.ones(3)),
            "pinv_0d": lambda: lib.linalg.pinv(lib.tensor(2.0, dtype=lib.float64)),
            "lstsq_1d_input": lambda: lib.linalg.lstsq(lib.ones(3), lib.ones(3)).solution,
            "lstsq_0d_other": lambda: lib.linalg.lstsq(r, lib.tensor(1.0, dtype=lib.float64)
                                                       ).solution,
            "lstsq_vector_rows": lambda: lib.linalg.lstsq(r, lib.ones(3, dtype=lib.float64)
                                                          ).solution,
            "lstsq_matrix_rows": lambda: lib.linalg.lstsq(r, lib.ones(3, 1, dtype=lib.float64)
                                                          ).solution,
            "norm_fro_1d": lambda: lib.linalg.norm(lib.ones(4), "fro"),
            "norm_nuc_0d": lambda: lib.linalg.norm(lib.tensor(1.0), "nuc"),
            "norm_fro_3d": lambda: lib.linalg.norm(lib.ones(2, 2, 2), "fro"),
        }[case]

    assert outcome(run(mt)) == outcome(run(torch))


@pytest.mark.parametrize("p", [1, -1, float("inf"), float("-inf"), "fro", "nuc", 2, None])
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_cond_of_singular_matrices_in_a_batch_is_inf(p, dtype):
    def run(lib):
        a = lib.eye(3, dtype=getattr(lib, dtype)).reshape(1, 3, 3).repeat(3, 1, 1) * 2
        a[1, -1, -1] = 0
        a[2, 0, 1] = 0.5
        r = lib.linalg.cond(a, p)
        return str(r.dtype).split(".")[1], r.tolist()

    got, want = run(mt), run(torch)
    assert got[0] == want[0]
    assert got[1] == pytest.approx(want[1], rel=1e-5)


@pytest.mark.parametrize("shape", [(3, 4, 5, 5), (4, 6, 3), (0, 3, 5), (3, 3)], ids=str)
@pytest.mark.parametrize("kind", ["batch", "last_batch_dim", "float"])
def test_tolerance_tensors_hold_one_value_per_matrix(shape, kind):
    # matrix_rank's and pinv's atol/rtol tensors broadcast against the batch dims
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape)
    batch = shape[:-2] if kind == "batch" else shape[-3:-2]
    t = np.abs(rng.standard_normal(batch)) * 2

    def run(lib):
        a = lib.tensor(x)
        tol = 1.5 if kind == "float" else lib.tensor(t)
        return (lib.linalg.matrix_rank(a, atol=tol).tolist(),
                lib.linalg.matrix_rank(a, tol=tol).tolist(),
                np.asarray(lib.linalg.pinv(a, atol=tol).tolist()),
                np.asarray(lib.linalg.pinv(a, rtol=tol).tolist()),
                np.asarray(lib.linalg.pinv(a, rcond=tol).tolist()))

    got, want = run(mt), run(torch)
    assert got[:2] == want[:2]
    for g, w in zip(got[2:], want[2:]):
        np.testing.assert_allclose(g, w, atol=1e-10)


@pytest.mark.parametrize("a_shape,b_shape", [((2, 1, 0), (2, 1, 0)), ((3, 0), (3, 2)),
                                             ((2, 3, 0), (2, 3, 2)), ((2, 2, 3, 0), (2, 2, 3, 0)),
                                             ((2, 2, 0, 0), (2, 2, 0, 0)), ((4, 2), (4, 3)),
                                             ((2, 4, 2), (2, 4, 1))], ids=str)
@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_results_of_empty_inputs(a_shape, b_shape, driver):
    # an overdetermined system with no columns still has residuals, one per right-hand side
    rng = np.random.default_rng(4)
    a, b = rng.random(a_shape), rng.random(b_shape)
    got = mt.linalg.lstsq(mt.tensor(a), mt.tensor(b), driver=driver)
    want = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(np.asarray(g.tolist()).reshape(w.shape), w.numpy(), atol=1e-10)


@pytest.mark.parametrize("case", ["pinv_rcond", "pinv_atol", "pinv_rtol", "pinv_atol_rtol",
                                  "rank_atol", "rank_tol", "norm_dim_range", "matrix_norm_range",
                                  "matrix_norm_same"])
def test_tolerance_and_dim_errors(case):
    def run(lib):
        a = lib.ones(3, 3)
        c = lib.full((), 1j)
        return {
            "pinv_rcond": lambda: lib.linalg.pinv(a, rcond=c),
            "pinv_atol": lambda: lib.linalg.pinv(a, atol=c),
            "pinv_rtol": lambda: lib.linalg.pinv(a, rtol=c),
            "pinv_atol_rtol": lambda: lib.linalg.pinv(a, atol=c, rtol=c),
            "rank_atol": lambda: lib.linalg.matrix_rank(a, atol=c),
            "rank_tol": lambda: lib.linalg.matrix_rank(a, tol=c),
            "norm_dim_range": lambda: lib.linalg.norm(a, "fro", (0, 4)),
            "matrix_norm_range": lambda: lib.linalg.matrix_norm(a, "nuc", (-3, 0)),
            "matrix_norm_same": lambda: lib.linalg.matrix_norm(a, "fro", (0, -2)),
        }[case]

    assert outcome(run(mt)) == outcome(run(torch))


@pytest.mark.parametrize("shape,dim", [((10,), (0, 0)), ((3, 4), (0, 1)), ((3, 4, 5), (2, 0)),
                                       ((3, 4, 5), (0, 1, 2)), ((3, 4), ()), ((3, 4), 1),
                                       ((3, 4), (0, 4)), ((3, 4), (1, -1)), ((2, 3, 4), (-1, 0))],
                         ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_norm_without_order_over_two_dims_is_a_vector_norm(shape, dim, keepdim):
    x = np.random.default_rng(5).standard_normal(shape)

    def run(lib):
        return outcome(lambda: lib.linalg.norm(lib.tensor(x), None, dim, keepdim))

    got, want = run(mt), run(torch)
    assert got[0] == want[0]
    if got[0] == "ok":
        assert got[1] == pytest.approx(want[1], rel=1e-9)
    else:
        assert got == want


@pytest.mark.parametrize("ord", [1, 2, "fro", "nuc", None])
@pytest.mark.parametrize("dim", [(0, 1, 2), ()], ids=str)
def test_norm_dim_must_have_one_or_two_entries(ord, dim):
    def run(lib):
        return outcome(lambda: lib.linalg.norm(lib.ones(3, 3, 3), ord, dim))

    assert run(mt) == run(torch)
