"""LogNormal: exp of a Normal(loc, scale) variable."""
from typing import Any, Optional

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """exp(X) for X ~ Normal(loc, scale)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LogNormal":
        """LogNormal over the base Normal expanded to `batch_shape`."""
        return super().expand(batch_shape, self._get_checked_instance(LogNormal, _instance))

    @property
    def loc(self) -> Any:
        """The mean of the log."""
        return self.base_dist.loc

    @property
    def scale(self) -> Any:
        """The standard deviation of the log."""
        return self.base_dist.scale

    @property
    def mean(self) -> Any:
        """exp(loc + scale^2 / 2)."""
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Any:
        """exp(loc - scale^2)."""
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Any:
        """(exp(scale^2) - 1) exp(2 loc + scale^2)."""
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self) -> Any:
        """The Normal's entropy plus loc."""
        return self.base_dist.entropy() + self.loc
