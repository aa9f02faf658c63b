"""Weibull: scale * E^(1 / concentration) for a standard exponential E."""
from typing import Any, Optional

import minitorch

from . import constraints
from ._elementwise_transforms import PowerTransform
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform
from .utils import broadcast_all, euler_constant

__all__ = ["Weibull"]

class Weibull(TransformedDistribution):
    """Weibull distribution with cdf 1 - exp(-(x / scale)^concentration)."""
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale: Any, concentration: Any,
                 validate_args: Optional[bool] = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(minitorch.ones_like(self.scale), validate_args=validate_args)
        super().__init__(base, self._transforms(), validate_args=validate_args)

    def _transforms(self) -> Any:
        return [PowerTransform(exponent=self.concentration_reciprocal),
                AffineTransform(loc=0, scale=self.scale)]

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Weibull":
        """Weibull with the parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(tuple(batch_shape))
        new.concentration = self.concentration.expand(tuple(batch_shape))
        new.concentration_reciprocal = new.concentration.reciprocal()
        TransformedDistribution.__init__(new, self.base_dist.expand(batch_shape),
                                         new._transforms(), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Any:
        """scale Gamma(1 + 1/k)."""
        return self.scale * minitorch.exp(minitorch.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self) -> Any:
        """scale ((k - 1) / k)^(1/k)."""
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self) -> Any:
        """scale^2 (Gamma(1 + 2/k) - Gamma(1 + 1/k)^2)."""
        r = self.concentration_reciprocal
        return self.scale.pow(2) * (minitorch.exp(minitorch.lgamma(1 + 2 * r))
                                    - minitorch.exp(2 * minitorch.lgamma(1 + r)))

    def entropy(self) -> Any:
        """gamma (1 - 1/k) + log(scale / k) + 1."""
        r = self.concentration_reciprocal
        return euler_constant * (1 - r) + minitorch.log(self.scale * r) + 1

