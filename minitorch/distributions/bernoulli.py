"""Bernoulli: a 0/1 draw with probability probs (or log-odds logits) of 1."""
import math
from numbers import Number
from typing import Any, Optional

import minitorch
import minitorch.nn.functional as F

from . import constraints
from ._parameter_views import BinaryProbsOrLogits, ParamShape
from .exp_family import ExponentialFamily
from .utils import broadcast_all, check_probs_or_logits, expand_probs_or_logits

__all__ = ["Bernoulli"]


class Bernoulli(BinaryProbsOrLogits, ParamShape, ExponentialFamily):
    """Bernoulli distribution over {0, 1}, parameterised by probs or logits."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    _mean_carrier_measure = 0
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        check_probs_or_logits(probs, logits)
        if probs is not None:
            scalar = isinstance(probs, Number)
            (self.probs,) = broadcast_all(probs)
        else:
            scalar = isinstance(logits, Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(() if scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Bernoulli":
        """Bernoulli with the parameter expanded to `batch_shape`."""
        return self._expanded(Bernoulli, batch_shape, _instance,
                              **expand_probs_or_logits(self, batch_shape))

    @property
    def mean(self) -> Any:
        """probs."""
        return self.probs

    @property
    def mode(self) -> Any:
        """1 where probs > 0.5, 0 where below, NaN at exactly 0.5."""
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return minitorch.where(self.probs == 0.5, math.nan, mode)

    @property
    def variance(self) -> Any:
        """probs * (1 - probs)."""
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Any:
        """0/1 draws of shape sample_shape + batch_shape."""
        with minitorch.no_grad():
            return minitorch.bernoulli(self.probs.expand(tuple(self._extended_shape(sample_shape))))

    def log_prob(self, value: Any) -> Any:
        """-binary_cross_entropy_with_logits(logits, value)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Any:
        """binary_cross_entropy_with_logits(logits, probs)."""
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Any:
        """[0, 1] along a new leading dim, expanded over the batch."""
        values = minitorch.arange(2, dtype=self._param.dtype).view(
            (-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self) -> Any:
        return (minitorch.logit(self.probs),)

    def _log_normalizer(self, x: Any) -> Any:
        return minitorch.log1p(minitorch.exp(x))
