"""Pareto: scale * exp(E) for E ~ Exponential(alpha)."""
from typing import Any, Optional

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """Pareto type-I distribution with density alpha scale^alpha / x^(alpha + 1), x >= scale."""
    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale: Any, alpha: Any, validate_args: Optional[bool] = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        super().__init__(Exponential(self.alpha, validate_args=validate_args),
                         [ExpTransform(), AffineTransform(loc=0, scale=self.scale)],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Pareto":
        """Pareto with the parameters expanded to `batch_shape`."""
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(tuple(batch_shape))
        new.alpha = self.alpha.expand(tuple(batch_shape))
        return super().expand(batch_shape, new)

    @property
    def mean(self) -> Any:
        """alpha scale / (alpha - 1), inf for alpha <= 1."""
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Any:
        """scale."""
        return self.scale

    @property
    def variance(self) -> Any:
        """scale^2 alpha / ((alpha - 1)^2 (alpha - 2)), inf for alpha <= 2."""
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        """x >= scale."""
        return constraints.greater_than_eq(self.scale)

    def entropy(self) -> Any:
        """log(scale / alpha) + 1 + 1 / alpha."""
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
