"""Gumbel: the type-I extreme value distribution, -log(-log U) scaled and shifted."""
import math
from numbers import Number
from typing import Any, Optional

import minitorch

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant, eps, tiny

__all__ = ["Gumbel"]

class Gumbel(TransformedDistribution):
    """Gumbel distribution with density exp(-(z + e^-z)) / scale, z = (x - loc) / scale:
    a Uniform(tiny, 1 - eps) draw u mapped to loc - scale log(-log u)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        lo, hi = tiny(self.loc.dtype), 1 - eps(self.loc.dtype)
        if isinstance(loc, Number) and isinstance(scale, Number):
            base = Uniform(lo, hi, validate_args=validate_args)
        else:
            base = Uniform(minitorch.full_like(self.loc, lo), minitorch.full_like(self.loc, hi),
                           validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(0, -minitorch.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc, -self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Gumbel":
        """Gumbel with loc and scale expanded to `batch_shape`."""
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(tuple(batch_shape))
        new.scale = self.scale.expand(tuple(batch_shape))
        return super().expand(batch_shape, new)

    def log_prob(self, value: Any) -> Any:
        """y - e^y - log scale with y = (loc - value) / scale."""
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return y - y.exp() - self.scale.log()

    @property
    def mean(self) -> Any:
        """loc + scale * Euler's constant."""
        return self.loc + self.scale * euler_constant

    @property
    def mode(self) -> Any:
        """loc."""
        return self.loc

    @property
    def stddev(self) -> Any:
        """pi scale / sqrt(6)."""
        return math.pi / math.sqrt(6) * self.scale

    @property
    def variance(self) -> Any:
        """pi^2 scale^2 / 6."""
        return self.stddev.pow(2)

    def entropy(self) -> Any:
        """log scale + 1 + Euler's constant."""
        return self.scale.log() + (1 + euler_constant)
