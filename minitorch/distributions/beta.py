"""Beta: a distribution on [0, 1], the two-category Dirichlet."""
from numbers import Number
from typing import Any, Optional

import minitorch

from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """Beta distribution with concentrations concentration1 (alpha) and
    concentration0 (beta)."""
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any,
                 validate_args: Optional[bool] = None) -> None:
        if isinstance(concentration1, Number) and isinstance(concentration0, Number):
            both = minitorch.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = minitorch.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Beta":
        """Beta with the parameters expanded to `batch_shape`."""
        return self._expanded(Beta, batch_shape, _instance,
                              _dirichlet=self._dirichlet.expand(batch_shape))

    @property
    def concentration1(self) -> Any:
        """alpha, the first concentration."""
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Any:
        """beta, the second concentration."""
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Any:
        """alpha / (alpha + beta)."""
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Any:
        """The Dirichlet mode's first coordinate."""
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Any:
        """alpha beta / ((alpha + beta)^2 (alpha + beta + 1))."""
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Any = ()) -> Any:
        """Draws in [0, 1]: the first coordinate of the Dirichlet's rsample."""
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value: Any) -> Any:
        """Beta log density at `value`."""
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(minitorch.stack([value, 1.0 - value], -1))

    def entropy(self) -> Any:
        """The entropy of the two-category Dirichlet."""
        return self._dirichlet.entropy()

    @property
    def _natural_params(self) -> Any:
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        return minitorch.lgamma(x) + minitorch.lgamma(y) - minitorch.lgamma(x + y)
