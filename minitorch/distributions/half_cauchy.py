"""HalfCauchy: |X| for X ~ Cauchy(0, scale)."""
import math
from typing import Any, Optional

import minitorch

from . import constraints
from ._folded import Folded
from .cauchy import Cauchy
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(Folded, TransformedDistribution):
    """The Cauchy distribution folded onto x >= 0; its mean is infinite."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale: Any, validate_args: Optional[bool] = None) -> None:
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "HalfCauchy":
        """HalfCauchy over the base Cauchy expanded to `batch_shape`."""
        return super().expand(batch_shape, self._get_checked_instance(HalfCauchy, _instance))

    @property
    def mean(self) -> Any:
        """inf."""
        return minitorch.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self) -> Any:
        """inf."""
        return self.base_dist.variance
