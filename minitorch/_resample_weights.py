"""The arithmetic of torch's CPU resampling kernels, for interpolate,
grid_sample and the antialiased aten composites: a fused multiply-add
(torch's build contracts `a * b + c` in those kernels into one fma, and
where a coordinate lands decides its pixel and weight), Keys' cubic
convolution weights evaluated as torch's build evaluates them, and the
weight matrices of torch's antialiased (separable) resampling. NumPy only;
_cubic_coefficients also takes tensors."""
from typing import Callable, Optional

import numpy as np


def _two_sum(a: np.ndarray, b: np.ndarray):
    """a + b as the rounded sum and its exact error (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_product(a: np.ndarray, b: np.ndarray):
    """a * b as the rounded product and its exact error (Dekker's split)."""
    p = a * b
    split = np.float64(134217729.0)  # 2 ** 27 + 1
    ca, cb = a * split, b * split
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _sum_to_odd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b rounded to odd, so that rounding it again to fewer bits is exact."""
    s, err = _two_sum(a, b)
    inexact_even = (err != 0) & ((s.view(np.int64) & 1) == 0)
    return np.where(inexact_even, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)


def fma(a, b, c, kind: type) -> np.ndarray:
    """a * b + c rounded once to kind (np.float32 or np.float64), as a fused
    multiply-add gives it (Boldo and Melquiond's emulation through rounding
    to odd)."""
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    if kind == np.float32:  # a product of float32 values is exact in float64
        return _sum_to_odd(a * b, c).astype(np.float32)
    hi, lo = _two_product(a, b)
    top, low = _two_sum(c, hi)
    return top + _sum_to_odd(low, lo)


def fused(kind: type) -> Callable:
    """The multiply-add x * y + z of torch's build for kind."""
    return lambda x, y, z: fma(x, y, z, kind)


def _plain(x, y, z):
    return x * y + z


def keys_near(x, a, madd: Callable = _plain, outer: Callable = _plain):
    """Keys' cubic convolution at |x| <= 1: ((a + 2) x - (a + 3)) x x + 1,
    the inner multiply-add by madd, the outer by outer."""
    return outer(madd(a + 2, x, -(a + 3)) * x, x, 1)


def keys_far(x, a, madd: Callable = _plain, outer: Callable = _plain):
    """Keys' cubic convolution at 1 < |x| < 2: ((a x - 5 a) x + 8 a) x - 4 a,
    the two inner multiply-adds by madd, the outer by outer."""
    return outer(madd(madd(a, x, -5 * a), x, 8 * a), x, -4 * a)


def cubic_coefficients(t, a, madd: Callable = _plain, upsampling: bool = False) -> list:
    """The weights of the taps at -1, 0, 1, 2 from a point t in [0, 1) past
    tap 0 (NumPy arrays, or tensors with the plain multiply-add). torch's
    build fuses the inner multiply-adds of its upsampling's coefficients,
    not the outer one; the last tap's distance is 2 - t in its grid_sample,
    (1 - t) + 1 (two roundings) in its upsampling."""
    right = 1 - t
    return [keys_far(t + 1, a, madd), keys_near(t, a, madd), keys_near(right, a, madd),
            keys_far(right + 1 if upsampling else 2 - t, a, madd)]


def _triangle(x: np.ndarray, kind: type) -> np.ndarray:
    x = np.abs(x)
    return np.where(x < 1, kind(1) - x, kind(0)).astype(kind)


def _keys_cubic(x: np.ndarray, kind: type) -> np.ndarray:
    """Keys' cubic with a = -0.5, the filter of antialiased bicubic (PIL's),
    every multiply-add fused as torch's build evaluates it."""
    x, a, madd = np.abs(x), kind(-0.5), fused(kind)
    return np.where(x < 1, keys_near(x, a, madd, madd),
                    np.where(x < 2, keys_far(x, a, madd, madd), kind(0))).astype(kind)


# the antialias filters by their support at scale 1 (torch's interp_size)
AA_FILTERS = {2: _triangle, 4: _keys_cubic}


def aa_weights(in_size: int, out_size: int, align_corners: bool, scale: Optional[float],
               kind: type, interp_size: int) -> np.ndarray:
    """The (out_size, in_size) matrix of torch's antialiased resampling
    along one dim with the filter of support interp_size / 2 (triangle for
    bilinear, Keys' cubic for bicubic) stretched over the input pixels an
    output pixel covers when shrinking, each row normalized to sum 1.
    Computed in kind, rounding where torch's kernel does (it mixes float
    and double as its C++ expressions do)."""
    if align_corners:
        step = kind(in_size - 1) / kind(out_size - 1) if out_size > 1 else kind(0.0)
    elif scale is not None and scale > 0:
        step = kind(1.0 / scale)
    else:
        step = kind(in_size) / kind(out_size)
    wide = step >= 1.0
    support = kind(interp_size * 0.5 * float(step)) if wide else kind(interp_size * 0.5)
    invscale = kind(1.0 / float(step)) if wide else kind(1.0)
    taps = int(np.ceil(support)) * 2 + 1
    center = (float(step) * (np.arange(out_size) + 0.5)).astype(kind)
    # C++ truncates toward zero; the + 0.5 is a double
    lo = np.maximum(np.trunc((center - support).astype(np.float64) + 0.5).astype(np.int64), 0)
    hi = np.minimum(np.trunc((center + support).astype(np.float64) + 0.5).astype(np.int64),
                    in_size)
    size = np.clip(hi - lo, 0, taps)
    filt = AA_FILTERS[interp_size]
    rows = np.zeros((out_size, taps), dtype=kind)
    total = np.zeros(out_size, dtype=kind)
    for j in range(taps):
        offset = ((j + lo).astype(kind) - center).astype(np.float64) + 0.5
        w = np.where(j < size, filt((offset * float(invscale)).astype(kind), kind), kind(0))
        rows[:, j] = w
        total = (total + w).astype(kind)
    rows = np.where(total[:, None] != 0, rows / np.where(total == 0, kind(1), total)[:, None],
                    rows).astype(kind)
    weights = np.zeros((out_size, in_size), dtype=kind)
    for j in range(taps):
        inside = j < size
        weights[np.arange(out_size)[inside], (lo + j)[inside]] = rows[inside, j]
    return weights
