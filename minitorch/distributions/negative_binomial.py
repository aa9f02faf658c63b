"""NegativeBinomial: failures before total_count successes of Bernoulli trials
whose success probability is 1 - probs (torch's convention: probs is the
probability of each counted event)."""
from typing import Any, Optional

import minitorch
import minitorch.nn.functional as F

from . import constraints
from ._discrete_sampler import poisson
from ._parameter_views import BinaryTrials
from .distribution import Distribution
from .gamma import Gamma
from .utils import (lazy_property)

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryTrials, Distribution):
    """Negative binomial distribution; sample is a Poisson draw at a
    Gamma(total_count, exp(-logits)) rate."""
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        self._set_trials(total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "NegativeBinomial":
        """NegativeBinomial with the parameters expanded to `batch_shape`."""
        return self._expanded_trials(NegativeBinomial, batch_shape, _instance)

    @property
    def mean(self) -> Any:
        """total_count probs / (1 - probs)."""
        return self.total_count * minitorch.exp(self.logits)

    @property
    def mode(self) -> Any:
        """floor((total_count - 1) probs / (1 - probs)), at least 0."""
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Any:
        """mean / (1 - probs)."""
        return self.mean / minitorch.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self) -> Gamma:
        return Gamma(concentration=self.total_count, rate=minitorch.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape: Any = ()) -> Any:
        """Poisson draws at Gamma-distributed rates."""
        with minitorch.no_grad():
            return poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value: Any) -> Any:
        """log C(value + total_count - 1, value) + total_count log(1 - p) + value log p."""
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        unnormalized = n * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        normalization = -minitorch.lgamma(n + value) + minitorch.lgamma(1.0 + value) \
            + minitorch.lgamma(n)
        normalization = normalization.masked_fill(n + value == 0.0, 0.0)
        return unnormalized - normalization
