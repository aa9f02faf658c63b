"""Cauchy: the ratio of two centred normals, located at loc with half-width scale."""
import math
from typing import Any

import minitorch

from . import constraints
from ._parameter_views import LocScale
from .distribution import Distribution

__all__ = ["Cauchy"]


class Cauchy(LocScale, Distribution):
    """Cauchy (Lorentz) distribution; it has no mean and infinite variance."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Cauchy":
        """Cauchy with loc and scale expanded to `batch_shape`."""
        return self._expanded_loc_scale(Cauchy, batch_shape, _instance)

    @property
    def mean(self) -> Any:
        """NaN: undefined."""
        return minitorch.full(self._extended_shape(), math.nan, dtype=self.loc.dtype)

    @property
    def mode(self) -> Any:
        """loc."""
        return self.loc

    @property
    def variance(self) -> Any:
        """inf."""
        return minitorch.full(self._extended_shape(), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """loc + scale * a standard Cauchy draw."""
        shape = self._extended_shape(sample_shape)
        return self.loc + minitorch.empty(shape, dtype=self.loc.dtype).cauchy_() * self.scale

    def log_prob(self, value: Any) -> Any:
        """-log(pi scale (1 + ((value - loc) / scale)^2))."""
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - (z ** 2).log1p()

    def cdf(self, value: Any) -> Any:
        """1/2 + atan((value - loc) / scale) / pi."""
        if self._validate_args:
            self._validate_sample(value)
        return minitorch.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value: Any) -> Any:
        """loc + scale tan(pi (value - 1/2))."""
        return minitorch.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self) -> Any:
        """log(4 pi scale)."""
        return math.log(4 * math.pi) + self.scale.log()
