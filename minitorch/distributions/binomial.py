"""Binomial: the number of successes in total_count Bernoulli(probs) trials."""
from typing import Any, Optional

import minitorch

from . import constraints
from ._discrete_sampler import binomial
from ._parameter_views import BinaryTrials
from .distribution import Distribution

__all__ = ["Binomial"]


def _homogeneous_count(d: Any, what: str) -> int:
    n = int(d.total_count.max())
    if not d.total_count.min() == n:
        raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
    return n


class Binomial(BinaryTrials, Distribution):
    """Binomial distribution over {0, ..., total_count}, parameterised by probs
    or logits of success."""
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        self._set_trials(total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Binomial":
        """Binomial with the parameters expanded to `batch_shape`."""
        return self._expanded_trials(Binomial, batch_shape, _instance)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        """Integers 0 .. total_count."""
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Any:
        """total_count * probs."""
        return self.total_count * self.probs

    @property
    def mode(self) -> Any:
        """floor((total_count + 1) probs), at most total_count."""
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Any:
        """total_count probs (1 - probs)."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Any:
        """Success counts of shape sample_shape + batch_shape."""
        shape = tuple(self._extended_shape(sample_shape))
        return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value: Any) -> Any:
        """log C(n, k) + k logits - n log(1 + exp(logits))."""
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        # n softplus(logits) written with |logits| so it is exact for large logits
        # and its gradient at logits = 0 is the symmetric n / 2
        log_normalizer = (n * (logits + logits.abs()) / 2
                          + n * minitorch.log1p(minitorch.exp(-logits.abs()))
                          - minitorch.lgamma(n + 1))
        return (value * logits - minitorch.lgamma(value + 1) - minitorch.lgamma(n - value + 1)
                - log_normalizer)

    def entropy(self) -> Any:
        """-sum p log p over the support (total_count must be the same everywhere)."""
        _homogeneous_count(self, "entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(minitorch.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Any:
        """0 .. total_count along a new leading dim, expanded over the batch."""
        n = _homogeneous_count(self, "enumerate_support")
        values = minitorch.arange(1 + n, dtype=self._param.dtype).view(
            (-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
