"""linalg.matrix_exp as torch computes it, in the input's own dtype (so a
float32 result carries torch's float32 rounding): Bader, Blanes and Casas's
optimized Taylor polynomials of degree 1, 2, 4, 8, 12 or 18, the degree
chosen by the matrix's 1-norm against per-precision thresholds (a batch of
more than one matrix always takes degree 18), and for a norm past the
degree-12 threshold scaling by a power of two and squaring back. Its
gradient and tangent are torch's: the upper-right block of the exponential
of [[A^H, G], [0, A^H]] (of [[A, dA], [0, A]] for the tangent)."""
import math
import struct

from .. import _C
from .._tensor import Tensor
from ..autograd.function import Function

_mt = _C._functions


def _single(x: float) -> float:
    """x rounded to float32, as torch's float constants are."""
    return struct.unpack("f", struct.pack("f", x))[0]


# the largest 1-norm each degree (1, 2, 4, 8, 12, 18) is accurate to
_THETAS_DOUBLE = (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                  4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00)
_THETAS_SINGLE = tuple(_single(t) for t in (
    1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
    5.800524627688768e-01, 1.461661507209034e+00, 3.010066362817634e+00))

# degree 12: row i gives B_i over (I, A, A^2, A^3)
_B12 = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052,
         -0.04623946134063071740),
        (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031,
         0.01108844528519167989),
        (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968,
         0.00610700528898058230),
        (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079,
         -0.00675951846863086359))

# degree 18: row i gives B_i over (I, A, A^2, A^3, A^6)
_B18 = ((0., -1.00365581030144618291e-01, -8.02924648241156932449e-03,
         -8.92138498045729985177e-04, 0.),
        (0., 3.97849749499645077844e-01, 1.36783778460411720168e+00,
         4.98289622525382669416e-01, -6.37898194594723280150e-04),
        (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
         -6.98210122488052056106e-03, 3.34975017086070470649e-05),
        (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
         2.95552570429315521194e-02, -1.39180257516060693404e-05),
        (0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02,
         -1.40086798182036094347e-05))


class _Consts:
    """The polynomial coefficients in the precision the matrices are in."""

    def __init__(self, single: bool):
        r = _single if single else float
        self.thetas = _THETAS_SINGLE if single else _THETAS_DOUBLE
        self.b12 = tuple(tuple(r(v) for v in row) for row in _B12)
        self.b18 = tuple(tuple(r(v) for v in row) for row in _B18)
        sqrt_177 = r(0.1330413469565007072504e+2)
        x3 = r(2.0 / 3.0)
        self.x1 = r(x3 * ((1.0 + sqrt_177) / 88.0))
        self.x2 = r(x3 * ((1.0 + sqrt_177) / 352.0))
        self.x3 = x3
        self.x4 = r((-271.0 + 29.0 * sqrt_177) / (315.0 * x3))
        self.x5 = r((-11.0 + 11.0 * sqrt_177) / (1260.0 * x3))
        self.x6 = r((-99.0 + 11.0 * sqrt_177) / (5040.0 * x3))
        self.x7 = r((89.0 - sqrt_177) / (5040.0 * x3))
        self.y2 = r((857.0 - 58.0 * sqrt_177) / 630.0)
        self.quarter = tuple(r(v) for v in (1 / 2.0, 1 / 6.0, 1 / 24.0))


# below this many multiply-adds torch's batched product is its plain loop, each
# entry summed in order in the dtype (above, its BLAS)
_PLAIN_PRODUCT = 400


def _mm(X: Tensor, Y: Tensor) -> Tensor:
    """X @ Y, square matrices, rounded as torch's batched product rounds them."""
    n = X.shape[-1]
    if n ** 3 >= _PLAIN_PRODUCT:
        return X @ Y
    out = X[..., :, 0:1] * Y[..., 0:1, :]
    for i in range(1, n):
        out = out + X[..., :, i:i + 1] * Y[..., i:i + 1, :]
    return out


def _combine(mats, coeffs):
    """sum_j coeffs[j] * mats[j], accumulated from zero in order."""
    out = _mt["zeros_like"](mats[0])
    for m, k in zip(mats, coeffs):
        out = out + m * k
    return out


def _t1(A, eye, k):
    return eye + A


def _t2(A, eye, k):
    return eye + A + _mm(A, A) / 2.0


def _t4(A, eye, k):
    A2 = _mm(A, A)
    return _combine((eye, A, A2, _mm(A2, _combine((eye, A, A2), k.quarter))), (1.0, 1.0, 0.0, 1.0))


