"""minitorch.linalg's spectral family against torch: eigh, eigvalsh, svd,
svdvals, torch.svd, qr, torch.qr, geqrf, householder_product/orgqr, ormqr,
pinv, pinverse, matrix_rank, cond, lstsq and the 2/-2/nuclear matrix norms.
Decompositions are compared by their invariants (reconstruction,
orthogonality, sign-free products) and their unique parts; gradients by
gradcheck, against torch's on gauge-invariant functions, and forward AD."""
import warnings

import numpy as np
import pytest

import minitorch as mt
from linalg_pairs import raises_like, rand, same, to_np, tol

torch = pytest.importorskip("torch")


def _sym(shape, dtype="float64", seed=0):
    a, t = rand(*shape, dtype=dtype, seed=seed)
    return a + a.mT, t + t.mT


def _orthonormal_columns(Q, atol):
    k = Q.shape[-1]
    np.testing.assert_allclose(to_np(Q.mT @ Q), np.broadcast_to(np.eye(k), Q.mT.shape[:-1] + (k,)),
                               atol=atol)


@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 5), (0, 3, 3), (1, 1)])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eigh(shape, uplo, dtype):
    a, t = _sym(shape, dtype)
    L, V = mt.linalg.eigh(a, UPLO=uplo)
    Lt, _ = torch.linalg.eigh(t, UPLO=uplo)
    same(L, Lt, **tol(dtype))
    same(mt.linalg.eigvalsh(a, UPLO=uplo), torch.linalg.eigvalsh(t, UPLO=uplo), **tol(dtype))
    atol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(to_np((V * L.unsqueeze(-2)) @ V.mT), to_np(a), atol=atol)
    _orthonormal_columns(V, atol)
    assert type(mt.linalg.eigh(a)).__name__ == "linalg_eigh"


def test_eigh_reads_one_triangle():
    a, t = rand(4, 4)
    same(mt.linalg.eigvalsh(a, UPLO="U"), torch.linalg.eigvalsh(t, UPLO="U"))
    same(mt.linalg.eigvalsh(a.mT), torch.linalg.eigvalsh(t.mT))


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 5, 3), (0, 3, 2)])
@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_svd(shape, full, dtype):
    a, t = rand(*shape, dtype=dtype)
    U, S, Vh = mt.linalg.svd(a, full_matrices=full)
    Ut, St, Vht = torch.linalg.svd(t, full_matrices=full)
    same(S, St, **tol(dtype))
    assert U.shape == Ut.shape and Vh.shape == Vht.shape
    k = min(shape[-2:])
    atol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(to_np((U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]), to_np(a),
                               atol=atol)
    _orthonormal_columns(U, atol)
    _orthonormal_columns(Vh.mT, atol)
    same(mt.linalg.svdvals(a), torch.linalg.svdvals(t), **tol(dtype))


