"""InverseGamma: 1 / X for X ~ Gamma(concentration, rate)."""
import math
from typing import Any, Optional

import minitorch

from . import constraints
from ._elementwise_transforms import PowerTransform
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """Inverse-gamma distribution with density rate^c x^(-c-1) e^(-rate/x) / Gamma(c)."""
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any,
                 validate_args: Optional[bool] = None) -> None:
        base = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(base, PowerTransform(-base.rate.new_ones(())),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "InverseGamma":
        """InverseGamma over the base Gamma expanded to `batch_shape`."""
        return super().expand(batch_shape, self._get_checked_instance(InverseGamma, _instance))

    @property
    def concentration(self) -> Any:
        """The Gamma's concentration."""
        return self.base_dist.concentration

    @property
    def rate(self) -> Any:
        """The Gamma's rate (the scale of the inverse)."""
        return self.base_dist.rate

    @property
    def mean(self) -> Any:
        """rate / (c - 1) for c > 1, inf otherwise."""
        result = self.rate / (self.concentration - 1)
        return minitorch.where(self.concentration > 1, result, math.inf)

    @property
    def mode(self) -> Any:
        """rate / (c + 1)."""
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Any:
        """rate^2 / ((c - 1)^2 (c - 2)) for c > 2, inf otherwise."""
        c = self.concentration
        result = self.rate.square() / ((c - 1).square() * (c - 2))
        return minitorch.where(c > 2, result, math.inf)

    def entropy(self) -> Any:
        """c + log rate + lgamma(c) - (1 + c) digamma(c)."""
        c = self.concentration
        return c + self.rate.log() + c.lgamma() - (1 + c) * c.digamma()
