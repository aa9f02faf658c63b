"""FisherSnedecor: the F distribution, a ratio of two scaled chi-squared variables."""
import math
from numbers import Number
from typing import Any, Optional

import minitorch

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all, tiny

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """F(df1, df2): (X1 / df1) / (X2 / df2) for X_i ~ Chi2(df_i), drawn as a
    ratio of reparameterised Gammas."""
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1: Any, df2: Any, validate_args: Optional[bool] = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        scalar = isinstance(df1, Number) and isinstance(df2, Number)
        super().__init__(() if scalar else self.df1.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "FisherSnedecor":
        """FisherSnedecor with the parameters expanded to `batch_shape`."""
        shape = tuple(batch_shape)
        return self._expanded(FisherSnedecor, batch_shape, _instance, df1=self.df1.expand(shape),
                              df2=self.df2.expand(shape), _gamma1=self._gamma1.expand(shape),
                              _gamma2=self._gamma2.expand(shape))

    @property
    def mean(self) -> Any:
        """df2 / (df2 - 2), NaN for df2 <= 2."""
        df2 = minitorch.where(self.df2 <= 2, math.nan, self.df2)
        return df2 / (df2 - 2)

    @property
    def mode(self) -> Any:
        """(df1 - 2) / df1 * df2 / (df2 + 2), NaN for df1 <= 2."""
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return minitorch.where(self.df1 <= 2, math.nan, mode)

    @property
    def variance(self) -> Any:
        """2 df2^2 (df1 + df2 - 2) / (df1 (df2 - 2)^2 (df2 - 4)), NaN for df2 <= 4."""
        df2 = minitorch.where(self.df2 <= 4, math.nan, self.df2)
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape: Any = ()) -> Any:
        """X1 / X2 for the two Gammas, each kept at least tiny."""
        shape = tuple(self._extended_shape(sample_shape))
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        t = tiny(x2.dtype)
        return (x1 / x2.clamp(min=t)).clamp(min=t)

    def log_prob(self, value: Any) -> Any:
        """F log density at `value`."""
        if self._validate_args:
            self._validate_sample(value)
        h1, h2, ratio = self.df1 * 0.5, self.df2 * 0.5, self.df1 / self.df2
        t1 = (h1 + h2).lgamma() - h1.lgamma() - h2.lgamma()
        t2 = h1 * ratio.log() + (h1 - 1) * minitorch.log(value)
        return t1 + t2 - (h1 + h2) * minitorch.log1p(ratio * value)
