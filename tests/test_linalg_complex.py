"""minitorch.linalg on complex64/complex128 against torch: every function's
values, dtypes and shapes (batched, non-contiguous), decompositions by
their invariants where they are not unique, and gradients of real losses
against torch's."""
import numpy as np
import pytest
from linalg_pairs import same, to_np

import minitorch as mt

torch = pytest.importorskip("torch")

CDTYPES = ["complex64", "complex128"]


def crand(*shape, dtype="complex128", seed=0, kind="general"):
    """A (minitorch, torch) pair of random complex matrices: general (well
    conditioned), hpd (Hermitian positive-definite), herm (Hermitian), or
    plain (no diagonal shift)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    square = len(shape) >= 2 and shape[-1] == shape[-2]
    if kind == "hpd":
        a = a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])
    elif kind == "herm":
        a = a + np.conj(np.swapaxes(a, -1, -2))
    elif kind == "general" and square:
        a = a + 3 * np.eye(shape[-1])
    return (mt.tensor(a, dtype=getattr(mt, dtype)), torch.tensor(a, dtype=getattr(torch, dtype)))


def ctol(dtype):
    return dict(rtol=2e-4, atol=2e-4) if dtype == "complex64" else dict(rtol=1e-7, atol=1e-9)


def both(fn, *pairs):
    """fn(L, *args) in minitorch and in torch."""
    return (fn(mt, *(p[0] for p in pairs)), fn(torch, *(p[1] for p in pairs)))


# ----- values -----

VALUE_CASES = {
    "det": (lambda L, a: L.linalg.det(a), "general"),
    "torch.det": (lambda L, a: L.det(a), "general"),
    "slogdet": (lambda L, a: tuple(L.linalg.slogdet(a)), "general"),
    "logdet": (lambda L, a: L.logdet(a), "general"),
    "inv": (lambda L, a: L.linalg.inv(a), "general"),
    "inverse": (lambda L, a: L.inverse(a), "general"),
    "inv_ex": (lambda L, a: tuple(L.linalg.inv_ex(a)), "general"),
    "matrix_power3": (lambda L, a: L.linalg.matrix_power(a, 3), "general"),
    "matrix_power-2": (lambda L, a: L.linalg.matrix_power(a, -2), "general"),
    "matrix_power0": (lambda L, a: L.linalg.matrix_power(a, 0), "general"),
    "matrix_exp": (lambda L, a: L.linalg.matrix_exp(a * 0.3), "general"),
    "torch.matrix_exp": (lambda L, a: L.matrix_exp(a * 0.3), "general"),
    "cholesky": (lambda L, a: L.linalg.cholesky(a), "hpd"),
    "cholesky_upper": (lambda L, a: L.linalg.cholesky(a, upper=True), "hpd"),
    "cholesky_ex": (lambda L, a: tuple(L.linalg.cholesky_ex(a)), "hpd"),
    "legacy_cholesky": (lambda L, a: L.cholesky(a, True), "hpd"),
    "cholesky_inverse": (lambda L, a: L.cholesky_inverse(L.linalg.cholesky(a)), "hpd"),
    "cholesky_inverse_upper": (
        lambda L, a: L.cholesky_inverse(L.linalg.cholesky(a, upper=True), upper=True), "hpd"),
    "eigvalsh": (lambda L, a: L.linalg.eigvalsh(a), "herm"),
    "eigvalsh_U": (lambda L, a: L.linalg.eigvalsh(a, UPLO="U"), "herm"),
    "svdvals": (lambda L, a: L.linalg.svdvals(a), "plain"),
    "pinv": (lambda L, a: L.linalg.pinv(a), "plain"),
    "pinv_hermitian": (lambda L, a: L.linalg.pinv(a, hermitian=True), "herm"),
    "pinverse": (lambda L, a: L.pinverse(a), "plain"),
    "matrix_rank": (lambda L, a: L.linalg.matrix_rank(a), "plain"),
    "matrix_rank_hermitian": (lambda L, a: L.linalg.matrix_rank(a, hermitian=True), "herm"),
    "cond": (lambda L, a: L.linalg.cond(a), "general"),
    "cond_fro": (lambda L, a: L.linalg.cond(a, "fro"), "general"),
    "cond_1": (lambda L, a: L.linalg.cond(a, 1), "general"),
    "matrix_norm_fro": (lambda L, a: L.linalg.matrix_norm(a), "plain"),
    "matrix_norm_nuc": (lambda L, a: L.linalg.matrix_norm(a, "nuc"), "plain"),
    "matrix_norm_2": (lambda L, a: L.linalg.matrix_norm(a, 2), "plain"),
    "matrix_norm_-2": (lambda L, a: L.linalg.matrix_norm(a, -2), "plain"),
    "matrix_norm_1": (lambda L, a: L.linalg.matrix_norm(a, 1), "plain"),
    "matrix_norm_inf": (lambda L, a: L.linalg.matrix_norm(a, float("inf")), "plain"),
    "vector_norm": (lambda L, a: L.linalg.vector_norm(a, dim=-1), "plain"),
    "vector_norm_3": (lambda L, a: L.linalg.vector_norm(a, 3), "plain"),
    "vector_norm_inf": (lambda L, a: L.linalg.vector_norm(a, float("inf"), dim=(-2, -1)),
                        "plain"),
    "norm": (lambda L, a: L.linalg.norm(a), "plain"),
    "vecdot": (lambda L, a: L.linalg.vecdot(a, a.flip(-1)), "plain"),
    "vander": (lambda L, a: L.linalg.vander(L.cat([a[..., 0, :], a[..., 0, :]], -1)), "plain"),
    "diagonal": (lambda L, a: L.linalg.diagonal(a), "plain"),
}


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1)])
@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_values_match_torch(name, shape, dtype):
    fn, kind = VALUE_CASES[name]
    a, t = crand(*shape, dtype=dtype, kind=kind, seed=len(name))
    same(fn(mt, a), fn(torch, t), **ctol(dtype))


@pytest.mark.parametrize("name", ["det", "inv", "cholesky", "eigvalsh", "svdvals", "pinv",
                                  "matrix_norm_nuc", "slogdet", "matrix_exp"])
def test_non_contiguous_and_batched_inputs(name):
    fn, kind = VALUE_CASES[name]
    a, t = crand(3, 4, 4, kind=kind, seed=5)
    # the same values laid out with the batch dim innermost (non-contiguous)
    a, t = a.permute(1, 2, 0).contiguous().permute(2, 0, 1), t.permute(1, 2, 0).contiguous().permute(2, 0, 1)
    assert not a.is_contiguous()
    same(fn(mt, a), fn(torch, t))


def test_conjugate_transposes():
    a, t = crand(2, 3, 4, kind="plain")
    same(a.mH, t.mH)
    same(a[0].H, t[0].H)
    r, tr = a.real, t.real
    same(r.mH, tr.mH)
    assert r.mH.data_ptr() == r.data_ptr()  # a real tensor's is still a view


def test_real_results_where_torch_gives_real():
    a, t = crand(3, 3, kind="herm", dtype="complex64")
    assert mt.linalg.eigvalsh(a).dtype == mt.float32
    assert mt.linalg.svdvals(a).dtype == mt.float32
    assert mt.linalg.slogdet(a).logabsdet.dtype == mt.float32
    assert mt.linalg.slogdet(a).sign.dtype == mt.complex64
    assert mt.linalg.matrix_norm(a).dtype == mt.float32
    assert mt.linalg.matrix_rank(a).dtype == mt.int64
    assert mt.linalg.svd(a).S.dtype == mt.float32


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("left,bshape", [(True, (4, 2)), (True, (2, 4, 2)), (True, (4,)),
                                         (True, (2, 4)), (False, (3, 4)), (False, (2, 3, 4))])
def test_solve(dtype, left, bshape):
    a, t = crand(2, 4, 4, dtype=dtype, seed=1)
    b, tb = crand(*bshape, dtype=dtype, kind="plain", seed=2)
    same(mt.linalg.solve(a, b, left=left), torch.linalg.solve(t, tb, left=left), **ctol(dtype))
    got, want = mt.linalg.solve_ex(a, b, left=left), torch.linalg.solve_ex(t, tb, left=left)
    same(tuple(got), tuple(want), **ctol(dtype))


@pytest.mark.parametrize("bshape", [(4,), (2, 4)])
def test_solve_refuses_a_vector_on_the_right(bshape):
    from linalg_pairs import raises_like
    a, t = crand(2, 4, 4, seed=1)
    b, tb = crand(*bshape, kind="plain", seed=2)
    raises_like(lambda: mt.linalg.solve(a, b, left=False),
                lambda: torch.linalg.solve(t, tb, left=False))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_family(dtype, left, adjoint):
    a, t = crand(2, 4, 4, dtype=dtype, seed=3)
    b, tb = crand(2, 4, 4, dtype=dtype, kind="plain", seed=4)
    LU, piv = mt.linalg.lu_factor(a)
    tLU, tpiv = torch.linalg.lu_factor(t)
    same((LU, piv), (tLU, tpiv), **ctol(dtype))
    same(mt.linalg.lu_solve(LU, piv, b, left=left, adjoint=adjoint),
         torch.linalg.lu_solve(tLU, tpiv, tb, left=left, adjoint=adjoint), **ctol(dtype))
    same(tuple(mt.linalg.lu(a)), tuple(torch.linalg.lu(t)), **ctol(dtype))
    same(tuple(mt.lu_unpack(LU, piv)), tuple(torch.lu_unpack(tLU, tpiv)), **ctol(dtype))
    same(tuple(a.lu()), tuple(t.lu()), **ctol(dtype))
    same(tuple(mt.linalg.lu_factor_ex(a)), tuple(torch.linalg.lu_factor_ex(t)), **ctol(dtype))


@pytest.mark.parametrize("m,n", [(4, 4), (5, 3), (3, 5)])
def test_lu_rectangular(m, n):
    a, t = crand(m, n, kind="plain", seed=m * n)
    same(tuple(mt.linalg.lu(a)), tuple(torch.linalg.lu(t)))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_solve_triangular(dtype, upper, left, unit):
    a, t = crand(2, 4, 4, dtype=dtype, seed=6)
    b, tb = crand(2, 4, 4, dtype=dtype, kind="plain", seed=7)
    same(mt.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit),
         torch.linalg.solve_triangular(t, tb, upper=upper, left=left, unitriangular=unit),
         **ctol(dtype))


@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("upper", [True, False])
def test_legacy_triangular_solve(transpose, upper):
    a, t = crand(3, 3, seed=8)
    b, tb = crand(3, 2, kind="plain", seed=9)
    same(tuple(mt.triangular_solve(b, a, upper=upper, transpose=transpose)),
         tuple(torch.triangular_solve(tb, t, upper=upper, transpose=transpose)))


@pytest.mark.parametrize("upper", [True, False])
def test_cholesky_solve(upper):
    a, t = crand(2, 4, 4, kind="hpd", seed=10)
    b, tb = crand(2, 4, 3, kind="plain", seed=11)
    F, tF = mt.linalg.cholesky(a, upper=upper), torch.linalg.cholesky(t, upper=upper)
    same(mt.cholesky_solve(b, F, upper), torch.cholesky_solve(tb, tF, upper))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("hermitian", [True, False])
def test_ldl(dtype, hermitian):
    kind = "herm" if hermitian else "plain"
    a, t = crand(2, 4, 4, dtype=dtype, kind=kind, seed=12)
    if not hermitian:
        a, t = a + a.mT, t + t.mT  # complex symmetric
    b, tb = crand(2, 4, 2, dtype=dtype, kind="plain", seed=13)
    LD, piv = mt.linalg.ldl_factor(a, hermitian=hermitian)
    tLD, tpiv = torch.linalg.ldl_factor(t, hermitian=hermitian)
    same((LD, piv), (tLD, tpiv), **ctol(dtype))
    X = mt.linalg.ldl_solve(LD, piv, b, hermitian=hermitian)
    same(X, torch.linalg.ldl_solve(tLD, tpiv, tb, hermitian=hermitian), **ctol(dtype))
    same(X, torch.linalg.solve(t, tb), **ctol(dtype))


def _unitary(Q, cols):
    got = to_np(Q.mH @ Q)
    np.testing.assert_allclose(got, np.broadcast_to(np.eye(cols), got.shape),
                               atol=1e-4 if Q.dtype == mt.complex64 else 1e-10)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(dtype, shape, full):
    a, t = crand(*shape, dtype=dtype, kind="plain", seed=14)
    U, S, Vh = mt.linalg.svd(a, full_matrices=full)
    tU, tS, tVh = torch.linalg.svd(t, full_matrices=full)
    for got, want in ((U, tU), (S, tS), (Vh, tVh)):
        assert got.dtype == getattr(mt, str(want.dtype).split(".")[1])
        assert tuple(got.shape) == tuple(want.shape)
    same(S, tS, **ctol(dtype))
    k = min(shape[-2:])
    _unitary(U, U.shape[-1])
    _unitary(Vh.mH, Vh.shape[-2])
    rebuilt = (U[..., :, :k] * S.to(a.dtype).unsqueeze(-2)) @ Vh[..., :k, :]
    np.testing.assert_allclose(to_np(rebuilt), to_np(a), **ctol(dtype))
    # the legacy torch.svd: V, not Vh
    U2, S2, V2 = mt.svd(a)
    np.testing.assert_allclose(to_np((U2 * S2.to(a.dtype).unsqueeze(-2)) @ V2.mH), to_np(a),
                               **ctol(dtype))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(dtype, uplo):
    a, t = crand(2, 4, 4, dtype=dtype, kind="herm", seed=15)
    L, V = mt.linalg.eigh(a, UPLO=uplo)
    tL, tV = torch.linalg.eigh(t, UPLO=uplo)
    same(L, tL, **ctol(dtype))
    assert V.dtype == a.dtype
    _unitary(V, 4)
    np.testing.assert_allclose(to_np(a @ V), to_np(V * L.to(a.dtype).unsqueeze(-2)),
                               **ctol(dtype))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(dtype, shape, mode):
    a, t = crand(*shape, dtype=dtype, kind="plain", seed=16)
    same(tuple(mt.linalg.qr(a, mode=mode)), tuple(torch.linalg.qr(t, mode=mode)), **ctol(dtype))


def test_geqrf_householder_ormqr():
    a, t = crand(5, 3, kind="plain", seed=17)
    (g, tau), (tg, ttau) = mt.geqrf(a), torch.geqrf(t)
    same((g, tau), (tg, ttau))
    same(mt.linalg.householder_product(g, tau), torch.linalg.householder_product(tg, ttau))
    c, tc = crand(5, 2, kind="plain", seed=18)
    c2, tc2 = crand(2, 5, kind="plain", seed=19)
    for transpose in (False, True):
        same(mt.ormqr(g, tau, c, True, transpose), torch.ormqr(tg, ttau, tc, True, transpose))
        same(mt.ormqr(g, tau, c2, False, transpose),
             torch.ormqr(tg, ttau, tc2, False, transpose))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("m,n", [(5, 3), (4, 4)])
def test_lstsq(dtype, driver, m, n):
    a, t = crand(2, m, n, dtype=dtype, kind="plain", seed=20)
    b, tb = crand(2, m, 2, dtype=dtype, kind="plain", seed=21)
    got, want = mt.linalg.lstsq(a, b, driver=driver), torch.linalg.lstsq(t, tb, driver=driver)
    same(tuple(got), tuple(want), **ctol(dtype))


@pytest.mark.parametrize("shape", [(8, 5), (5, 8)])
def test_svd_lowrank_of_an_exact_low_rank_matrix(shape):
    b, _ = crand(shape[0], 2, kind="plain", seed=28)
    c, _ = crand(2, shape[1], kind="plain", seed=29)
    a = b @ c
    mt.manual_seed(0)
    U, S, V = mt.svd_lowrank(a, q=3)
    np.testing.assert_allclose(to_np((U * S.to(a.dtype).unsqueeze(-2)) @ V.mH), to_np(a),
                               atol=1e-8)
    np.testing.assert_allclose(to_np(S[:2]), to_np(mt.linalg.svdvals(a)[:2]), rtol=1e-8)


def test_cross_tensorinv_tensorsolve():
    a, t = crand(4, 3, kind="plain", seed=22)
    b, tb = crand(4, 3, kind="plain", seed=23)
    same(mt.linalg.cross(a, b), torch.linalg.cross(t, tb))
    m, tm = crand(4, 4, seed=24)
    same(mt.linalg.tensorinv(m.reshape(2, 2, 4), ind=2),
         torch.linalg.tensorinv(tm.reshape(2, 2, 4), ind=2))
    v, tv = crand(2, 2, kind="plain", seed=25)
    same(mt.linalg.tensorsolve(m.reshape(2, 2, 2, 2), v),
         torch.linalg.tensorsolve(tm.reshape(2, 2, 2, 2), tv))


def test_singular_and_not_positive_definite_errors():
    from linalg_pairs import raises_like
    a, t = crand(3, 3, kind="plain", seed=26)
    a, t = a * mt.tensor([1.0, 1.0, 0.0]), t * torch.tensor([1.0, 1.0, 0.0])
    raises_like(lambda: mt.linalg.inv(a), lambda: torch.linalg.inv(t))
    raises_like(lambda: mt.linalg.solve(a, a), lambda: torch.linalg.solve(t, t))
    h, th = crand(3, 3, kind="herm", seed=27)
    h, th = h - 20 * mt.eye(3, dtype=h.dtype), th - 20 * torch.eye(3, dtype=th.dtype)
    raises_like(lambda: mt.linalg.cholesky(h), lambda: torch.linalg.cholesky(th))


# ----- gradients -----

def _loss(L, out, seed=0):
    """A real loss of (the tensors of) out: weighted squared moduli."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    total = 0
    for i, o in enumerate(outs):
        if not (o.dtype.is_floating_point or o.dtype.is_complex) or o.numel() == 0:
            continue
        w = np.random.default_rng(seed + i).uniform(0.5, 1.5, tuple(o.shape))
        total = total + (o.abs() ** 2 * L.tensor(w, dtype=o.abs().dtype)).sum()
    return total


