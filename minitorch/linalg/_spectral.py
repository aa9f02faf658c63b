"""The spectral family: eigh (LAPACK syevd), svd (gesdd) and qr (geqrf,
orgqr) as autograd Functions with torch's backward and tangent formulas in
differentiable ops, and the functions built on them: eigvalsh, svdvals,
torch.svd, torch.qr, geqrf, householder_product, ormqr, pinv, matrix_rank,
cond, lstsq, and the 2, -2 and nuclear matrix norms."""
import math

from .. import _C
from .._dtype_info import finfo
from .._tensor import Tensor
from ..autograd.function import Function
from ..overrides import overridable as _overridable
from . import _common as c
from ._out import checked_out, tuple_out, write_out
from ._triangular import solve_triangular

_mt = _C._functions


def _inv_gaps(values: Tensor) -> Tensor:
    """F with F[i, j] = 1 / (values[j] - values[i]) where they differ, else 0."""
    E = values.unsqueeze(-2) - values.unsqueeze(-1)
    # equal values (the diagonal, repeated ones) have no gap to divide by:
    # their directions contribute nothing
    distinct = E != 0
    return _mt["where"](distinct, 1 / _mt["where"](distinct, E, _mt["ones_like"](E)),
                        _mt["zeros_like"](E))


class _EighFn(Function):
    @staticmethod
    def forward(ctx, A, upper, vectors):
        L, V, info = _mt["_lapack_syevd"](A, upper, vectors)
        ctx.mark_non_differentiable(info)
        ctx.save_for_backward(L, V)
        ctx.save_for_forward(L, V)
        return L, V, info

    @staticmethod
    def backward(ctx, gL, gV, _gi):
        L, V = ctx.saved_tensors
        inner = gL.diag_embed()
        if gV is not None:
            VhgV = V.mH @ gV
            _check_phase(VhgV.diagonal(0, -2, -1), "linalg_eigh_backward")
            # only V^H gV's skew part moves orthonormal eigenvectors (torch's projection,
            # which makes the gradient Hermitian)
            inner = inner + _inv_gaps(L) * (_skew(VhgV) * 0.5)
        return V @ inner @ V.mH, None, None

    @staticmethod
    def jvp(ctx, dA, *_):
        L, V = ctx.saved_tensors
        S = V.mH @ dA @ V
        dL = S.diagonal(0, -2, -1)
        dL = dL.real if dL.dtype.is_complex else dL
        dV = V @ (_inv_gaps(L) * S)
        return dL, dV, None


def _check_phase(diag: Tensor, op: str) -> None:
    """torch's refusal of a gradient through complex eigenvectors that depends
    on their phases: diag, that of V^H gV, must be real (to 1e-2)."""
    if diag.dtype.is_complex and bool(diag.imag.abs().gt(1e-2).any()):
        raise RuntimeError(f"{op}: The eigenvectors in the complex case are specified up to "
                           f"multiplication by e^{{i phi}}. The specified loss function depends "
                           f"on this quantity, so it is ill-defined.")


def _check_uplo(UPLO):
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def _eigh(name, A, UPLO, vectors):
    c.check_matrix(name, A)
    c.check_square(name, A)
    _check_uplo(UPLO)
    c.check_lapack_dtype("linalg_eigh_cpu", A)
    upper = UPLO in ("U", "u")
    L, V, info = (_mt["_lapack_syevd"](A, upper, vectors) if c.lapack_direct(A)
                  else _EighFn.apply(A, upper, vectors))
    c.raise_for_info(info, lambda code: (
        f"The algorithm failed to converge because the input matrix is ill-conditioned or has "
        f"too many repeated eigenvalues (error code: {code})."), name=name)
    return L, V


