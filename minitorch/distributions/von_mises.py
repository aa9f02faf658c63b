"""VonMises: the circular analogue of the normal, on angles around loc."""
import math
from typing import Any, Optional

import minitorch

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Abramowitz & Stegun 9.8.1-9.8.4: polynomial approximations of I0 and I1
# below t = x / 3.75 < 1 (in t^2) and of sqrt(x) e^-x I0/I1 above (in 1/t),
# the ones torch evaluates, so both libraries give the same densities
_BESSEL_SMALL = ([1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813],
                 [0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411])
_BESSEL_LARGE = ([0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706,
                  0.02635537, -0.01647633, 0.00392377],
                 [0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967,
                  -0.02895312, 0.01787654, -0.00420059])


def _horner(y: Any, coef: Any) -> Any:
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def _log_bessel_i(x: Any, order: int = 0) -> Any:
    """log I_order(x) for order 0 or 1 and x > 0."""
    t = x / 3.75
    small = _horner(t * t, _BESSEL_SMALL[order])
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _horner(3.75 / x, _BESSEL_LARGE[order]).log()
    return minitorch.where(x < 3.75, small.log(), large)


class VonMises(Distribution):
    """Von Mises distribution with density exp(concentration cos(x - loc)) /
    (2 pi I0(concentration)); samples lie in [-pi, pi)."""
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc: Any, concentration: Any,
                 validate_args: Optional[bool] = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, (), validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "VonMises":
        """VonMises with the parameters expanded to `batch_shape`."""
        return self._expanded(VonMises, batch_shape, _instance,
                              loc=self.loc.expand(tuple(batch_shape)),
                              concentration=self.concentration.expand(tuple(batch_shape)))

    def log_prob(self, value: Any) -> Any:
        """concentration cos(value - loc) - log(2 pi I0(concentration))."""
        if self._validate_args:
            self._validate_sample(value)
        return (self.concentration * minitorch.cos(value - self.loc) - math.log(2 * math.pi)
                - _log_bessel_i(self.concentration, order=0))

    @lazy_property
    def _proposal_r(self) -> Any:
        """Best and Fisher's wrapped-Cauchy envelope parameter, in float64."""
        kappa = self.concentration.to(minitorch.float64)
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        # for tiny kappa the exact form cancels; 1/kappa + kappa is its expansion
        return minitorch.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))

    def sample(self, sample_shape: Any = ()) -> Any:
        """Best and Fisher's rejection sampler, wrapped into [-pi, pi)."""
        with minitorch.no_grad():
            shape = tuple(self._extended_shape(sample_shape))
            loc = self.loc.to(minitorch.float64)
            kappa = self.concentration.to(minitorch.float64).expand(shape)
            r = self._proposal_r
            # the envelope needs 0 < kappa < inf: kappa = 0 is uniform on the circle, kappa =
            # inf a point mass at loc, anything else undefined (and would never be accepted)
            uniform = math.pi * (2 * minitorch.rand(shape, dtype=minitorch.float64) - 1)
            x = minitorch.where(kappa == 0, uniform, minitorch.where(kappa == math.inf, 0.0,
                                                                     math.nan))
            done = ~((kappa > 0) & (kappa < math.inf))
            while not bool(done.all()):
                u1, u2, u3 = minitorch.rand((3,) + shape, dtype=minitorch.float64).unbind()
                z = minitorch.cos(math.pi * u1)
                f = (1 + r * z) / (r + z)
                c = kappa * (r - f)
                accept = (c * (2 - c) - u2 > 0) | ((c / u2).log() + 1 - c >= 0)
                x = minitorch.where(accept & ~done, (u3 - 0.5).sign() * f.acos(), x)
                done = done | accept
            return ((x + math.pi + loc) % (2 * math.pi) - math.pi).to(self.loc.dtype)

    @property
    def mean(self) -> Any:
        """loc."""
        return self.loc

    @property
    def mode(self) -> Any:
        """loc."""
        return self.loc

    @lazy_property
    def variance(self) -> Any:
        """The circular variance 1 - I1(kappa) / I0(kappa)."""
        k = self.concentration
        return 1 - (_log_bessel_i(k, order=1) - _log_bessel_i(k, order=0)).exp()
