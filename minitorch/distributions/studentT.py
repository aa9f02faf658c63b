"""StudentT: a normal whose precision is Gamma(df / 2, df / 2): heavy tails for small df."""
import math
from typing import Any, Optional

import minitorch

from . import constraints
from minitorch import digamma, lgamma
from .chi2 import Chi2
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t with df degrees of freedom, located at loc and scaled by scale;
    rsample is loc + scale X / sqrt(Z / df) for X normal and Z ~ Chi2(df)."""
    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0,
                 validate_args: Optional[bool] = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "StudentT":
        """StudentT with the parameters expanded to `batch_shape`."""
        shape = tuple(batch_shape)
        return self._expanded(StudentT, batch_shape, _instance, df=self.df.expand(shape),
                              loc=self.loc.expand(shape), scale=self.scale.expand(shape),
                              _chi2=self._chi2.expand(shape))

    @property
    def mean(self) -> Any:
        """loc where df > 1, NaN elsewhere."""
        return minitorch.where(self.df <= 1, math.nan, self.loc)

    @property
    def mode(self) -> Any:
        """loc."""
        return self.loc

    @property
    def variance(self) -> Any:
        """scale^2 df / (df - 2) for df > 2, inf for 1 < df <= 2, NaN for df <= 1."""
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2)
        return minitorch.where(df > 2, finite, minitorch.where(df > 1, math.inf, math.nan))

    def rsample(self, sample_shape: Any = ()) -> Any:
        """loc + scale X rsqrt(Z / df)."""
        x = minitorch.randn(self._extended_shape(sample_shape), dtype=self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * minitorch.rsqrt(z / self.df)

    def log_prob(self, value: Any) -> Any:
        """Student's t log density at `value`."""
        if self._validate_args:
            self._validate_sample(value)
        df = self.df
        y = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * df.log() + 0.5 * math.log(math.pi)
                    + lgamma(0.5 * df) - lgamma(0.5 * (df + 1.0)))
        return -0.5 * (df + 1.0) * minitorch.log1p(y ** 2.0 / df) - log_norm

    def entropy(self) -> Any:
        """log scale + (df + 1)/2 (psi((df + 1)/2) - psi(df/2)) + log(df)/2 + log B(df/2, 1/2)."""
        df = self.df
        log_beta = lgamma(0.5 * df) + math.lgamma(0.5) - lgamma(0.5 * (df + 1))
        return (self.scale.log() + 0.5 * (df + 1) * (digamma(0.5 * (df + 1)) - digamma(0.5 * df))
                + 0.5 * df.log() + log_beta)