@_overridable
def eigh(A: Tensor, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and eigenvectors of the symmetric A, read from its
    lower (UPLO='L') or upper triangle."""
    return tuple_out(out, _eigh("linalg.eigh", A, UPLO, True), c.EighResult)


@_overridable
def eigvalsh(A: Tensor, UPLO="L", *, out=None):
    """The eigenvalues (ascending) of the symmetric A."""
    # the eigenvectors carry its gradient and tangent: computed only when one is wanted
    return write_out(out, _eigh("linalg.eigh", A, UPLO, c.differentiated(A))[0])


def _skew(X: Tensor) -> Tensor:
    return X - X.mH


class _SvdFn(Function):
    """A = U diag(S) Vh, reduced (k = min(m, n) columns) or full; the
    gradient reads the first k columns only, as torch's."""

    @staticmethod
    def forward(ctx, A, full, compute_uv):
        U, S, Vh, info = _mt["_lapack_gesdd"](A, full, compute_uv)
        ctx.mark_non_differentiable(info)
        ctx.full = full
        ctx.save_for_backward(U, S, Vh)
        ctx.save_for_forward(U, S, Vh)
        return U, S, Vh, info

    @staticmethod
    def backward(ctx, gU, gS, gVh, _gi):
        U, S, Vh = ctx.saved_tensors
        k = S.shape[-1]
        U, Vh = U[..., :, :k], Vh[..., :k, :]
        return _svd_backward(U, S, Vh, gU, gS, gVh, ctx.full), None, None

    @staticmethod
    def jvp(ctx, dA, *_):
        U_all, S, Vh_all = ctx.saved_tensors
        k = S.shape[-1]
        m, n = dA.shape[-2], dA.shape[-1]
        if ctx.full and m != n:
            raise RuntimeError("linalg.svd: the forward-mode derivative of the full U and Vh of "
                               "a rectangular matrix is not defined; use full_matrices=False")
        U, Vh = U_all[..., :, :k], Vh_all[..., :k, :]
        V = Vh.mH
        P = U.mH @ dA @ V
        dS = P.diagonal(0, -2, -1)
        dS = dS.real if dS.dtype.is_complex else dS
        if U.numel() == 0 and U_all.shape[-1] == 0:
            return U_all, dS, Vh_all, None
        Sd = S.to(P.dtype).diag_embed()
        F = _inv_gaps(S * S)
        dU = U @ (F * (P @ Sd + Sd @ P.mH))
        dV = V @ (F * (Sd @ P + P.mH @ Sd))
        if P.dtype.is_complex:
            # the phase P's imaginary diagonal asks for, split between U and V
            phase = (P.diagonal(0, -2, -1).imag / (2 * S)) * 1j
            dU = dU + U * phase.unsqueeze(-2)
            dV = dV - V * phase.unsqueeze(-2)
        if m > k:
            dU = dU + (dA @ V - U @ P) / S.unsqueeze(-2)
        if n > k:
            dV = dV + (dA.mH @ U - V @ P.mH) / S.unsqueeze(-2)
        return dU, dS, dV.mH, None


def _svd_backward(U, S, Vh, gU, gS, gVh, full):
    k = S.shape[-1]
    if gU is not None:
        gU = gU[..., :, :k]
    if gVh is not None:
        gVh = gVh[..., :k, :]
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        return (U * gS.unsqueeze(-2)) @ Vh
    inner = gS.to(U.dtype).diag_embed() if gS is not None else _mt["zeros_like"](U[..., :k, :k])
    E = _inv_gaps(S * S)
    Sd = S.to(U.dtype).diag_embed()
    UhgU = _skew(U.mH @ gU) if gU is not None else None
    VhgV = _skew(Vh @ gVh.mH) if gVh is not None else None
    if U.dtype.is_complex:
        im_u = UhgU.diagonal(0, -2, -1).imag if UhgU is not None else 0 * S
        im_v = VhgV.diagonal(0, -2, -1).imag if VhgV is not None else 0 * S
        if bool((im_u + im_v).abs().gt(1e-2 + 1e-2 * im_v.abs()).any()):
            raise RuntimeError(
                "svd_backward: The singular vectors in the complex case are specified up to "
                "multiplication by e^{i phi}. The specified loss function depends on this "
                "phase term, making it ill-defined.")
    if UhgU is not None:
        inner = inner + (E * UhgU) @ Sd
    if VhgV is not None:
        inner = inner + Sd @ (E * VhgV)
    if U.dtype.is_complex and UhgU is not None and VhgV is not None:
        inner = inner + (UhgU.diagonal(0, -2, -1) / (2 * S)).diag_embed()
    gA = U @ inner @ Vh
    if gU is not None and m > k:
        gA = gA + ((gU - U @ (U.mH @ gU)) / S.unsqueeze(-2)) @ Vh
    if gVh is not None and n > k:
        gA = gA + U @ ((gVh - (gVh @ Vh.mH) @ Vh) / S.unsqueeze(-1))
    return gA


def _check_driver(driver):
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")


def _svd(name, A, full, compute_uv):
    c.check_matrix(name, A)
    c.check_float(name, A)
    c.check_lapack_dtype("linalg_svd_cpu", A)
    U, S, Vh, info = (_mt["_lapack_gesdd"](A, bool(full), bool(compute_uv)) if c.lapack_direct(A)
                      else _SvdFn.apply(A, bool(full), bool(compute_uv)))
    c.raise_for_info(info, lambda code: (
        f"The algorithm failed to converge because the input matrix is ill-conditioned or has "
        f"too many repeated singular values (error code: {code})."), name=name)
    return U, S, Vh


@_overridable
def svd(A: Tensor, full_matrices=True, *, driver=None, out=None):
    """The singular value decomposition A = U diag(S) Vh, S descending; U and Vh
    square (full_matrices) or with min(m, n) columns / rows."""
    _check_driver(driver)
    return tuple_out(out, _svd("linalg.svd", A, full_matrices, True), c.SVDResult)


@_overridable
def svdvals(A: Tensor, *, driver=None, out=None):
    """The singular values of A, descending."""
    _check_driver(driver)
    # U and Vh carry its gradient and tangent: computed only when one is wanted
    return write_out(out, _svd("linalg.svd", A, False, c.differentiated(A))[1])


def legacy_svd(input: Tensor, some=True, compute_uv=True, *, out=None):
    """torch.svd: (U, S, V) with V, not Vh; zero U and V of full size without
    compute_uv."""
    if compute_uv:
        U, S, Vh = _svd("linalg.svd", input, not some, True)
        results = (U, S, Vh.mH)
    else:
        S = svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        results = (_mt["zeros"](*batch, m, m, dtype=input.dtype), S,
                   _mt["zeros"](*batch, n, n, dtype=input.dtype))
    return tuple_out(out, results, c.LegacySVDResult)


def _qr_factors(A, complete):
    """Q, R of A (m >= n) from LAPACK's geqrf and orgqr."""
    a, tau = _mt["_lapack_geqrf"](A)
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    cols = m if complete else k
    if cols > n:
        pad = _mt["zeros"](*A.shape[:-1], cols - n, dtype=A.dtype)
        a = _mt["cat"]([a, pad], -1)
    # a is column-major from LAPACK: handed on as it is (orgqr's copy is then
    # a plain one), and R taken as the lower triangle of its transpose, so R
    # is column-major as torch's
    Q = _mt["_lapack_orgqr"](a[..., :, :cols], tau)
    R = a[..., :cols, :n].mT.tril().mT
    return Q, R


_QR_R_ONLY = ("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
              "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
              "through linalg.qr.")


class _QRFn(Function):
    """Q, R of A (m >= n, reduced); wide A goes through _qr's split. With
    r_only (mode='r') Q is dropped, so no derivative exists, as torch's."""

    @staticmethod
    def forward(ctx, A, complete, r_only):
        Q, R = _qr_factors(A, complete)
        ctx.r_only = r_only
        ctx.save_for_backward(Q, R)
        ctx.save_for_forward(Q, R)
        return Q, R

    @staticmethod
    def backward(ctx, gQ, gR):
        if ctx.r_only:
            raise RuntimeError(_QR_R_ONLY)
        Q, R = ctx.saved_tensors
        return _qr_backward(Q, R, gQ, gR), None, None

    @staticmethod
    def jvp(ctx, dA, *_):
        if ctx.r_only:
            raise RuntimeError(_QR_R_ONLY)
        return _qr_jvp(*ctx.saved_tensors, dA)


def _imag_diag(M: Tensor) -> Tensor:
    """i Im(diag(M)) as a matrix: the part of M's diagonal a complex QR's real
    R diagonal cannot move."""
    return (M.diagonal(0, -2, -1).imag * 1j).diag_embed()


def _copy_upper_to_lower(M: Tensor) -> Tensor:
    """M's upper triangle made Hermitian, its diagonal real (torch's
    syminvadj of triu(M))."""
    out = M.triu() + M.triu(1).mH
    return out - _imag_diag(M) if M.dtype.is_complex else out


def _qr_backward(Q, R, gQ, gR):
    m, n = Q.shape[-2], R.shape[-1]
    if gQ is None:
        gQ = _mt["zeros_like"](Q)
    if gR is None:
        gR = _mt["zeros_like"](R)
    if Q.shape[-1] > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                           "and nrows > ncols.")
    if m >= n:
        M = gR @ R.mH - Q.mH @ gQ
        B = gQ + Q @ _copy_upper_to_lower(M)
        return solve_triangular(R.mH, B, upper=False, left=False)
    # A = Q [R1 R2]: R2 = Q^T A2
    R1, R2, gR1, gR2 = R[..., :, :m], R[..., :, m:], gR[..., :, :m], gR[..., :, m:]
    A2 = Q @ R2
    gA2 = Q @ gR2
    gQ = gQ + A2 @ gR2.mH
    gA1 = _qr_backward(Q, R1, gQ, gR1)
    return _mt["cat"]([gA1, gA2], -1)


