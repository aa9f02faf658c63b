"""Kumaraswamy: a Beta-like distribution on [0, 1] with a closed-form cdf,
(1 - (1 - U)^(1/b))^(1/a) for U uniform."""
import math
from typing import Any, Optional

import minitorch

from . import constraints
from ._elementwise_transforms import PowerTransform
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moment(a: Any, b: Any, n: int) -> Any:
    """E[X^n] = b B(1 + n/a, b)."""
    arg = 1 + n / a
    return b * minitorch.exp(minitorch.lgamma(arg) + minitorch.lgamma(b)
                             - minitorch.lgamma(arg + b))


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy distribution with density a b x^(a-1) (1 - x^a)^(b-1),
    a = concentration1, b = concentration0."""
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any,
                 validate_args: Optional[bool] = None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(minitorch.full_like(self.concentration0, 0),
                       minitorch.full_like(self.concentration0, 1), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Kumaraswamy":
        """Kumaraswamy with the parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(tuple(batch_shape))
        new.concentration0 = self.concentration0.expand(tuple(batch_shape))
        return super().expand(batch_shape, new)

    @property
    def mean(self) -> Any:
        """b B(1 + 1/a, b)."""
        return _moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Any:
        """((a - 1) / (a b - 1))^(1/a), NaN where a < 1 or b < 1."""
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        return minitorch.where((b < 1) | (a < 1), math.nan, log_mode).exp()

    @property
    def variance(self) -> Any:
        """E[X^2] - E[X]^2."""
        return _moment(self.concentration1, self.concentration0, 2) - minitorch.pow(self.mean, 2)

    def entropy(self) -> Any:
        """(1 - 1/b) + (1 - 1/a) H_b - log(a b), H_b the b-th harmonic number."""
        a, b = self.concentration1, self.concentration0
        harmonic = minitorch.digamma(b + 1) + euler_constant
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic - minitorch.log(a) \
            - minitorch.log(b)
