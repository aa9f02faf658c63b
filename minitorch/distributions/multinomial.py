"""Multinomial: the category counts of total_count Categorical draws."""
from typing import Any, Optional

import minitorch

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Counts over K categories of total_count draws with probabilities probs
    (or logits); log_prob accepts any total."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count: int = 1, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Multinomial":
        """Multinomial with the parameters expanded to `batch_shape`."""
        categorical = self._categorical.expand(batch_shape)
        return self._expanded(Multinomial, batch_shape, _instance, total_count=self.total_count,
                              _categorical=categorical,
                              _binomial=self._binomial.expand(categorical.param_shape))

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> Any:
        """Count vectors summing to at most total_count."""
        return constraints.multinomial(self.total_count)

    @property
    def logits(self) -> Any:
        """Normalised log-probabilities."""
        return self._categorical.logits

    @property
    def probs(self) -> Any:
        """Normalised probabilities."""
        return self._categorical.probs

    @property
    def param_shape(self) -> Any:
        """Shape of the parameter tensor."""
        return self._categorical.param_shape

    @property
    def mean(self) -> Any:
        """total_count probs."""
        return self.probs * self.total_count

    @property
    def variance(self) -> Any:
        """total_count probs (1 - probs)."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Any:
        """Counts of total_count Categorical draws per sample, in probs' dtype."""
        sample_shape = tuple(sample_shape)
        draws = self._categorical.sample((self.total_count,) + sample_shape)
        draws = draws.permute(*range(1, draws.dim()), 0)
        counts = minitorch.zeros(self._extended_shape(sample_shape), dtype=draws.dtype)
        counts.scatter_add_(-1, draws, minitorch.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self) -> Any:
        """n H(categorical) - log n! + sum_i E[log x_i!] over the binomial marginals."""
        n = minitorch.tensor(self.total_count)
        term1 = n * self._categorical.entropy() - minitorch.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        marginal = minitorch.exp(self._binomial.log_prob(support))
        return term1 + (marginal * minitorch.lgamma(support + 1)).sum([0, -1])

    def log_prob(self, value: Any) -> Any:
        """log (sum x)! - sum log x_i! + sum x_i logits_i (0 log 0 taken as 0)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = minitorch.where((value == 0) & (logits == -float("inf")), 0.0, logits)
        return (minitorch.lgamma(value.sum(-1) + 1) - minitorch.lgamma(value + 1).sum(-1)
                + (logits * value).sum(-1))
