"""HalfNormal: |X| for X ~ Normal(0, scale)."""
import math
from typing import Any, Optional

from . import constraints
from ._folded import Folded
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(Folded, TransformedDistribution):
    """The normal distribution folded onto x >= 0."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale: Any, validate_args: Optional[bool] = None) -> None:
        super().__init__(Normal(0, scale, validate_args=False), AbsTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "HalfNormal":
        """HalfNormal over the base Normal expanded to `batch_shape`."""
        return super().expand(batch_shape, self._get_checked_instance(HalfNormal, _instance))

    @property
    def mean(self) -> Any:
        """scale sqrt(2 / pi)."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Any:
        """scale^2 (1 - 2 / pi)."""
        return self.scale.pow(2) * (1 - 2 / math.pi)