GRAD_CASES = {
    "det": (lambda L, a: L.linalg.det(a), "general"),
    "slogdet": (lambda L, a: tuple(L.linalg.slogdet(a)), "general"),
    "logdet_real_part": (lambda L, a: L.logdet(a).real, "general"),
    "inv": (lambda L, a: L.linalg.inv(a), "general"),
    "solve": (lambda L, a: L.linalg.solve(a, a.flip(-1)), "general"),
    "solve_right": (lambda L, a: L.linalg.solve(a, a.flip(-2), left=False), "general"),
    "lu_factor": (lambda L, a: L.linalg.lu_factor(a).LU, "general"),
    "lu_solve_adjoint": (lambda L, a: L.linalg.lu_solve(*L.linalg.lu_factor(a), a.flip(-1),
                                                       adjoint=True), "general"),
    "solve_triangular": (lambda L, a: L.linalg.solve_triangular(a, a.flip(-1), upper=True),
                         "general"),
    "solve_triangular_right_lower": (
        lambda L, a: L.linalg.solve_triangular(a, a.flip(-2), upper=False, left=False), "general"),
    "cholesky": (lambda L, a: L.linalg.cholesky(a @ a.mH + L.eye(a.shape[-1], dtype=a.dtype)),
                 "general"),
    "cholesky_upper": (lambda L, a: L.linalg.cholesky(
        a @ a.mH + L.eye(a.shape[-1], dtype=a.dtype), upper=True), "general"),
    "cholesky_solve": (lambda L, a: L.cholesky_solve(a.flip(-1), a.tril()), "general"),
    # a factor with a real diagonal, as LAPACK's potri assumes
    "cholesky_inverse": (lambda L, a: L.cholesky_inverse(L.linalg.cholesky(
        a @ a.mH + L.eye(a.shape[-1], dtype=a.dtype))), "general"),
    "qr": (lambda L, a: tuple(L.linalg.qr(a)), "plain"),
    "qr_wide": (lambda L, a: tuple(L.linalg.qr(a[..., :2, :])), "plain"),
    "svdvals": (lambda L, a: L.linalg.svdvals(a), "plain"),
    "svd_invariant": (lambda L, a: (lambda r: r.U @ r.Vh)(L.linalg.svd(a, full_matrices=False)),
                      "plain"),
    "svd_abs_vectors": (lambda L, a: (lambda r: (r.U.abs(), r.S, r.Vh.abs()))(
        L.linalg.svd(a, full_matrices=False)), "plain"),
    "svd_tall_invariant": (lambda L, a: (lambda r: r.U @ r.Vh)(
        L.linalg.svd(a[..., :, :2], full_matrices=False)), "plain"),
    "eigvalsh": (lambda L, a: L.linalg.eigvalsh(a + a.mH), "plain"),
    "eigh_abs_vectors": (lambda L, a: (lambda r: (r.eigenvalues, r.eigenvectors.abs()))(
        L.linalg.eigh(a + a.mH)), "plain"),
    "pinv": (lambda L, a: L.linalg.pinv(a), "plain"),
    "matrix_exp": (lambda L, a: L.linalg.matrix_exp(a * 0.3), "plain"),
    "matrix_power": (lambda L, a: L.linalg.matrix_power(a, -2), "general"),
    "matrix_norm_fro": (lambda L, a: L.linalg.matrix_norm(a), "plain"),
    "matrix_norm_nuc": (lambda L, a: L.linalg.matrix_norm(a, "nuc"), "plain"),
    "vector_norm": (lambda L, a: L.linalg.vector_norm(a, 3, dim=-1), "plain"),
    "vecdot": (lambda L, a: L.linalg.vecdot(a, a.flip(-1)), "plain"),
    "householder_product": (lambda L, a: L.linalg.householder_product(a, a[..., 0, :2]), "plain"),
    "lstsq": (lambda L, a: L.linalg.lstsq(a, a.flip(-1)).solution, "general"),
    "cross": (lambda L, a: L.linalg.cross(a, a.flip(-1)), "plain"),
}


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_match_torch(name, shape):
    fn, kind = GRAD_CASES[name]
    a, t = crand(*shape, kind=kind, seed=len(name) + 40)
    a.requires_grad_(True)
    t.requires_grad_(True)
    _loss(mt, fn(mt, a)).backward()
    _loss(torch, fn(torch, t)).backward()
    same(a.grad, t.grad, rtol=1e-6, atol=1e-8)