def _qr_jvp(Q, R, dA):
    m, n = Q.shape[-2], R.shape[-1]
    if Q.shape[-1] > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                           "and nrows > ncols.")
    if m < n:
        R1, R2 = R[..., :, :m], R[..., :, m:]
        dQ, dR1 = _qr_jvp(Q, R1, dA[..., :, :m])
        dR2 = dQ.mH @ (Q @ R2) + Q.mH @ dA[..., :, m:]
        return dQ, _mt["cat"]([dR1, dR2], -1)
    C = solve_triangular(R, Q.mH @ dA, upper=True, left=False)
    low = C.tril(-1)
    Omega = low - low.mH
    if C.dtype.is_complex:
        Omega = Omega + _imag_diag(C)
    dR = (C - Omega) @ R
    dQ = solve_triangular(R, dA, upper=True, left=False) - Q @ (C - Omega)
    return dQ, dR


def _qr(name, A, mode):
    c.check_matrix(name, A)
    c.check_float(name, A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           f"'reduced' (default), 'r', or 'complete'")
    c.check_lapack_dtype("geqrf_cpu", A)
    complete = mode == "complete"
    Q, R = _qr_factors(A, complete) if c.lapack_direct(A) else _QRFn.apply(A, complete,
                                                                              mode == "r")
    if mode == "r":
        return _mt["empty"](0, dtype=A.dtype), R
    return Q, R


