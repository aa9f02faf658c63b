"""Laplace: the double exponential centred at loc with scale `scale`."""
from typing import Any

import minitorch

from . import constraints
from ._parameter_views import CenteredAtLoc, LocScale
from .distribution import Distribution
from .utils import eps

__all__ = ["Laplace"]


class Laplace(CenteredAtLoc, LocScale, Distribution):
    """Laplace distribution with density exp(-abs(x - loc) / scale) / (2 scale);
    rsample inverts the cdf at a uniform draw."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Laplace":
        """Laplace with loc and scale expanded to `batch_shape`."""
        return self._expanded_loc_scale(Laplace, batch_shape, _instance)

    @property
    def variance(self) -> Any:
        """2 scale^2."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Any:
        """sqrt(2) scale."""
        return 2 ** 0.5 * self.scale

    def rsample(self, sample_shape: Any = ()) -> Any:
        """loc - scale sign(u) log(1 - abs(u)) for u uniform on (eps - 1, 1), so abs(u) < 1."""
        shape = self._extended_shape(sample_shape)
        u = minitorch.empty(shape, dtype=self.loc.dtype).uniform_(eps(self.loc.dtype) - 1, 1)
        return self.loc - self.scale * u.sign() * minitorch.log1p(-u.abs())

    def log_prob(self, value: Any) -> Any:
        """-log(2 scale) - abs(value - loc) / scale."""
        if self._validate_args:
            self._validate_sample(value)
        return -minitorch.log(2 * self.scale) - minitorch.abs(value - self.loc) / self.scale

    def cdf(self, value: Any) -> Any:
        """1/2 - sign(value - loc) (exp(-abs(value - loc) / scale) - 1) / 2."""
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * minitorch.expm1(-d.abs() / self.scale)

    def icdf(self, value: Any) -> Any:
        """loc - scale sign(value - 1/2) log(1 - 2 abs(value - 1/2))."""
        t = value - 0.5
        return self.loc - self.scale * t.sign() * minitorch.log1p(-2 * t.abs())

    def entropy(self) -> Any:
        """1 + log(2 scale)."""
        return 1 + minitorch.log(2 * self.scale)