def test_phase_dependent_losses_raise_as_torch():
    from linalg_pairs import raises_like
    a, t = crand(3, 3, kind="herm", seed=50)
    a.requires_grad_(True)
    t.requires_grad_(True)
    raises_like(lambda: mt.linalg.eigh(a).eigenvectors.sum().abs().backward(),
                lambda: torch.linalg.eigh(t).eigenvectors.sum().abs().backward())
    raises_like(lambda: mt.linalg.svd(a).U.sum().abs().backward(),
                lambda: torch.linalg.svd(t).U.sum().abs().backward())


def test_real_input_gradient_stays_real():
    a = mt.tensor(np.random.default_rng(51).standard_normal((3, 3)), requires_grad=True)
    (mt.linalg.det(a.to(mt.complex128)).abs() ** 2).backward()
    assert a.grad.dtype == mt.float64


# gradcheck takes real inputs: the complex matrix is built from its real and
# imaginary parts, and the complex output is seen as real pairs
GRADCHECK_CASES = {
    "det": lambda z: mt.linalg.det(z),
    "slogdet": lambda z: mt.linalg.slogdet(z).sign * mt.linalg.slogdet(z).logabsdet,
    "inv": lambda z: mt.linalg.inv(z),
    "solve": lambda z: mt.linalg.solve(z, z.flip(-1)),
    "lu_factor": lambda z: mt.linalg.lu_factor(z).LU,
    "cholesky": lambda z: mt.linalg.cholesky(z @ z.mH + mt.eye(3, dtype=z.dtype)),
    "qr": lambda z: mt.linalg.qr(z).R,
    "svdvals": lambda z: mt.linalg.svdvals(z),
    "svd_invariant": lambda z: (lambda r: r.U @ r.Vh)(mt.linalg.svd(z)),
    "eigvalsh": lambda z: mt.linalg.eigvalsh(z + z.mH),
    "eigvals": lambda z: mt.linalg.eigvals(z),
    "eig_moduli": lambda z: mt.linalg.eig(z).eigenvectors.abs(),
    "matrix_exp": lambda z: mt.linalg.matrix_exp(z * 0.3),
    "pinv": lambda z: mt.linalg.pinv(z),
}


@pytest.mark.parametrize("name", sorted(GRADCHECK_CASES))
def test_gradcheck_through_complex(name):
    rng = np.random.default_rng(60)
    x = mt.tensor(rng.standard_normal((3, 3)) + 3 * np.eye(3), requires_grad=True)
    y = mt.tensor(rng.standard_normal((3, 3)), requires_grad=True)

    def f(x, y):
        out = GRADCHECK_CASES[name](mt.complex(x, y))
        return mt.view_as_real(out) if out.dtype.is_complex else out

    assert mt.autograd.gradcheck(f, (x, y))
