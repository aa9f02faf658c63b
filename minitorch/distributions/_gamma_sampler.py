"""Standard Gamma(alpha, 1) draws by Marsaglia and Tsang's squeeze method,
vectorised: every element draws a candidate per round and the ones not yet
accepted retry, from minitorch's own normal and uniform generators (so
manual_seed fixes them). alpha < 1 draws Gamma(alpha + 1) and scales by
U^(1/alpha). No graph: the draws are not differentiable in alpha."""
import math
from typing import Any

import minitorch

from minitorch import digamma
from .utils import tiny


def standard_gamma(alpha: Any) -> Any:
    """A Gamma(alpha, 1) draw for each element of alpha (> 0)."""
    with minitorch.no_grad():
        a = alpha.detach().to(minitorch.float64)
        # as torch: an infinite alpha draws inf, a NaN or nonpositive one the tiny floor
        infinite, valid = a == math.inf, (a > 0) & (a < math.inf)
        a = minitorch.where(valid, a, 1.0)
        boost = a < 1
        d = minitorch.where(boost, a + 1, a) - 1 / 3
        c = 1 / minitorch.sqrt(9 * d)
        out = minitorch.zeros_like(a)
        todo = minitorch.ones_like(a, dtype=minitorch.bool)
        while bool(todo.any()):
            x = minitorch.randn(a.shape, dtype=minitorch.float64)
            v = (1 + c * x) ** 3
            u = minitorch.rand(a.shape, dtype=minitorch.float64)
            ok = (v > 0) & (minitorch.log(u) < 0.5 * x * x + d - d * v
                            + d * minitorch.log(v.clamp(min=tiny(minitorch.float64))))
            take = todo & ok
            out = minitorch.where(take, d * v, out)
            todo = todo & ~ok
        u = minitorch.rand(a.shape, dtype=minitorch.float64)
        out = minitorch.where(boost, out * u ** (1 / a), out)
        out = minitorch.where(valid, out, minitorch.where(infinite, math.inf, 0.0))
        return out.to(alpha.dtype).clamp(min=tiny(alpha.dtype))


def standard_gamma_grad(alpha: Any, x: Any) -> Any:
    """dx/dalpha of a Gamma(alpha, 1) draw x at fixed CDF value (implicit
    reparameterisation): -(dP/dalpha) / density, with the regularised
    incomplete gamma P(alpha, x) = x^alpha e^-x / Gamma(alpha + 1) * S and
    S = sum_n x^n / ((alpha + 1) ... (alpha + n)), which reduces it to
    -(x / alpha) * (S (log x - digamma(alpha + 1)) + dS/dalpha).
    The series needs about x + 10 sqrt(x) terms: summed until every term is negligible."""
    with minitorch.no_grad():
        a, z = alpha.detach().to(minitorch.float64), x.detach().to(minitorch.float64)
        # the series only for finite positive pairs (others would never converge): NaN there
        valid = (a > 0) & (a < math.inf) & (z > 0) & (z < math.inf)
        a, z = minitorch.where(valid, a, 1.0), minitorch.where(valid, z, 1.0)
        term, dterm = minitorch.ones_like(a), minitorch.zeros_like(a)
        s, ds = term, dterm
        n = 0
        while True:
            n += 1
            ratio = z / (a + n)
            dterm = (dterm - term / (a + n)) * ratio  # product rule on term * ratio
            term = term * ratio
            s, ds = s + term, ds + dterm
            if n > 20 and bool(((term <= 1e-17 * s) & (dterm.abs() <= 1e-17 * ds.abs())).all()):
                break
        grad = -(z / a) * (s * (minitorch.log(z) - digamma(a + 1)) + ds)
        return minitorch.where(valid, grad, math.nan).to(alpha.dtype)


class StandardGamma(minitorch.autograd.Function):
    """A Gamma(alpha, 1) draw whose gradient in alpha is the implicit
    reparameterisation gradient, as torch's _standard_gamma has."""

    @staticmethod
    def forward(ctx: Any, alpha: Any) -> Any:
        """Draw; keep alpha and the draw for the backward."""
        x = standard_gamma(alpha)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        """grad times dx/dalpha."""
        alpha, x = ctx.saved_tensors
        return grad * standard_gamma_grad(alpha, x)
