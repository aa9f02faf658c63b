"""Properties that several distributions derive alike from their parameters,
kept once here: the mean and mode of a distribution centred at `loc`; a
location-scale family's two parameters; a
binary event's probability and log-odds, each derived from the other (one is
set by __init__); the shape of the parameter held in `_param`; and the three
matrix views of a Gaussian-family scale held as its lower Cholesky factor
(`_unbroadcasted_scale_tril`, expanded to `_matrix_shape()`)."""
from numbers import Number
from typing import Any, Optional

import minitorch

from .utils import (broadcast_all, check_probs_or_logits, expand_probs_or_logits, lazy_property,
                    logits_to_probs, probs_to_logits)


class CenteredAtLoc:
    """Mean and mode are both the `loc` parameter."""

    @property
    def mean(self) -> Any:
        """loc."""
        return self.loc

    @property
    def mode(self) -> Any:
        """loc."""
        return self.loc


class LocScale:
    """A location-scale family's parameters, loc and scale broadcast together
    (a batch shape of () when both are numbers), and their expand."""

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        scalar = isinstance(loc, Number) and isinstance(scale, Number)
        super().__init__(() if scalar else self.loc.size(), validate_args=validate_args)

    def _expanded_loc_scale(self, cls: Any, batch_shape: Any, _instance: Any) -> Any:
        return self._expanded(cls, batch_shape, _instance,
                              loc=self.loc.expand(tuple(batch_shape)),
                              scale=self.scale.expand(tuple(batch_shape)))


class BinaryProbsOrLogits:
    """probs from logits or logits from probs, whichever __init__ did not set."""

    @lazy_property
    def logits(self) -> Any:
        """Log-odds of the event."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Any:
        """Probability of the event."""
        return logits_to_probs(self.logits, is_binary=True)


class ParamShape:
    """param_shape: the shape of the parameter tensor held in `_param`."""

    @property
    def param_shape(self) -> Any:
        """Shape of the parameter tensor."""
        return self._param.size()


class BinaryTrials(BinaryProbsOrLogits, ParamShape):
    """total_count trials of a binary event given by probs or logits, the two
    broadcast together (Binomial, NegativeBinomial)."""

    def _set_trials(self, total_count: Any, probs: Any, logits: Any) -> None:
        check_probs_or_logits(probs, logits)
        if probs is not None:
            total_count, self.probs = broadcast_all(total_count, probs)
            self._param = self.probs
        else:
            total_count, self.logits = broadcast_all(total_count, logits)
            self._param = self.logits
        self.total_count = total_count.type_as(self._param)

    def _expanded_trials(self, cls: Any, batch_shape: Any, _instance: Any) -> Any:
        return self._expanded(cls, batch_shape, _instance,
                              total_count=self.total_count.expand(tuple(batch_shape)),
                              **expand_probs_or_logits(self, batch_shape))


class ScaleTrilMatrices:
    """scale_tril, covariance_matrix and precision_matrix from the factor L."""

    @lazy_property
    def scale_tril(self) -> Any:
        """The lower Cholesky factor L of the covariance."""
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Any:
        """L @ L^T."""
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Any:
        """The inverse covariance, by a Cholesky solve against the identity."""
        L = self._unbroadcasted_scale_tril
        identity = minitorch.eye(L.shape[-1], dtype=L.dtype)
        return minitorch.cholesky_solve(identity, L).expand(self._matrix_shape())
