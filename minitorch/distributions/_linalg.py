"""The little dense linear algebra MultivariateNormal needs, composed of
existing ops so autograd differentiates it: a Cholesky factorisation and a
lower-triangular solve, both batched over leading dims. They loop over the
n columns/rows in Python (n ops each): for the small event sizes
distributions use, not as a general linalg."""
from typing import Any

import minitorch


def _factor_columns(A: Any) -> Any:
    """The Cholesky columns of A and each column's pivot (A[j,j] minus the
    squares before it); a pivot <= 0 means A is not positive definite."""
    n = A.shape[-1]
    # factor the symmetric part, so the gradient is symmetric as torch's cholesky's is
    A = 0.5 * (A + A.mT)
    rows = minitorch.arange(n)
    cols, pivots = [], []
    for j in range(n):
        v = A[..., :, j]
        if cols:
            prev = minitorch.stack(cols, -1)
            v = v - (prev * prev[..., j:j + 1, :]).sum(-1)
        d = v[..., j]
        pivots.append(d)
        cols.append(minitorch.where(rows >= j, v / d.clamp(min=0).sqrt().unsqueeze(-1), 0.0))
    return cols, minitorch.stack(pivots, -1)


def cholesky(A: Any) -> Any:
    """The lower-triangular L with L L^T = A, for symmetric positive-definite A."""
    cols, pivots = _factor_columns(A)
    bad = ~(pivots > 0)
    if bool(bad.any()):
        flat = bad.reshape(-1, bad.shape[-1])
        batch = int(flat.any(-1).to(minitorch.int64).argmax())
        order = int(flat[batch].to(minitorch.int64).argmax()) + 1
        where = f"(Batch element {batch}): " if A.dim() > 2 else ""
        raise RuntimeError(f"linalg.cholesky: {where}The factorization could not be completed "
                           f"because the input is not positive-definite (the leading minor of "
                           f"order {order} is not positive-definite).")
    return minitorch.stack(cols, -1)


def cholesky_ok(A: Any) -> Any:
    """Per batch entry: whether A has a Cholesky factor (is positive definite)."""
    with minitorch.no_grad():
        return (_factor_columns(A)[1] > 0).all(-1)


def solve_lower(L: Any, B: Any) -> Any:
    """X with L X = B for lower-triangular L (..., n, n) and B (..., n, k),
    by forward substitution; the batch dims broadcast."""
    n = L.shape[-1]
    xs = []
    for i in range(n):
        b = B[..., i, :]
        if xs:
            prev = minitorch.stack(xs, -2)
            b = b - (L[..., i, :i].unsqueeze(-1) * prev).sum(-2)
        xs.append(b / L[..., i, i].unsqueeze(-1))
    return minitorch.stack(xs, -2)
