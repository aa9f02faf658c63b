"""GeneralizedPareto: the limit law of exceedances over a high threshold,
with shape `concentration` (0 gives the exponential tail)."""
import math
from numbers import Number
from typing import Any, Optional

import minitorch

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Generalized Pareto distribution with survival (1 + xi z)^(-1/xi), z = (x - loc) / scale,
    and exp(-z) at xi = 0; rsample inverts the cdf at a uniform draw."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, concentration: Any,
                 validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        scalar = all(isinstance(v, Number) for v in (loc, scale, concentration))
        super().__init__(() if scalar else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "GeneralizedPareto":
        """GeneralizedPareto with the parameters expanded to `batch_shape`."""
        shape = tuple(batch_shape)
        return self._expanded(GeneralizedPareto, batch_shape, _instance,
                              loc=self.loc.expand(shape), scale=self.scale.expand(shape),
                              concentration=self.concentration.expand(shape))

    def _zero_and_safe(self) -> Any:
        """Where the shape is (close to) 0, and the shape with those set to 1."""
        xi = self.concentration
        zero = minitorch.isclose(xi, minitorch.zeros_like(xi))
        return zero, minitorch.where(zero, minitorch.ones_like(xi), xi)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """icdf at a uniform draw."""
        u = minitorch.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.icdf(u)

    def log_prob(self, value: Any) -> Any:
        """-log scale - (1/xi + 1) log(1 + xi z), or -log scale - z at xi = 0."""
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, xi = self._zero_and_safe()
        y = 1 / xi + minitorch.ones_like(z)
        nonzero = minitorch.where(y == 0, y, y * minitorch.log1p(xi * z))
        return -self.scale.log() - minitorch.where(zero, z, nonzero)

    def log_survival_function(self, value: Any) -> Any:
        """log P(X > value)."""
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, xi = self._zero_and_safe()
        return minitorch.where(zero, -z, -minitorch.log1p(xi * z) / xi)

    def log_cdf(self, value: Any) -> Any:
        """log P(X <= value)."""
        return minitorch.log1p(-minitorch.exp(self.log_survival_function(value)))

    def cdf(self, value: Any) -> Any:
        """P(X <= value)."""
        return minitorch.exp(self.log_cdf(value))

    def icdf(self, value: Any) -> Any:
        """loc + scale ((1 - value)^(-xi) - 1) / xi, or loc - scale log(1 - value) at xi = 0."""
        zero, xi = self._zero_and_safe()
        log_u = minitorch.log1p(-value)
        nonzero = self.loc + self.scale / xi * minitorch.expm1(-xi * log_u)
        return minitorch.where(zero, self.loc - self.scale * log_u, nonzero)

    @property
    def mean(self) -> Any:
        """loc + scale / (1 - xi) for xi < 1, NaN otherwise."""
        valid = self.concentration < 1
        xi = minitorch.where(valid, self.concentration, 0.5)
        return minitorch.where(valid, self.loc + self.scale / (1 - xi), math.nan)

    @property
    def variance(self) -> Any:
        """scale^2 / ((1 - xi)^2 (1 - 2 xi)) for xi < 1/2, NaN otherwise."""
        valid = self.concentration < 0.5
        xi = minitorch.where(valid, self.concentration, 0.25)
        return minitorch.where(valid, self.scale ** 2 / ((1 - xi) ** 2 * (1 - 2 * xi)), math.nan)

    def entropy(self) -> Any:
        """log scale + xi + 1."""
        return minitorch.broadcast_to(minitorch.log(self.scale) + self.concentration + 1,
                                      tuple(self._batch_shape))

    @property
    def mode(self) -> Any:
        """loc."""
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        """[loc, loc - scale / xi] for xi < 0, [loc, inf) otherwise."""
        upper = minitorch.where(self.concentration < 0, self.loc - self.scale / self.concentration,
                                math.inf)
        return constraints.interval(self.loc, upper)
