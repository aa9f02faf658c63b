"""Uniform: constant density on the half-open interval [low, high)."""
import math
from numbers import Number
from typing import Any, Optional

import minitorch

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform distribution on [low, high); rsample is low + u * (high - low)."""
    arg_constraints = {"low": constraints.dependent(is_discrete=False, event_dim=0),
                       "high": constraints.dependent(is_discrete=False, event_dim=0)}
    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: Optional[bool] = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        scalar = isinstance(low, Number) and isinstance(high, Number)
        super().__init__(() if scalar else self.low.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Uniform":
        """Uniform with low and high expanded to `batch_shape`."""
        return self._expanded(Uniform, batch_shape, _instance,
                              low=self.low.expand(tuple(batch_shape)),
                              high=self.high.expand(tuple(batch_shape)))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        """The interval [low, high]."""
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Any:
        """(low + high) / 2."""
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Any:
        """NaN: every point is a mode."""
        return math.nan * self.high

    @property
    def stddev(self) -> Any:
        """(high - low) / sqrt(12)."""
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self) -> Any:
        """(high - low)^2 / 12."""
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: Any = ()) -> Any:
        """low + u * (high - low) for a standard uniform u."""
        u = minitorch.rand(self._extended_shape(sample_shape), dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Any) -> Any:
        """-log(high - low) inside [low, high), -inf outside."""
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return minitorch.log(lb.mul(ub)) - minitorch.log(self.high - self.low)

    def cdf(self, value: Any) -> Any:
        """(value - low) / (high - low), clamped to [0, 1]."""
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: Any) -> Any:
        """low + value * (high - low)."""
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Any:
        """log(high - low)."""
        return minitorch.log(self.high - self.low)