@_overridable
def qr(A: Tensor, mode="reduced", *, out=None):
    """The QR decomposition A = Q R: Q with orthonormal columns, R upper
    triangular; mode 'reduced', 'complete' (square Q) or 'r' (R only)."""
    return tuple_out(out, _qr("linalg.qr", A, mode), c.QRResult)


def legacy_qr(input: Tensor, some=True, *, out=None):
    """torch.qr: (Q, R), reduced when some, else complete."""
    return tuple_out(out, _qr("linalg.qr", input, "reduced" if some else "complete"),
                      c.LegacyQRResult)


def geqrf(input: Tensor, *, out=None):
    """LAPACK's geqrf: R above the diagonal and the Householder reflectors below
    it, with their scalar factors tau. Not differentiable, as torch's."""
    c.check_matrix("geqrf", input, "input")
    c.check_lapack_dtype("geqrf_cpu", input)
    a, tau = _mt["_lapack_geqrf"](input.detach())
    return tuple_out(out, (a, tau), c.GeqrfResult)


def _reflector(A: Tensor, i: int) -> Tensor:
    """The i-th Householder vector stored in A's column i: 1 at row i, zeros above."""
    v = A[..., :, i].clone()
    m = A.shape[-2]
    mask = _mt["arange"](m) > i
    unit = (_mt["arange"](m) == i).to(A.dtype)
    return _mt["where"](mask, v, _mt["zeros_like"](v)) + unit


