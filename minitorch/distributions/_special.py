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