def test_legacy_svd():
    a, t = rand(2, 5, 3)
    U, S, V = mt.svd(a)
    same(S, torch.svd(t).S)
    np.testing.assert_allclose(to_np((U * S.unsqueeze(-2)) @ V.mT), to_np(a), atol=1e-12)
    got, want = mt.svd(a, compute_uv=False), torch.svd(t, compute_uv=False)
    same(tuple(got), tuple(want))
    assert type(got).__name__ == "svd"
    assert tuple(a.svd(some=False).U.shape) == (2, 5, 5)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 5, 3), (0, 3, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(shape, mode):
    a, t = rand(*shape)
    Q, R = mt.linalg.qr(a, mode=mode)
    Qt, Rt = torch.linalg.qr(t, mode=mode)
    assert Q.shape == Qt.shape and R.shape == Rt.shape
    # Householder QR is unique up to the signs of R's rows (the same LAPACK routine here)
    same(R.abs(), Rt.abs())
    if mode != "r":
        np.testing.assert_allclose(to_np(Q @ R), to_np(a), atol=1e-12)
        _orthonormal_columns(Q, 1e-12)
        same((Q @ R), (Qt @ Rt))


def test_legacy_qr_geqrf_householder_ormqr():
    a, t = rand(5, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(tuple(mt.qr(a, some=False)), tuple(torch.qr(t, some=False)))
    g, gt = mt.geqrf(a), torch.geqrf(t)
    same(tuple(g), tuple(gt))
    assert type(g).__name__ == "geqrf"
    same(mt.linalg.householder_product(*g), torch.linalg.householder_product(*gt))
    same(mt.orgqr(*g), torch.orgqr(*gt))
    c, ct = rand(5, 2, seed=3)
    for left, transpose in ((True, False), (True, True)):
        same(mt.ormqr(g.a, g.tau, c, left, transpose), torch.ormqr(gt.a, gt.tau, ct, left,
                                                                   transpose))
    c, ct = rand(2, 5, seed=3)
    same(mt.ormqr(g.a, g.tau, c, False, True), torch.ormqr(gt.a, gt.tau, ct, False, True))


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_pinv_rank_cond_norms(shape):
    a, t = rand(*shape)
    same(mt.linalg.pinv(a), torch.linalg.pinv(t))
    same(mt.pinverse(a), torch.pinverse(t))
    same(mt.linalg.matrix_rank(a), torch.linalg.matrix_rank(t))
    same(mt.linalg.cond(a), torch.linalg.cond(t))
    same(mt.linalg.cond(a, -2), torch.linalg.cond(t, -2))
    for ord in (2, -2, "nuc"):
        same(mt.linalg.matrix_norm(a, ord), torch.linalg.matrix_norm(t, ord))
        same(mt.linalg.norm(a, ord, dim=(-2, -1), keepdim=True),
             torch.linalg.norm(t, ord, dim=(-2, -1), keepdim=True))
    if shape[-1] == shape[-2]:
        for p in (1, -1, "fro", float("inf")):
            same(mt.linalg.cond(a, p), torch.linalg.cond(t, p))


def test_rank_of_rank_deficient_and_hermitian():
    a, t = rand(5, 2)
    low, lowt = a @ a.mT, t @ t.mT
    same(mt.linalg.matrix_rank(low), torch.linalg.matrix_rank(lowt))
    same(mt.linalg.matrix_rank(low, hermitian=True), torch.linalg.matrix_rank(lowt,
                                                                               hermitian=True))
    same(mt.linalg.matrix_rank(low, atol=1.0, rtol=0.0),
         torch.linalg.matrix_rank(lowt, atol=1.0, rtol=0.0))
    same(mt.linalg.pinv(low, hermitian=True), torch.linalg.pinv(lowt, hermitian=True))


@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("bshape", [(2, 5, 2), (2, 5), (2, 5, 1)])
def test_lstsq(driver, bshape):
    a, t = rand(2, 5, 3)
    b, tb = rand(*bshape, seed=4)
    got, want = mt.linalg.lstsq(a, b, driver=driver), torch.linalg.lstsq(t, tb, driver=driver)
    assert type(got).__name__ == "linalg_lstsq"
    for g, w in zip(got, want):
        same(g, w, rtol=1e-6, atol=1e-9)


def _gauge_free(fn_name):
    """Functions of the decompositions that do not depend on the eigenvector
    or singular vector signs."""
    return {
        "eigh": (lambda L: lambda x: (lambda r: (r[0], r[1] @ r[1].mT * r[0].unsqueeze(-2)))(
            L.linalg.eigh(x + x.mT))),
        "eigvalsh": (lambda L: lambda x: L.linalg.eigvalsh(x + x.mT)),
        "svd": (lambda L: lambda x: (lambda r: (r[1], r[0][..., :, :1] @ r[2][..., :1, :]))(
            L.linalg.svd(x, full_matrices=False))),
        "svdvals": (lambda L: lambda x: L.linalg.svdvals(x)),
        "qr": (lambda L: lambda x: tuple(L.linalg.qr(x))),
        "pinv": (lambda L: lambda x: L.linalg.pinv(x)),
        "nuc": (lambda L: lambda x: L.linalg.matrix_norm(x, "nuc")),
        "cond": (lambda L: lambda x: L.linalg.cond(x)),
    }[fn_name]


@pytest.mark.parametrize("name", ["eigh", "eigvalsh", "svd", "svdvals", "qr", "pinv", "nuc",
                                  "cond"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_gradients(name, shape):
    if name.startswith("eig") and shape[0] != shape[1]:
        pytest.skip("square only")
    make = _gauge_free(name)
    a, t = rand(*shape, seed=11)
    am, at = a.clone().requires_grad_(), t.clone().requires_grad_()
    assert mt.autograd.gradcheck(make(mt), (am,), check_forward_ad=True)
    assert mt.autograd.gradgradcheck(make(mt), (am,))
    outs_m, outs_t = make(mt)(am), make(torch)(at)
    if not isinstance(outs_m, tuple):
        outs_m, outs_t = (outs_m,), (outs_t,)
    rng = np.random.default_rng(2)
    lm = lt = 0
    for om, ot in zip(outs_m, outs_t):
        w = rng.standard_normal(tuple(ot.shape))
        lm = lm + (om * mt.tensor(w)).sum()
        lt = lt + (ot * torch.tensor(w)).sum()
    lm.backward()
    lt.backward()
    same(am.grad, at.grad, rtol=1e-6, atol=1e-8)


def test_full_matrices_gradient_reads_the_reduced_part():
    a, t = rand(5, 3)
    am, at = a.clone().requires_grad_(), t.clone().requires_grad_()
    r, rt = mt.linalg.svd(am), torch.linalg.svd(at)
    (r.S.sum() + (r.U[:, :1] @ r.Vh[:1]).sum()).backward()
    (rt.S.sum() + (rt.U[:, :1] @ rt.Vh[:1]).sum()).backward()
    same(am.grad, at.grad)


@pytest.mark.parametrize("call", [
    lambda L: L.linalg.eigh(L.ones(2, 3)),
    lambda L: L.linalg.eigh(L.ones(3)),
    lambda L: L.linalg.eigh(L.ones(3, 3, dtype=L.int64)),
    lambda L: L.linalg.eigh(L.ones(3, 3), UPLO="X"),
    lambda L: L.linalg.eigvalsh(L.ones(3, 3, dtype=L.float16)),
    lambda L: L.linalg.svd(L.ones(3)),
    lambda L: L.linalg.svd(L.ones(3, 3, dtype=L.int64)),
    lambda L: L.linalg.svd(L.ones(3, 3), driver="gesvd"),
    lambda L: L.linalg.svdvals(L.ones(3, 3, dtype=L.int64)),
    lambda L: L.linalg.qr(L.ones(3, 2), mode="x"),
    lambda L: L.linalg.qr(L.ones(3)),
    lambda L: L.linalg.qr(L.ones(3, 3, dtype=L.int64)),
    lambda L: L.linalg.lstsq(L.ones(3, 2), L.ones(3, 1), driver="foo"),
    lambda L: L.linalg.lstsq(L.ones(3, 2), L.ones(2, 1)),
    lambda L: L.linalg.householder_product(L.ones(2, 3), L.ones(2)),
    lambda L: L.linalg.householder_product(L.ones(3, 2), L.ones(3)),
])
def test_errors_match_torch(call):
    raises_like(lambda: call(mt), lambda: call(torch))


def test_qr_complete_tall_is_not_differentiable():
    a = rand(5, 3)[0].requires_grad_()
    Q, R = mt.linalg.qr(a, mode="complete")
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete'"):
        Q.sum().backward()


@pytest.mark.parametrize("shape,q", [((5, 4), None), ((5, 4), 3), ((2, 5, 4), 2), ((3, 8), 2),
                                     ((12, 6), 6)])
def test_svd_lowrank_shapes_and_exact_rank(shape, q):
    a, t = rand(*shape)
    kw = {} if q is None else {"q": q}
    got, want = mt.svd_lowrank(a, **kw), torch.svd_lowrank(t, **kw)
    assert [tuple(x.shape) for x in got] == [tuple(x.shape) for x in want]
    U, S, V = got
    _orthonormal_columns(U, 1e-10)
    _orthonormal_columns(V, 1e-10)
    if S.shape[-1] == min(shape[-2:]):
        # a basis of the whole range: the exact decomposition
        same(S, torch.linalg.svdvals(t), rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(to_np((U * S.unsqueeze(-2)) @ V.mT), to_np(a), atol=1e-10)


def test_pca_lowrank():
    a, t = rand(2, 8, 4)
    U, S, V = mt.pca_lowrank(a, q=4)
    centered = t - t.mean(-2, keepdim=True)
    same(S, torch.linalg.svdvals(centered), rtol=1e-8, atol=1e-10)
    assert [tuple(x.shape) for x in mt.pca_lowrank(a, q=2)] == \
        [tuple(x.shape) for x in torch.pca_lowrank(t, q=2)]
    raises_like(lambda: mt.pca_lowrank(a, q=7), lambda: torch.pca_lowrank(t, q=7))


def _pinv_inputs(kind, dtype):
    """(minitorch, torch) inputs where pinv's own derivative differs from the
    SVD's or eigh's: rank-deficient (repeated zero singular values), and
    non-Hermitian read through eigh's lower triangle."""
    rng = np.random.default_rng(7)
    shape = {"tall": (6, 4), "wide": (4, 6), "hermitian": (2, 4, 4)}.get(kind, (5, 5))
    a = rng.standard_normal(shape)
    if dtype == "complex128":
        a = a + 1j * rng.standard_normal(shape)
    if kind == "deficient":
        a = a[:, :2] @ a[:2, :]
    return mt.tensor(a, dtype=getattr(mt, dtype)), torch.tensor(a, dtype=getattr(torch, dtype))


@pytest.mark.parametrize("kind", ["deficient", "hermitian", "tall", "wide"])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_pinv_derivatives_match_torch(kind, dtype):
    a, t = _pinv_inputs(kind, dtype)
    tg = torch.randn(t.mT.shape, dtype=t.dtype, generator=torch.Generator().manual_seed(1))
    tda = torch.randn(t.shape, dtype=t.dtype, generator=torch.Generator().manual_seed(2))
    g, da = mt.tensor(tg.numpy()), mt.tensor(tda.numpy())
    hermitian = kind == "hermitian"
    am, at = a.clone().requires_grad_(), t.clone().requires_grad_()
    (got,) = mt.autograd.grad(mt.linalg.pinv(am, hermitian=hermitian), am, g)
    (want,) = torch.autograd.grad(torch.linalg.pinv(at, hermitian=hermitian), at, tg)
    same(got, want, rtol=1e-9, atol=1e-9)
    fwad, tfwad = mt.autograd.forward_ad, torch.autograd.forward_ad
    with fwad.dual_level():
        got = fwad.unpack_dual(mt.linalg.pinv(fwad.make_dual(a, da), hermitian=hermitian)).tangent
    with tfwad.dual_level():
        want = tfwad.unpack_dual(torch.linalg.pinv(tfwad.make_dual(t, tda),
                                                   hermitian=hermitian)).tangent
    same(got, want, rtol=1e-9, atol=1e-9)


def test_pinv_tolerances_and_second_derivatives():
    a, t = _pinv_inputs("deficient", "float64")
    am, at = a.clone().requires_grad_(), t.clone().requires_grad_()
    mt.linalg.pinv(am, atol=0.5, rtol=0.1).pow(2).sum().backward()
    torch.linalg.pinv(at, atol=0.5, rtol=0.1).pow(2).sum().backward()
    same(am.grad, at.grad, rtol=1e-9, atol=1e-9)
    b, _ = rand(4, 3)
    bm = b.requires_grad_()
    assert mt.autograd.gradcheck(mt.linalg.pinv, (bm,), check_forward_ad=True)
    assert mt.autograd.gradgradcheck(mt.linalg.pinv, (bm,))
    # torch's pinv derivative takes A whole; hermitian=True reads one triangle,
    # so it is a true derivative on Hermitian inputs only
    c, _ = rand(4, 4)
    assert mt.autograd.gradgradcheck(lambda x: mt.linalg.pinv(x + x.mT, hermitian=True),
                                     (c.requires_grad_(),))


def test_pinv_refuses_differentiable_tolerances():
    a, t = rand(3, 3)
    for kw in ("atol", "rtol"):
        tol_mt = mt.tensor(0.1, dtype=mt.float64, requires_grad=True)
        tol_t = torch.tensor(0.1, dtype=torch.float64, requires_grad=True)
        raises_like(lambda: mt.linalg.pinv(a, **{kw: tol_mt}),
                    lambda: torch.linalg.pinv(t, **{kw: tol_t}))
        with mt.no_grad(), torch.no_grad():
            same(mt.linalg.pinv(a, **{kw: tol_mt}), torch.linalg.pinv(t, **{kw: tol_t}))


@pytest.mark.parametrize("n", [3, 17, 64, 130])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_only_paths_match_torch_and_keep_gradients(n, dtype):
    """eigvalsh and svdvals skip the vectors when nothing is differentiated;
    values agree with torch and with the vector-computing path, and a
    differentiated input still gets torch's gradient."""
    a, t = rand(2, n, n + 3, dtype=dtype, seed=n)
    s, st = a @ a.mT, t @ t.mT
    same(mt.linalg.eigvalsh(s), torch.linalg.eigvalsh(st), rtol=1e-3 if dtype == "float32" else 1e-9,
         atol=1e-3 if dtype == "float32" else 1e-9)
    same(mt.linalg.eigvalsh(s), mt.linalg.eigh(s)[0], rtol=1e-5 if dtype == "float32" else 1e-12,
         atol=1e-4 if dtype == "float32" else 1e-11)
    same(mt.linalg.svdvals(a), torch.linalg.svdvals(t), **tol(dtype))
    same(mt.linalg.svdvals(a), mt.linalg.svd(a, full_matrices=False)[1], **tol(dtype))
    ag, tg = a.detach().requires_grad_(), t.detach().requires_grad_()
    mt.linalg.svdvals(ag).sum().backward()
    torch.linalg.svdvals(tg).sum().backward()
    same(ag.grad, tg.grad, **tol(dtype))
    sg, stg = s.detach().requires_grad_(), st.detach().requires_grad_()
    (mt.linalg.eigvalsh(sg) * mt.arange(n, dtype=sg.dtype)).sum().backward()
    (torch.linalg.eigvalsh(stg) * torch.arange(n, dtype=stg.dtype)).sum().backward()
    same(sg.grad, stg.grad, rtol=1e-2 if dtype == "float32" else 1e-7,
         atol=1e-2 if dtype == "float32" else 1e-7)