def _apply_reflectors(A: Tensor, tau: Tensor, C: Tensor, left: bool, transpose: bool):
    """op(Q) C or C op(Q) for Q = H_0 ... H_{k-1}, H_i = I - tau_i v_i v_i^H, by one
    rank-one update per reflector (differentiable in A, tau and C)."""
    k = tau.shape[-1]
    # Q C applies H_{k-1} first; Q^H C applies H_0 first; C Q applies H_0 first
    order = list(range(k)) if left == transpose else list(range(k - 1, -1, -1))
    for i in order:
        v = _reflector(A, i).unsqueeze(-1)
        t = tau[..., i].unsqueeze(-1).unsqueeze(-1)
        # H_i^H = I - conj(tau_i) v_i v_i^H
        t = t.conj() if transpose else t
        if left:
            C = C - t * v @ (v.mH @ C)
        else:
            C = C - t * (C @ v) @ v.mH
    return C


@_overridable
def householder_product(A: Tensor, tau: Tensor, *, out=None):
    """The first n columns of the product of the Householder reflectors stored in
    A's columns with scalar factors tau (LAPACK's orgqr), differentiable in both."""
    name = "torch.linalg.householder_product"
    c.check_matrix(name, A, "input")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           f"input.shape[-1]")
    if tau.shape[-1] > A.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           f"tau.shape[-1]")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"{name}: tau dtype {tau.dtype._scalar_name} does not match input "
                           f"dtype {A.dtype._scalar_name}")
    c.check_lapack_dtype("orgqr_cpu", A)
    m, n = A.shape[-2], A.shape[-1]
    eye = _mt["eye"](m, n, dtype=A.dtype).expand(*A.shape[:-2], m, n)
    Q = _apply_reflectors(A, tau, eye, True, False)
    if tau.shape[-1] == 0:
        # no reflectors: the identity, still a function of A and tau as torch's is
        Q = Q + A * 0 + tau.sum(-1, keepdim=True).unsqueeze(-1) * 0
    return checked_out("torch.linalg.householder_product", out, Q)


def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left=True, transpose=False, *,
          out=None):
    """input3 multiplied by the product Q of the Householder reflectors (input,
    input2): Q C, Q^T C, C Q or C Q^T."""
    name = "torch.ormqr"
    if input.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if input3.dim() < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    rows = input3.shape[side]
    if input2.shape[-1] > min(rows, input.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], "
                           f"input.shape[-1])")
    if input.shape[-2] != rows:
        raise RuntimeError(f"{name}: input.shape[-2] must be equal to other.shape[{side}]")
    c.check_lapack_dtype("ormqr_cpu", input)
    c.check_same_dtype(name, input, input3, "input", "other")
    return write_out(out, _apply_reflectors(input, input2, input3, bool(left), bool(transpose)))


def _check_real_tolerances(name: str, **tols) -> None:
    """torch's refusal of complex tolerance tensors, in argument order."""
    for arg, tol in tols.items():
        if isinstance(tol, Tensor) and tol.is_complex():
            raise RuntimeError(f"{name}: {arg} tensor of complex type is not supported. "
                               f"Got {tol.dtype._scalar_name}")


