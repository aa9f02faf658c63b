"""The linear algebra orthogonal() needs, as differentiable compositions of
minitorch ops (matrix exponential, the solve of a Cayley transform, the
product of Householder reflectors) and, for the no-grad initialisation, a
Householder QR with LAPACK's conventions (geqrf) in NumPy. Private: minitorch
has no public linalg.matrix_exp, solve, householder_product or geqrf yet."""
import math

import numpy as np

import minitorch

# Taylor terms after scaling the norm below 1/2: the remainder is below
# float64's epsilon
_TAYLOR_TERMS = 18


def _eye_like(a, n, k=None):
    eye = minitorch.eye(n, n if k is None else k, dtype=a.dtype)
    return eye.expand(*a.shape[:-2], n, n if k is None else k)


def matrix_exp(a):
    """exp(a) of square matrices (batched) by scaling and squaring."""
    n = a.shape[-1]
    with minitorch.no_grad():
        norm = float(a.detach().abs().sum(-2).max()) if a.numel() else 0.0
    s = max(0, int(math.ceil(math.log2(norm))) + 1) if norm > 0 else 0
    x = a / (2.0 ** s)
    eye = _eye_like(a, n)
    result = eye
    for k in range(_TAYLOR_TERMS, 0, -1):  # Horner: I + x/1 (I + x/2 (I + ...))
        result = eye + (x @ result) / k
    for _ in range(s):
        result = result @ result
    return result


def solve(a, b):
    """a^-1 b by Gauss-Jordan elimination without pivoting: enough for
    a = I - S/2 with S skew-symmetric (its symmetric part is I, so the
    pivots never vanish and elimination is stable)."""
    n = a.shape[-1]
    m = minitorch.cat([a, b], dim=-1)
    rows = minitorch.arange(n).reshape(n, 1)
    for i in range(n):
        pivot_row = m[..., i:i + 1, :] / m[..., i:i + 1, i:i + 1]
        factor = m[..., :, i:i + 1]
        eliminated = m - factor * pivot_row
        m = minitorch.where(rows == i, pivot_row.expand_as(m), eliminated)
    return m[..., :, n:]


def householder_product(a, tau):
    """The first columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T with v_i
    the i-th column of a below the diagonal and 1 on it (as torch's)."""
    m, n = a.shape[-2], a.shape[-1]
    q = _eye_like(a, m, n)
    rows = minitorch.arange(m).reshape(m, 1)
    for i in range(tau.shape[-1] - 1, -1, -1):
        col = a[..., :, i:i + 1]
        v = minitorch.where(rows > i, col, (rows == i).to(a.dtype))
        q = q - tau[..., i:i + 1].unsqueeze(-1) * (v @ (v.mT @ q))
    return q


def _geqrf_one(r):
    m, n = r.shape
    tau = np.zeros(min(m, n), dtype=r.dtype)
    for j in range(min(m, n)):
        alpha, x = r[j, j], r[j + 1:, j]
        xnorm = np.linalg.norm(x)
        if xnorm == 0.0:
            continue
        beta = -math.copysign(math.hypot(alpha, xnorm), alpha)
        tau[j] = (beta - alpha) / beta
        r[j + 1:, j] = x / (alpha - beta)
        r[j, j] = beta
        v = np.concatenate([[1.0], r[j + 1:, j]])
        block = r[j:, j + 1:]
        block -= tau[j] * np.outer(v, v @ block)
    return r, tau


def geqrf(a):
    """LAPACK's geqrf of each matrix of a: (reflectors and R packed, tau)."""
    x = np.array(a.detach().to(minitorch.float64).tolist(), dtype=np.float64)
    flat = x.reshape(-1, *x.shape[-2:])
    taus = []
    for b in range(flat.shape[0]):
        flat[b], t = _geqrf_one(flat[b])
        taus.append(t)
    tau = np.stack(taus).reshape(*x.shape[:-2], min(x.shape[-2:])) if taus else \
        np.zeros((*x.shape[:-2], min(x.shape[-2:])))
    return (minitorch.tensor(flat.reshape(x.shape), dtype=a.dtype),
            minitorch.tensor(tau, dtype=a.dtype))