def _t8(A, eye, k):
    A2 = _mm(A, A)
    A4 = _mm(A2, _combine((A, A2), (k.x1, k.x2)))
    A8 = _mm(_combine((A2, A4), (k.x3, 1.0)),
             _combine((eye, A, A2, A4), (k.x4, k.x5, k.x6, k.x7)))
    return _combine((eye, A, A2, A4, A8), (1.0, 1.0, k.y2, 0.0, 1.0))


def _t12(A, eye, k):
    A2 = _mm(A, A)
    powers = (eye, A, A2, _mm(A, A2))
    B = [_combine(powers, row) for row in k.b12]
    B2 = B[2] + _mm(B[3], B[3])
    return B[0] + _mm(B[1] + B2, B2)


def _t18(A, eye, k):
    A2 = _mm(A, A)
    A3 = _mm(A, A2)
    powers = (eye, A, A2, A3, _mm(A3, A3))
    B = [_combine(powers, row) for row in k.b18]
    A9 = _mm(B[0], B[4]) + B[3]
    return B[1] + _mm(B[2] + A9, A9)


def _t18_scaled(A, norm, eye, k):
    """Degree 18 of A / 2^s, squared s times, s per matrix from its norm."""
    s = (norm / k.thetas[-1]).log2().ceil().clamp(min=0)
    X = _t18(A * (-s).exp2().unsqueeze(-1).unsqueeze(-1), eye, k)
    counts = [int(v) for v in s.tolist()]
    for step in range(max(counts, default=0)):
        rows = [i for i, c in enumerate(counts) if c > step]
        if len(rows) == len(counts):
            X = _mm(X, X)
        else:
            idx = _mt["tensor"](rows, dtype=_C.int64)
            part = X[idx]
            X[idx] = _mm(part, part)
    return X


_DEGREES = (_t1, _t2, _t4, _t8, _t12)


def _mexp(A: Tensor) -> Tensor:
    """exp of each matrix of A (n >= 2), in A's dtype, with torch's choices."""
    n = A.shape[-1]
    if A.numel() == 0:
        return A.clone()
    flat = A.reshape(-1, n, n)
    k = _Consts(str(A.dtype) in ("minitorch.float32", "minitorch.complex64"))
    norm = flat.abs().sum(-2).amax(-1)
    eye = _mt["eye"](n, dtype=A.dtype)
    finite = norm.isfinite()
    if not bool(finite.all()):
        # torch's result for a matrix with an infinite or nan entry is all nan
        ok = finite.nonzero().reshape(-1)
        out = _mt["full_like"](flat, math.nan)
        if ok.numel():
            out[ok] = _mexp(flat[ok])
        return out.reshape(A.shape)
    if flat.shape[0] > 1:
        return _t18_scaled(flat, norm, eye, k).reshape(A.shape)
    value = float(norm[0])
    if value < k.thetas[4]:
        for degree, theta in zip(_DEGREES, k.thetas):
            if value <= theta:
                return degree(flat, eye, k).reshape(A.shape)
    return _t18_scaled(flat, norm, eye, k).reshape(A.shape)


def _differential(A: Tensor, G: Tensor) -> Tensor:
    """The upper-right block of exp([[A, G], [0, A]]): the derivative of exp
    at A in the direction G."""
    n = A.shape[-1]
    top = _mt["cat"]([A, G], -1)
    bottom = _mt["cat"]([_mt["zeros_like"](A), A], -1)
    return matrix_exp_of(_mt["cat"]([top, bottom], -2))[..., :n, n:]


class _MatrixExp(Function):
    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        ctx.save_for_forward(A)
        return _mexp(A)

    @staticmethod
    def backward(ctx, g):
        (A,) = ctx.saved_tensors
        return _differential(A.mH, g)

    @staticmethod
    def jvp(ctx, dA):
        (A,) = ctx.saved_tensors
        return _differential(A, dA)


def matrix_exp_of(A: Tensor) -> Tensor:
    """exp of each square matrix of A (checked by the caller), differentiable
    with torch's derivative."""
    n = A.shape[-1]
    if n == 0:
        return A.clone()
    if n == 1:
        return A.exp()
    if str(A.dtype) in ("minitorch.float16", "minitorch.bfloat16"):
        # torch's half-precision polynomials overflow; these are computed wide
        return matrix_exp_of(A.to(_C.float64)).to(A.dtype)
    return _MatrixExp.apply(A)