def _tolerances(S: Tensor, A: Tensor, atol, rtol, hermitian):
    """The cut below which singular values count as zero: max(atol, rtol * S_max)."""
    eps = finfo(A.dtype).eps
    default = eps * max(A.shape[-2], A.shape[-1])
    # tolerance tensors hold one value per matrix: a trailing dim aligns them with S's
    if isinstance(atol, Tensor):
        atol = atol.unsqueeze(-1)
    if isinstance(rtol, Tensor):
        rtol = rtol.unsqueeze(-1)
    if rtol is None:
        if isinstance(atol, Tensor):
            rtol = _mt["where"](atol > 0, _mt["zeros_like"](atol, dtype=S.dtype),
                                _mt["full_like"](atol, default, dtype=S.dtype))
        else:
            rtol = 0.0 if (atol is not None and atol > 0) else default
    smax = S.amax(-1, keepdim=True) if S.numel() else _mt["zeros"](
        *S.shape[:-1], 1, dtype=S.dtype)
    cut = smax * rtol
    if atol is not None:
        cut = _mt["maximum"](cut, atol if isinstance(atol, Tensor) else
                             _mt["full_like"](cut, float(atol)))
    return cut


def _safe_reciprocal(x: Tensor, keep: Tensor) -> Tensor:
    """1 / x where keep, else 0, with no infinite intermediate for the
    gradient to multiply by zero."""
    one = _mt["ones_like"](x)
    return _mt["where"](keep, 1 / _mt["where"](keep, x, one), _mt["zeros_like"](x))


def _pinv_value(A: Tensor, atol, rtol, hermitian: bool) -> Tensor:
    if hermitian:
        L, V = _eigh("linalg.eigh", A, "L", True)
        S = L.abs()
        inv = _safe_reciprocal(L, S > _tolerances(S, A, atol, rtol, True))
        return (V * inv.unsqueeze(-2)) @ V.mH
    U, S, Vh = _svd("linalg.svd", A, False, True)
    inv = _safe_reciprocal(S, S > _tolerances(S, A, atol, rtol, False))
    return (Vh.mH * inv.unsqueeze(-2)) @ U.mH


def _pinv_backward(g: Tensor, P: Tensor, A: Tensor) -> Tensor:
    """torch's pinv_backward: the adjoint of _pinv_jvp, in A and its
    pseudo-inverse P alone (so also for a Hermitian pinv of a non-Hermitian A,
    and through repeated singular values)."""
    Ph, gh = P.mH, g.mH
    if A.shape[-2] <= A.shape[-1]:
        K = gh @ P
        KPh = K @ Ph
        return -(P @ K).mH + KPh - (A @ P) @ KPh + (Ph @ P) @ (gh - K @ A)
    K = P @ gh
    PhK = Ph @ K
    return -(K @ P).mH + (gh - A @ K) @ P @ Ph + PhK - PhK @ P @ A


def _pinv_jvp(A: Tensor, P: Tensor, dA: Tensor) -> Tensor:
    """torch's pinv tangent (Golub and Pereyra):
    dP = -P dA P + (I - P A) dA^H P^H P + P P^H dA^H (I - A P)."""
    dAh, Ph = dA.mH, P.mH
    if A.shape[-2] <= A.shape[-1]:
        K = Ph @ dAh
        return P @ (K - K.mH - K @ (A @ P)) + (dAh - P @ (A @ dAh)) @ (Ph @ P)
    K = P @ dA
    Kh = K.mH
    return (Kh - K - (P @ A) @ Kh) @ P + (P @ Ph) @ (dAh - (dAh @ A) @ P)


