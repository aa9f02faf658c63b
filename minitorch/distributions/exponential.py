"""Exponential: the waiting time of a Poisson process of intensity `rate`."""
from numbers import Number
from typing import Any, Optional, Tuple

import minitorch

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exponential distribution with density rate e^(-rate x) on x >= 0;
    rsample is a standard exponential draw over rate."""
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate: Any, validate_args: Optional[bool] = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(() if isinstance(rate, Number) else self.rate.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Exponential":
        """Exponential with the rate expanded to `batch_shape`."""
        return self._expanded(Exponential, batch_shape, _instance,
                              rate=self.rate.expand(tuple(batch_shape)))

    @property
    def mean(self) -> Any:
        """1 / rate."""
        return self.rate.reciprocal()

    @property
    def mode(self) -> Any:
        """0."""
        return minitorch.zeros_like(self.rate)

    @property
    def stddev(self) -> Any:
        """1 / rate."""
        return self.rate.reciprocal()

    @property
    def variance(self) -> Any:
        """rate^-2."""
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """A standard exponential draw divided by rate."""
        shape = self._extended_shape(sample_shape)
        return minitorch.empty(shape, dtype=self.rate.dtype).exponential_() / self.rate

    def log_prob(self, value: Any) -> Any:
        """log rate - rate * value."""
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Any) -> Any:
        """1 - exp(-rate * value)."""
        if self._validate_args:
            self._validate_sample(value)
        return 1 - minitorch.exp(-self.rate * value)

    def icdf(self, value: Any) -> Any:
        """-log(1 - value) / rate."""
        return -minitorch.log1p(-value) / self.rate

    def entropy(self) -> Any:
        """1 - log rate."""
        return 1.0 - minitorch.log(self.rate)

    @property
    def _natural_params(self) -> Tuple[Any]:
        return (-self.rate,)

    def _log_normalizer(self, x: Any) -> Any:
        return -minitorch.log(-x)
