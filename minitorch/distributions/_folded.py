"""Folded: the shared part of HalfNormal and HalfCauchy, |X| for X symmetric
about 0: twice the density on the nonnegative half, zero below."""
import math
from typing import Any

import minitorch


class Folded:
    """log_prob, cdf, icdf and entropy of |X| from those of the base X."""

    @property
    def scale(self) -> Any:
        """The scale of the base distribution."""
        return self.base_dist.scale

    @property
    def mode(self) -> Any:
        """0."""
        return minitorch.zeros_like(self.scale)

    def log_prob(self, value: Any) -> Any:
        """log 2 + the base log density where value >= 0, -inf below."""
        if self._validate_args:
            self._validate_sample(value)
        value = minitorch.as_tensor(value, dtype=self.scale.dtype)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return minitorch.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: Any) -> Any:
        """2 F(value) - 1 for the base cdf F."""
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Any) -> Any:
        """The base icdf at (prob + 1) / 2."""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Any:
        """The base entropy minus log 2."""
        return self.base_dist.entropy() - math.log(2)