class _PinvFn(Function):
    """linalg.pinv with torch's own derivative of the pseudo-inverse, not that
    of the SVD or eigh it is computed from."""

    @staticmethod
    def forward(ctx, A, atol, rtol, hermitian):
        P = _pinv_value(A, atol, rtol, hermitian)
        ctx.save_for_backward(A, P)
        ctx.save_for_forward(A, P)
        return P

    @staticmethod
    def backward(ctx, g):
        A, P = ctx.saved_tensors
        return _pinv_backward(g, P, A), None, None, None

    @staticmethod
    def jvp(ctx, dA, *_):
        return _pinv_jvp(*ctx.saved_tensors, dA)


@_overridable
def pinv(A: Tensor, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """The Moore-Penrose pseudo-inverse of A: singular values at or below
    max(atol, rtol * largest) dropped (torch's older positional rcond is rtol
    with atol 0)."""
    _check_real_tolerances("torch.linalg.pinv", rcond=rcond, atol=atol, rtol=rtol)
    if rcond is not None:
        atol, rtol = 0.0, rcond
    if A.dim() < 2 or str(A.dtype) not in ("minitorch.float32", "minitorch.float64",
                                           "minitorch.complex64", "minitorch.complex128"):
        shape = ", ".join(str(s) for s in A.shape)
        raise RuntimeError(f"linalg.pinv({A.dtype._scalar_name}{{[{shape}]}}): expected a tensor "
                           f"with 2 or more dimensions of float, double, cfloat or cdouble types")
    for arg, tol in (("atol", atol), ("rtol", rtol)):
        if isinstance(tol, Tensor) and tol.requires_grad and _C.is_grad_enabled():
            raise RuntimeError(f"The function 'linalg_pinv' is not differentiable with respect to "
                               f"argument '{arg}'. This input cannot have requires_grad True.")
    if c.differentiated(A):
        return checked_out("linalg.pinv", out, _PinvFn.apply(A, atol, rtol, bool(hermitian)))
    return checked_out("linalg.pinv", out, _pinv_value(A, atol, rtol, bool(hermitian)))


def pinverse(input: Tensor, rcond=1e-15):
    """The pseudo-inverse of input, singular values at or below rcond times the
    largest dropped; see linalg.pinv."""
    return pinv(input, rtol=rcond)


@_overridable
def matrix_rank(A: Tensor, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """The number of singular values of A above max(atol, rtol * largest)."""
    name = "torch.linalg.matrix_rank"
    c.check_matrix(name, A, "input")
    _check_real_tolerances(name, atol=atol if tol is None else tol, rtol=rtol)
    if tol is None and atol is None and rtol is None:
        c.check_epsilon_dtype(A)
    c.check_float("linalg.svd", A)
    if tol is not None:
        atol, rtol = tol, 0.0
    S = (_eigh("linalg.eigh", A.detach(), "L", False)[0].abs() if hermitian
         else _svd("linalg.svd", A.detach(), False, False)[1])
    cut = _tolerances(S, A, atol, rtol, hermitian)
    return checked_out("torch.linalg.matrix_rank", out, (S > cut).sum(-1))


def matrix_norm_svd(A: Tensor, ord) -> Tensor:
    """The 2, -2 and nuclear matrix norms over the last two dims, from the
    singular values."""
    S = svdvals(A)
    if ord == "nuc":
        return S.sum(-1)
    if ord == 2 and S.shape[-1] == 0:
        # torch's largest singular value of an empty matrix is 0; its
        # smallest raises amin's error
        return S.sum(-1)
    return S.amax(-1) if ord == 2 else S.amin(-1)


def _ord_text(p) -> str:
    """An order as torch's messages print it (3.0 as 3, inf as inf)."""
    if isinstance(p, float) and p.is_integer():
        return str(int(p))
    return str(p)


@_overridable
def cond(A: Tensor, p=None, *, out=None):
    """The condition number of A in the norm p (2 when None: the ratio of the
    largest to the smallest singular value); 0 for empty matrices, as torch."""
    if isinstance(p, str):
        # torch's string orders check the shape first, in their own name
        c.check_square(f"linalg.cond(ord={p})", A)
    elif A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p not in (None, 2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc"):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {_ord_text(p)}")
    if A.numel() == 0 and not isinstance(p, str):
        part = {"complex64": _C.float32, "complex128": _C.float64}.get(
            str(A.dtype).split(".")[-1], A.dtype)
        return checked_out("linalg.cond", out, _mt["zeros"](tuple(A.shape[:-2]), dtype=part))
    if p in (None, 2, -2):
        S = svdvals(A)
        r = S[..., 0] / S[..., -1] if p in (None, 2) else S[..., -1] / S[..., 0]
        return checked_out("linalg.cond", out, r)
    c.check_square(f"linalg.cond(ord={_ord_text(p)})", A)
    from ._lu import _inv_ex
    from ._norms import matrix_norm
    if A.numel() == 0:
        return checked_out("linalg.cond", out, matrix_norm(A, p))
    # a singular matrix's condition number is inf, as torch's; its inverse is zeroed first so
    # the norms (an SVD for 'nuc') never see the failed solve's values
    A_inv, info = _inv_ex("linalg.inv", A)
    singular = info > 0
    A_inv = A_inv.masked_fill(singular.unsqueeze(-1).unsqueeze(-1), 0)
    r = (matrix_norm(A, p) * matrix_norm(A_inv, p)).masked_fill(singular, math.inf)
    return checked_out("linalg.cond", out, r)


_DRIVERS = {"gels": 0, "gelsy": 1, "gelsd": 2, "gelss": 3}


@_overridable
def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None, out=None):
    """The least-squares solution of A X = B: (solution, residuals, rank,
    singular_values), the last three as torch's driver gives them."""
    name = "torch.linalg.lstsq"
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           f"gelss)")
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if B.dim() < 1:
        raise RuntimeError(f"{name}: other must have at least 1 dimension.")
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    Bm = B.unsqueeze(-1) if vector else B
    if A.shape[-2] != Bm.shape[-2]:
        raise RuntimeError(f"{name}: input.size(-2) should match "
                           f"other.size({-1 if vector else -2})")
    if A.dtype != B.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but got "
                           f"input's dtype {A.dtype._scalar_name} and other's dtype "
                           f"{B.dtype._scalar_name}")
    if rcond is None:
        c.check_epsilon_dtype(A)
    c.check_lapack_dtype("linalg_lstsq_cpu", A)
    m, n = A.shape[-2], A.shape[-1]
    eps = finfo(A.dtype).eps
    rc = float(rcond) if rcond is not None else eps * max(m, n)
    Ab, Bb = c.broadcast_batch(A, Bm)
    X, rank, sv, _ = _mt["_lapack_gels"](Ab.detach(), Bb.detach(), rc, _DRIVERS[driver])
    X = X[..., :n, :]
    if c.differentiated(A) or c.differentiated(B):
        # the differentiable path for the solution: pinv(A) B (equal where A has full rank)
        X = pinv(Ab) @ Bb
    # empty results are still functions of the inputs (they require grad), as torch's,
    # and real as its residuals and singular values are
    empty = X.reshape(-1)[:0]
    empty = empty.abs() if empty.dtype.is_complex else empty
    residuals = empty
    if m > n and driver != "gelsy" and (driver == "gels" or bool((rank == n).all())):
        residuals = (Ab @ X - Bb).abs().pow(2).sum(-2)
        if driver == "gels" and Ab.numel() == 0:
            # torch's gels hands back an empty A's residuals as zeros, the other drivers |B|^2
            residuals = _mt["zeros_like"](residuals)
    if driver == "gels":
        rank = _mt["empty"](0, dtype=_C.int64)
    if driver not in ("gelsd", "gelss"):
        sv = empty
    if vector:
        X = X.squeeze(-1)
    return tuple_out(out, (X, residuals, rank, sv), c.LstsqResult)


