"""lgamma and digamma for positive arguments, as compositions of existing
ops (so autograd differentiates them, to any order): shift the argument
by 8 with the recurrences, then use the Stirling / asymptotic series, whose
truncation error at >= 8 is below float64 rounding. Computed in float64 and
cast back, so float32 results are correctly rounded as torch's are."""
import math
from typing import Any

import minitorch

_SHIFT = 8
# Bernoulli-number coefficients B_2k / (2k (2k-1)) of the lgamma series in 1/z^(2k-1)
_LGAMMA = [1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156]
# B_2k / (2k) of the digamma series in 1/z^(2k)
_DIGAMMA = [1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12]


def _shifted(x: Any) -> Any:
    return x.to(minitorch.float64) if x.dtype != minitorch.float64 else x


def lgamma(x: Any) -> Any:
    """log|Gamma(x)| for x > 0."""
    z = _shifted(x)
    logs = sum(minitorch.log(z + i) for i in range(_SHIFT))
    w = z + _SHIFT
    inv, inv2 = 1 / w, 1 / (w * w)
    series, power = 0, inv
    for c in _LGAMMA:
        series = series + c * power
        power = power * inv2
    out = (w - 0.5) * minitorch.log(w) - w + 0.5 * math.log(2 * math.pi) + series - logs
    return out.to(x.dtype)


def digamma(x: Any) -> Any:
    """The logarithmic derivative of Gamma, for x > 0."""
    z = _shifted(x)
    recips = sum(1 / (z + i) for i in range(_SHIFT))
    w = z + _SHIFT
    inv2 = 1 / (w * w)
    series, power = 0, inv2
    for c in _DIGAMMA:
        series = series + c * power
        power = power * inv2
    out = minitorch.log(w) - 0.5 / w - series - recips
    return out.to(x.dtype)


# Giles' single-precision erfinv polynomials (in w = -log(1 - y^2)), centre and tail
_ERFINV_CENTRE = [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941]
_ERFINV_TAIL = [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                -0.0076224613, 0.00943887047, 1.00167406, 2.83297682]


def _horner(coefficients: list, w: Any) -> Any:
    p = coefficients[0]
    for c in coefficients[1:]:
        p = c + p * w
    return p


def erfinv(y: Any) -> Any:
    """The inverse of erf on [-1, 1] (+-inf at +-1, NaN outside): Giles'
    approximation refined by Newton steps, on erf near 0 and on erfc (with
    1 - |y|, exact there) towards +-1 so the tails keep their precision; the
    steps also carry the gradient 1 / erf'(x)."""
    z = _shifted(y)
    sign = minitorch.where(z.detach() < 0, -1.0, 1.0)
    a = z * sign  # |z|, with the slope 1 at 0 that abs does not have
    inside = a.detach() < 1
    safe = minitorch.where(inside, a, 0.0)
    w = -minitorch.log((1 - safe.detach()) * (1 + safe.detach()))
    x = minitorch.where(w < 5, _horner(_ERFINV_CENTRE, w - 2.5),
                        _horner(_ERFINV_TAIL, w.sqrt() - 3)) * safe.detach()
    tail = safe >= 0.5
    for _ in range(4):
        slope = 2 / math.sqrt(math.pi) * minitorch.exp(-x * x)
        # towards 1, Newton on log erfc(x) = log(1 - |y|): nearly linear, so few steps
        c = minitorch.erfc(x)
        tail_step = ((minitorch.log(c) - minitorch.log(minitorch.where(tail, 1 - safe, 1.0)))
                     * c / slope)
        x = x + minitorch.where(tail, tail_step, (safe - minitorch.erf(x)) / slope)
    edge = minitorch.where(a.detach() == 1, math.inf, math.nan)
    return (minitorch.where(inside, x, edge) * sign).to(y.dtype)
