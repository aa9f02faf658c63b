"""Standard Gamma(alpha, 1) draws by Marsaglia and Tsang's squeeze method,
vectorised: every element draws a candidate per round and the ones not yet
accepted retry, from minitorch's own normal and uniform generators (so
manual_seed fixes them). alpha < 1 draws Gamma(alpha + 1) and scales by
U^(1/alpha). No graph: the draws are not differentiable in alpha."""
from typing import Any

import minitorch

from .utils import tiny


def standard_gamma(alpha: Any) -> Any:
    """A Gamma(alpha, 1) draw for each element of alpha (> 0)."""
    with minitorch.no_grad():
        a = alpha.detach().to(minitorch.float64)
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
        out = out.to(alpha.dtype)
        return out.clamp(min=tiny(alpha.dtype))
