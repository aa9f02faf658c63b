"""LogisticNormal: a Normal vector pushed onto the simplex by stick breaking."""
from typing import Any, Optional

from . import constraints
from ._elementwise_transforms import StickBreakingTransform
from .normal import Normal
from .transformed_distribution import TransformedDistribution

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """StickBreakingTransform of Normal(loc, scale) over the last dim: points
    of the (K + 1)-simplex for K-vectors loc and scale."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LogisticNormal":
        """LogisticNormal over the base Normal expanded to `batch_shape`."""
        return super().expand(batch_shape, self._get_checked_instance(LogisticNormal, _instance))

    @property
    def loc(self) -> Any:
        """The Normal's loc."""
        return self.base_dist.base_dist.loc

    @property
    def scale(self) -> Any:
        """The Normal's scale."""
        return self.base_dist.base_dist.scale
