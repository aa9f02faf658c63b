"""linalg.eig and linalg.eigvals: the eigendecomposition of a general square
matrix by LAPACK geev (a real matrix's eigenvalues and eigenvectors come
out complex), as an autograd Function with torch's backward
(linalg_eig_backward, including its refusal of a loss that depends on the
eigenvectors' phases) and tangent (linalg_eig_jvp)."""

from .. import _C
from .._tensor import Tensor
from ..autograd.function import Function
from ..overrides import overridable as _overridable
from . import _common as c
from ._lu import solve
from ._out import write_out

_mt = _C._functions


EigResult = c.named("linalg_eig", "eigenvalues", "eigenvectors")


def _gaps(L: Tensor) -> Tensor:
    """E with E[i, j] = L[j] - L[i], its diagonal set to one (divided by
    where a difference is meaningless)."""
    E = L.unsqueeze(-2) - L.unsqueeze(-1)
    eye = _mt["eye"](L.shape[-1]).bool()
    return _mt["where"](eye, _mt["ones_like"](E), E)


class _EigFn(Function):
    @staticmethod
    def forward(ctx, A, vectors):
        L, V, info = _mt["_lapack_geev"](A, vectors)
        ctx.mark_non_differentiable(info)
        ctx.real_input = not A.dtype.is_complex
        ctx.save_for_backward(L, V)
        ctx.save_for_forward(L, V)
        return L, V, info

    @staticmethod
    def backward(ctx, gL, gV, _gi):
        L, V = ctx.saved_tensors
        Vh = V.mH
        eye = _mt["eye"](L.shape[-1]).bool()
        if gV is None:
            inner = (gL if gL is not None else _mt["zeros_like"](L)).diag_embed()
        else:
            VhgV = Vh @ gV
            diag = VhgV.diagonal(0, -2, -1)
            # V is fixed only up to a phase per column: a loss that sees the
            # phase has no gradient (torch's check, with its tolerance)
            if bool(diag.imag.abs().gt(1e-2).any()):
                raise RuntimeError(
                    "linalg_eig_backward: The eigenvectors in the complex case are specified "
                    "up to multiplication by e^{i phi}. The specified loss function depends on "
                    "this quantity, so it is ill-defined.")
            # the part of gV along the normalization of each column goes
            VhgV = VhgV - Vh @ (V * diag.real.unsqueeze(-2))
            inner = VhgV / _gaps(L).conj()
            if gL is not None:
                inner = _mt["where"](eye, gL.diag_embed(), inner)
        gA = solve(Vh, inner @ Vh)
        return (gA.real if ctx.real_input else gA), None

    @staticmethod
    def jvp(ctx, dA, _v):
        L, V = ctx.saved_tensors
        dA = dA.to(L.dtype) if ctx.real_input else dA
        dP = solve(V, dA @ V)
        dL = dP.diagonal(0, -2, -1)
        eye = _mt["eye"](L.shape[-1]).bool()
        dX = _mt["where"](eye, _mt["zeros_like"](dP), dP / _gaps(L))
        dV = V @ dX
        # keep each column at norm one, as LAPACK's are
        dV = dV - V * (V.mH @ dV).diagonal(0, -2, -1).real.unsqueeze(-2)
        return dL, dV, None


def _eig(name: str, A: Tensor, vectors: bool):
    c.check_matrix(name, A)
    c.check_square(name, A)
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {A.dtype._scalar_name}")
    c.check_lapack_dtype("linalg_eig_out_cpu", A)
    if A.numel() and not bool(A.detach().isfinite().all()):
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    L, V, info = _EigFn.apply(A, vectors)
    c.raise_for_info(info, lambda code: (
        f"The algorithm failed to converge because the input matrix is ill-conditioned or has "
        f"too many repeated eigenvalues (error code: {code})."), name=name)
    return L, V


def _check_out_dtype(name: str, what: str, A: Tensor, t: Tensor) -> None:
    if not t.dtype.is_complex:
        complex_name = "ComplexDouble" if str(A.dtype).endswith(("float64", "complex128")) \
            else "ComplexFloat"
        raise RuntimeError(f"{name}: Expected {what} to be safely castable from {complex_name} "
                           f"dtype, but got {what} with dtype {t.dtype._scalar_name}")


@_overridable
def eig(A: Tensor, *, out=None):
    """Eigenvalues and right eigenvectors (columns of norm 1) of the square A;
    complex, whatever A's dtype."""
    if out is not None:
        _check_out_dtype("torch.linalg.eig", "eigenvalues", A, out[0])
        _check_out_dtype("torch.linalg.eig", "eigenvectors", A, out[1])
    L, V = _eig("linalg.eig", A, True)
    if out is None:
        return EigResult((L, V))
    write_out(out[0], L.to(out[0].dtype))
    write_out(out[1], V.to(out[1].dtype))
    return EigResult(tuple(out))


@_overridable
def eigvals(A: Tensor, *, out=None):
    """The eigenvalues of the square A, complex whatever A's dtype."""
    if out is not None:
        _check_out_dtype("torch.linalg.eigvals", "eigenvalues", A, out)
    # with a gradient to carry, the eigenvectors carry it (torch's way)
    vectors = c.differentiated(A)
    L = _eig("linalg.eigvals", A, vectors)[0]
    return write_out(out, L if out is None else L.to(out.dtype))
