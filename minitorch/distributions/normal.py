"""Normal: the Gaussian with mean loc and standard deviation scale."""
import math
from typing import Any

import minitorch

from . import constraints
from minitorch import erfinv
from ._parameter_views import CenteredAtLoc, LocScale
from .exp_family import ExponentialFamily

__all__ = ["Normal"]


class Normal(CenteredAtLoc, LocScale, ExponentialFamily):
    """Normal (Gaussian) distribution N(loc, scale^2); rsample is loc + eps * scale."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Normal":
        """Normal with loc and scale expanded to `batch_shape`."""
        return self._expanded_loc_scale(Normal, batch_shape, _instance)

    @property
    def stddev(self) -> Any:
        """scale."""
        return self.scale

    @property
    def variance(self) -> Any:
        """scale squared."""
        return self.stddev.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """loc + scale * a standard normal draw."""
        eps = minitorch.randn(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value: Any) -> Any:
        """Gaussian log density at `value`."""
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        return (-((value - self.loc) ** 2) / (2 * var) - self.scale.log()
                - math.log(math.sqrt(2 * math.pi)))

    def cdf(self, value: Any) -> Any:
        """Gaussian cumulative distribution via erf."""
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) * self.scale.reciprocal() / math.sqrt(2)
        return 0.5 * (1 + minitorch.erf(z))

    def icdf(self, value: Any) -> Any:
        """loc + scale * sqrt(2) * erfinv(2 value - 1)."""
        return self.loc + self.scale * erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> Any:
        """0.5 + 0.5 log(2 pi) + log scale."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + minitorch.log(self.scale)

    @property
    def _natural_params(self) -> Any:
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        return -0.25 * x.pow(2) / y + 0.5 * minitorch.log(-math.pi / y)
