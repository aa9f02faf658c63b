"""Poisson: the number of events of a process of intensity `rate` in unit time."""
from numbers import Number
from typing import Any, Optional, Tuple

import minitorch

from . import constraints
from ._discrete_sampler import poisson
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson distribution with mass rate^k e^-rate / k! on the nonnegative integers."""
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: Optional[bool] = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(() if isinstance(rate, Number) else self.rate.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Poisson":
        """Poisson with the rate expanded to `batch_shape`."""
        return self._expanded(Poisson, batch_shape, _instance,
                              rate=self.rate.expand(tuple(batch_shape)))

    @property
    def mean(self) -> Any:
        """rate."""
        return self.rate

    @property
    def mode(self) -> Any:
        """floor(rate)."""
        return self.rate.floor()

    @property
    def variance(self) -> Any:
        """rate."""
        return self.rate

    def sample(self, sample_shape: Any = ()) -> Any:
        """Counts of shape sample_shape + batch_shape, in rate's dtype."""
        return poisson(self.rate.expand(tuple(self._extended_shape(sample_shape))))

    def log_prob(self, value: Any) -> Any:
        """value log rate - rate - log(value!)."""
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self) -> Tuple[Any]:
        return (minitorch.log(self.rate),)

    def _log_normalizer(self, x: Any) -> Any:
        return minitorch.exp(x)
