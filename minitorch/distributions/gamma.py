"""Gamma: shape `concentration` and inverse scale `rate` on the positive reals."""
from numbers import Number
from typing import Any, Optional

import minitorch

from . import constraints
from ._gamma_sampler import StandardGamma
from minitorch import digamma, lgamma
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma distribution with density rate^c x^(c-1) e^(-rate x) / Gamma(c),
    drawn by Marsaglia-Tsang; rsample is implicitly reparameterised."""
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration: Any, rate: Any, validate_args: Optional[bool] = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalar = isinstance(concentration, Number) and isinstance(rate, Number)
        super().__init__(() if scalar else self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Gamma":
        """Gamma with the parameters expanded to `batch_shape`."""
        return self._expanded(Gamma, batch_shape, _instance,
                              concentration=self.concentration.expand(tuple(batch_shape)),
                              rate=self.rate.expand(tuple(batch_shape)))

    @property
    def mean(self) -> Any:
        """concentration / rate."""
        return self.concentration / self.rate

    @property
    def mode(self) -> Any:
        """(concentration - 1) / rate, at least 0."""
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Any:
        """concentration / rate^2."""
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """Draws of shape sample_shape + batch_shape, differentiable in both
        parameters (implicitly reparameterised in concentration)."""
        shape = tuple(self._extended_shape(sample_shape))
        return StandardGamma.apply(self.concentration.expand(shape)) / self.rate.expand(shape)

    def log_prob(self, value: Any) -> Any:
        """Gamma log density at `value`."""
        value = minitorch.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (minitorch.xlogy(self.concentration, self.rate)
                + minitorch.xlogy(self.concentration - 1, value)
                - self.rate * value - lgamma(self.concentration))

    def cdf(self, value: Any) -> Any:
        """The regularised lower incomplete gamma P(concentration, rate * value)."""
        if self._validate_args:
            self._validate_sample(value)
        return minitorch.special.gammainc(self.concentration, self.rate * value)

    def entropy(self) -> Any:
        """c - log rate + lgamma(c) + (1 - c) digamma(c)."""
        c = self.concentration
        return c - minitorch.log(self.rate) + lgamma(c) + (1.0 - c) * digamma(c)

    @property
    def _natural_params(self) -> Any:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        return lgamma(x + 1) + (x + 1) * minitorch.log(-y.reciprocal())
