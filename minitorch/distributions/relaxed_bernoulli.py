"""RelaxedBernoulli: the Concrete / Gumbel-softmax relaxation of a Bernoulli,
a reparameterisable draw in (0, 1) that sharpens as temperature falls."""
from numbers import Number
from typing import Any, Optional

import minitorch

from . import constraints
from ._parameter_views import BinaryProbsOrLogits, ParamShape
from .distribution import Distribution
from ._relaxed import RelaxedOfBase
from .transforms import SigmoidTransform
from .utils import (broadcast_all, check_probs_or_logits, clamp_probs, expand_probs_or_logits)

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(BinaryProbsOrLogits, ParamShape, Distribution):
    """The logit of a RelaxedBernoulli draw: (logit u + logits) / temperature
    for u uniform."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        self.temperature = temperature
        check_probs_or_logits(probs, logits)
        given = probs if probs is not None else logits
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        super().__init__(() if isinstance(given, Number) else self._param.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LogitRelaxedBernoulli":
        """LogitRelaxedBernoulli with the parameter expanded to `batch_shape`."""
        return self._expanded(LogitRelaxedBernoulli, batch_shape, _instance,
                              temperature=self.temperature,
                              **expand_probs_or_logits(self, batch_shape))

    def rsample(self, sample_shape: Any = ()) -> Any:
        """(logit(u) + logit(probs)) / temperature with u and probs clamped off 0 and 1."""
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(tuple(shape)))
        u = clamp_probs(minitorch.rand(shape, dtype=probs.dtype))
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Any) -> Any:
        """log t + d - 2 log(1 + e^d) for d = logits - t value."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(RelaxedOfBase):
    """sigmoid of a LogitRelaxedBernoulli draw, in (0, 1)."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _base = LogitRelaxedBernoulli
    _transform = SigmoidTransform
    _base_validates = False
