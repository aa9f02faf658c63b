"""ContinuousBernoulli: the density proportional to p^x (1 - p)^(1 - x) on [0, 1]
(Loaiza-Ganem & Cunningham), normalised by C(p) = 2 atanh(1 - 2p) / (1 - 2p)."""
import math
from numbers import Number
from typing import Any, Optional, Tuple

import minitorch
import minitorch.nn.functional as F

from . import constraints
from ._parameter_views import ParamShape
from .exp_family import ExponentialFamily
from .utils import (broadcast_all, check_probs_or_logits, clamp_probs, expand_probs_or_logits,
                    lazy_property, logits_to_probs, probs_to_logits)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ParamShape, ExponentialFamily):
    """Continuous Bernoulli distribution; near p = 1/2, inside `lims`, the
    normaliser and moments use their Taylor expansions, the exact forms cancelling there."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 lims: Tuple[float, float] = (0.499, 0.501),
                 validate_args: Optional[bool] = None) -> None:
        check_probs_or_logits(probs, logits)
        given = probs if probs is not None else logits
        if probs is not None:
            (p,) = broadcast_all(probs)
            if validate_args is not None and not bool(
                    self.arg_constraints["probs"].check(p).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(p)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        self._lims = lims
        super().__init__(() if isinstance(given, Number) else self._param.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "ContinuousBernoulli":
        """ContinuousBernoulli with the parameter expanded to `batch_shape`."""
        return self._expanded(ContinuousBernoulli, batch_shape, _instance, _lims=self._lims,
                              **expand_probs_or_logits(self, batch_shape))

    def _stable(self) -> Any:
        """Where probs is outside the region around 1/2 that needs Taylor series."""
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> Any:
        return minitorch.where(self._stable(), self.probs, self._lims[0])

    def _cont_bern_log_norm(self) -> Any:
        """log C(probs)."""
        p = self._cut_probs()
        below = minitorch.where(p <= 0.5, p, 0.0)
        above = minitorch.where(p >= 0.5, p, 1.0)
        exact = (minitorch.log(minitorch.abs(minitorch.log1p(-p) - minitorch.log(p)))
                 - minitorch.where(p <= 0.5, minitorch.log1p(-2.0 * below),
                                   minitorch.log(2.0 * above - 1.0)))
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return minitorch.where(self._stable(), exact, taylor)

    @property
    def mean(self) -> Any:
        """p / (2p - 1) + 1 / (log(1 - p) - log p)."""
        p = self._cut_probs()
        exact = p / (2.0 * p - 1.0) + 1.0 / (minitorch.log1p(-p) - minitorch.log(p))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return minitorch.where(self._stable(), exact, taylor)

    @property
    def stddev(self) -> Any:
        """sqrt(variance)."""
        return minitorch.sqrt(self.variance)

    @property
    def variance(self) -> Any:
        """p (p - 1) / (1 - 2p)^2 + 1 / (log(1 - p) - log p)^2."""
        p = self._cut_probs()
        exact = (p * (p - 1.0) / (1.0 - 2.0 * p).pow(2)
                 + 1.0 / (minitorch.log1p(-p) - minitorch.log(p)).pow(2))
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return minitorch.where(self._stable(), exact, taylor)

    @lazy_property
    def logits(self) -> Any:
        """Log-odds of probs."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Any:
        """The shape parameter in (0, 1), clamped off 0 and 1."""
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def sample(self, sample_shape: Any = ()) -> Any:
        """icdf at uniform draws, with no graph."""
        u = minitorch.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        with minitorch.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """icdf at uniform draws (differentiable in the parameter)."""
        u = minitorch.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        return self.icdf(u)

    def log_prob(self, value: Any) -> Any:
        """x log p + (1 - x) log(1 - p) + log C(p)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-F.binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value: Any) -> Any:
        """(p^x (1 - p)^(1 - x) + p - 1) / (2p - 1), clamped to [0, 1] outside the support."""
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        cdfs = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inner = minitorch.where(self._stable(), cdfs, value)
        return minitorch.where(value <= 0.0, minitorch.zeros_like(value),
                               minitorch.where(value >= 1.0, minitorch.ones_like(value), inner))

    def icdf(self, value: Any) -> Any:
        """(log(1 - p + value (2p - 1)) - log(1 - p)) / (log p - log(1 - p))."""
        p = self._cut_probs()
        exact = ((minitorch.log1p(-p + value * (2.0 * p - 1.0)) - minitorch.log1p(-p))
                 / (minitorch.log(p) - minitorch.log1p(-p)))
        return minitorch.where(self._stable(), exact, value)

    def entropy(self) -> Any:
        """mean (log(1 - p) - log p) - log C(p) - log(1 - p)."""
        log_q, log_p = minitorch.log1p(-self.probs), minitorch.log(self.probs)
        return self.mean * (log_q - log_p) - self._cont_bern_log_norm() - log_q

    @property
    def _natural_params(self) -> Tuple[Any]:
        return (self.logits,)

    def _log_normalizer(self, x: Any) -> Any:
        stable = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = minitorch.where(stable, x, (self._lims[0] - 0.5) * minitorch.ones_like(x))
        exact = minitorch.log(minitorch.expm1(cut).abs()) - minitorch.log(cut.abs())
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return minitorch.where(stable, exact, taylor)
