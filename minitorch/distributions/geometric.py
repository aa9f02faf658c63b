"""Geometric: the number of failures before the first success of Bernoulli(probs) trials."""
from numbers import Number
from typing import Any, Optional

import minitorch
import minitorch.nn.functional as F

from . import constraints
from ._parameter_views import BinaryProbsOrLogits
from .distribution import Distribution
from .utils import (broadcast_all, check_probs_or_logits, expand_probs_or_logits, tiny)

__all__ = ["Geometric"]


class Geometric(BinaryProbsOrLogits, Distribution):
    """Geometric distribution with mass p (1 - p)^k for k = 0, 1, ...,
    parameterised by probs or logits of success."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        check_probs_or_logits(probs, logits)
        given = probs if probs is not None else logits
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        super().__init__(() if isinstance(given, Number) else given.size(),
                         validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to be positive but found "
                    f"invalid values:\n{value.detach()[~valid]}")

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Geometric":
        """Geometric with the parameter expanded to `batch_shape`."""
        params = expand_probs_or_logits(self, batch_shape)
        del params["_param"]
        return self._expanded(Geometric, batch_shape, _instance, **params)

    @property
    def mean(self) -> Any:
        """1 / probs - 1."""
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Any:
        """0."""
        return minitorch.zeros_like(self.probs)

    @property
    def variance(self) -> Any:
        """(1 / probs - 1) / probs."""
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: Any = ()) -> Any:
        """floor(log u / log(1 - probs)) for u uniform on [tiny, 1)."""
        shape = self._extended_shape(sample_shape)
        with minitorch.no_grad():
            u = minitorch.empty(shape, dtype=self.probs.dtype).uniform_(tiny(self.probs.dtype), 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Any) -> Any:
        """value log(1 - probs) + log probs (0 at probs = 1, value = 0)."""
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = minitorch.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Any:
        """binary_cross_entropy_with_logits(logits, probs) / probs."""
        return F.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                  reduction="none") / self.probs
