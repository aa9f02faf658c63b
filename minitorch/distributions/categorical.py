"""Categorical: a draw of one index out of K, from probs or logits over the last dim."""
import math
from typing import Any, Optional

import minitorch

from . import constraints
from ._parameter_views import ParamShape
from .distribution import Distribution
from .utils import (check_probs_or_logits, expand_probs_or_logits, lazy_property, logits_to_probs,
                    probs_to_logits)

__all__ = ["Categorical"]

_FLOAT_MIN = {minitorch.float16: -65504.0, minitorch.bfloat16: -3.3895313892515355e+38,
              minitorch.float32: -3.4028234663852886e+38,
              minitorch.float64: -1.7976931348623157e+308}


class Categorical(ParamShape, Distribution):
    """Categorical distribution over {0, ..., K-1}, parameterised by probs or logits
    (either normalised over the last dim)."""
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        check_probs_or_logits(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.shape[-1]
        batch_shape = self._param.shape[:-1] if self._param.dim() > 1 else ()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Categorical":
        """Categorical with the parameters expanded to `batch_shape`."""
        params = expand_probs_or_logits(self, tuple(batch_shape) + (self._num_events,))
        return self._expanded(Categorical, batch_shape, _instance, _num_events=self._num_events,
                              **params)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        """Integers 0 .. K-1."""
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Any:
        """Normalised log-probabilities."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Any:
        """Normalised probabilities."""
        return logits_to_probs(self.logits)

    @property
    def mean(self) -> Any:
        """NaN: a category index has no mean."""
        return minitorch.full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self) -> Any:
        """The most probable index."""
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Any:
        """NaN: a category index has no variance."""
        return minitorch.full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape: Any = ()) -> Any:
        """Indices drawn with replacement: a uniform draw placed in the cumulative probabilities."""
        shape = minitorch.Size(tuple(sample_shape))
        with minitorch.no_grad():
            probs = self.probs.reshape(-1, self._num_events)
            cdf = probs.cumsum(-1)
            cdf = cdf / cdf[:, -1:]
            u = minitorch.rand(probs.shape[0], shape.numel(), dtype=probs.dtype)
            # right=True skips zero-probability categories whose cdf equals u's left edge
            idx = minitorch.searchsorted(cdf, u, right=True).clamp(max=self._num_events - 1)
            return idx.T.reshape(self._extended_shape(shape))

    def log_prob(self, value: Any) -> Any:
        """log probs[value]."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = minitorch.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self) -> Any:
        """-sum p log p over the categories."""
        logits = self.logits.clamp(min=_FLOAT_MIN[self.logits.dtype])
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Any:
        """0 .. K-1 along a new leading dim, expanded over the batch."""
        values = minitorch.arange(self._num_events).view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
