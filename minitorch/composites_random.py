"""The in-place samplers torch has beside uniform_, normal_ and
exponential_, each a transform of one of those draws: cauchy_ (the tangent
of a uniform angle), log_normal_ (the exponential of a normal draw) and
geometric_ (the ceiling of an exponential draw scaled by log(1 - p))."""
import math
from typing import Any, Optional

from . import _C
from ._tensor import Tensor
from .autograd.grad_mode import no_grad
from .overrides import composite

__all__: list = []

_f = _C._functions


def _floating(self, kernel):
    if not self.is_floating_point():
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{self.dtype._scalar_name}'")


@composite(function=False)
def cauchy_(self, median: float = 0, sigma: float = 1, *,
            generator: Optional[Any] = None) -> Tensor:
    """Fills self with draws from the Cauchy distribution: median + sigma *
    tan(pi (u - 1/2)) for u uniform in [0, 1)."""
    if not self.is_floating_point():
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype "
                           "must be a floating point but you specified "
                           f"{self.dtype._cpp_name}")
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    self.uniform_(generator=generator)
    with no_grad():
        return self.sub_(0.5).mul_(math.pi).tan_().mul_(sigma).add_(median)


@composite(function=False)
def log_normal_(self, mean: float = 1, std: float = 2, *,
                generator: Optional[Any] = None) -> Tensor:
    """Fills self with exp of draws from the normal distribution N(mean, std)."""
    _floating(self, "log_normal_cpu")
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    self.normal_(mean, std, generator=generator)
    with no_grad():
        return self.exp_()


@composite(function=False)
def geometric_(self, p: float, *, generator: Optional[Any] = None) -> Tensor:
    """Fills self with the number of Bernoulli(p) trials up to the first
    success, drawn as ceil(E / -log(1 - p)) for E standard exponential."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if self.dtype == _C.bool:
        raise NotImplementedError("\"geometric_cpu\" not implemented for 'Bool'")
    draw = _f["empty"](list(self.shape), dtype=_C.float64).exponential_(generator=generator)
    with no_grad():
        return self.copy_((draw / -math.log1p(-p)).ceil())
