"""Poisson and binomial draws, vectorised over the parameters, from
minitorch's own uniform generator (so manual_seed fixes them). Every element
draws a candidate per round and the ones not yet accepted retry; rates and
counts large enough to make counting slow use Hoermann's transformed
rejection with squeeze (PTRS for Poisson, BTRS for the binomial), whose
acceptance rate stays high at any size."""
import math
from typing import Any

import minitorch

from minitorch import lgamma

_F64 = minitorch.float64
_COUNTING_LIMIT = 10.0  # below this mean, counting arrivals takes few rounds


def _rand(shape: Any) -> Any:
    return minitorch.rand(shape, dtype=_F64)


def _transformed_rejection(center: Any, a: Any, b: Any, vr: Any, accept: Any,
                           upper: Any = math.inf) -> Any:
    """Hoermann's candidate k = floor((2a/us + b) u + center) for u uniform on
    (-1/2, 1/2), us = 1/2 - |u| and v uniform: taken at once under the squeeze
    (us >= 0.07, v <= vr), else when `accept(k, us, v)`; a k outside
    [0, upper] never."""
    out = minitorch.zeros_like(center)
    todo = minitorch.ones_like(center, dtype=minitorch.bool)
    while bool(todo.any()):
        u = _rand(center.shape) - 0.5
        v = _rand(center.shape)
        us = 0.5 - u.abs()
        k = ((2 * a / us + b) * u + center).floor()
        ok = (k >= 0) & (k <= upper) & (((us >= 0.07) & (v <= vr)) | accept(k, us, v))
        out = minitorch.where(todo & ok, k, out)
        todo = todo & ~ok
    return out


def _count_arrivals(limit: Any, log_gap: Any) -> Any:
    """How many gaps of log_gap() (negative log uniforms scaled) fit under limit."""
    count = minitorch.zeros_like(limit)
    total = minitorch.zeros_like(limit)
    todo = limit > 0
    while bool(todo.any()):
        total = total + log_gap()
        todo = todo & (total <= limit)
        count = count + todo.to(_F64)
    return count


def poisson(rate: Any) -> Any:
    """One Poisson(rate) draw per element (rate >= 0), in rate's dtype."""
    with minitorch.no_grad():
        lam = rate.detach().to(_F64)
        if not bool((lam >= 0).all()):
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        infinite = lam == math.inf
        lam = minitorch.where(infinite, 0.0, lam)  # drawn as inf below, never by a loop
        small = lam < _COUNTING_LIMIT
        out = _count_arrivals(minitorch.where(small, lam, 0.0),
                              lambda: -minitorch.log(_rand(lam.shape).clamp(min=1e-300)))
        if bool((~small).any()):
            big = minitorch.where(small, _COUNTING_LIMIT, lam)
            sq, log_lam = big.sqrt(), big.log()
            b = 0.931 + 2.53 * sq
            a = -0.059 + 0.02483 * b
            log_inv_alpha = (1.1239 + 1.1328 / (b - 3.4)).log()

            def exact(k: Any, us: Any, v: Any) -> Any:
                lhs = v.log() + log_inv_alpha - (a / (us * us) + b).log()
                return ~((us < 0.013) & (v > us)) & (lhs <= -big + k * log_lam - lgamma(k + 1))
            drawn = _transformed_rejection(big + 0.43, a, b, 0.9277 - 3.6224 / (b - 2), exact)
            out = minitorch.where(small, out, drawn)
        return minitorch.where(infinite, math.inf, out).to(rate.dtype)


def _binomial_small(n: Any, p: Any) -> Any:
    """Successes before the n-th trial by geometric waiting times."""
    log_q = minitorch.log1p(-p).clamp(max=-1e-300)

    def gap() -> Any:
        u = _rand(n.shape).clamp(min=1e-300)
        return (u.log() / log_q).ceil()
    return _count_arrivals(n, gap)


def _binomial_large(n: Any, p: Any) -> Any:
    q = 1 - p
    spq = (n * p * q).sqrt()
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    alpha = (2.83 + 5.1 / b) * spq
    log_odds = (p / q).log()
    m = ((n + 1) * p).floor()
    h = lgamma(m + 1) + lgamma(n - m + 1)

    def exact(k: Any, us: Any, v: Any) -> Any:
        lhs = (v * alpha / (a / (us * us) + b)).log()
        return lhs <= h - lgamma(k + 1) - lgamma(n - k + 1) + (k - m) * log_odds
    return _transformed_rejection(n * p + 0.5, a, b, 0.92 - 4.2 / b, exact, upper=n)


def binomial(count: Any, prob: Any) -> Any:
    """One Binomial(count, prob) draw per element, in prob's dtype; NaN where
    count is not a finite nonnegative number or prob is outside [0, 1]."""
    with minitorch.no_grad():
        n = count.detach().to(_F64)
        p0 = prob.detach().to(_F64)
        valid = (n >= 0) & (n < math.inf) & (p0 >= 0) & (p0 <= 1)
        n, p0 = minitorch.where(valid, n, 0.0), minitorch.where(valid, p0, 0.5)
        flip = p0 > 0.5
        p = minitorch.where(flip, 1 - p0, p0)
        small = n * p < _COUNTING_LIMIT
        out = _binomial_small(minitorch.where(small, n, 0.0), minitorch.where(small, p, 0.5))
        if bool((~small).any()):
            drawn = _binomial_large(minitorch.where(small, 100.0, n),
                                    minitorch.where(small, 0.5, p))
            out = minitorch.where(small, out, drawn)
        out = minitorch.where(flip, n - out, out)
        return minitorch.where(valid, out, math.nan).to(prob.dtype)
