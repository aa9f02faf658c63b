"""Dirichlet: a distribution over the probability simplex, with concentration
over the last dim."""
from typing import Any, Optional

import minitorch
import minitorch.nn.functional as F

from . import constraints
from ._gamma_sampler import StandardGamma
from minitorch import digamma, lgamma
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """Dirichlet distribution with the given concentration (last dim = event);
    rsample normalises reparameterised Gamma draws."""
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Any, validate_args: Optional[bool] = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Dirichlet":
        """Dirichlet with the concentration expanded to `batch_shape`."""
        return self._expanded(Dirichlet, batch_shape, _instance,
                              concentration=self.concentration.expand(
                                  tuple(batch_shape) + tuple(self.event_shape)))

    def rsample(self, sample_shape: Any = ()) -> Any:
        """Points of the simplex: Gamma(concentration) draws over their sum,
        differentiable through the Gammas' implicit reparameterisation."""
        shape = tuple(self._extended_shape(sample_shape))
        g = StandardGamma.apply(self.concentration.expand(shape))
        return g / g.sum(-1, keepdim=True)

    def log_prob(self, value: Any) -> Any:
        """Dirichlet log density at `value`."""
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return minitorch.xlogy(c - 1.0, value).sum(-1) + lgamma(c.sum(-1)) - lgamma(c).sum(-1)

    @property
    def mean(self) -> Any:
        """concentration / its sum."""
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Any:
        """(c - 1)+ normalised; a one-hot vertex where every c < 1."""
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, True)
        vertex = F.one_hot(mode.argmax(dim=-1), cm1.shape[-1]).to(mode.dtype)
        return minitorch.where((self.concentration < 1).all(dim=-1, keepdim=True), vertex, mode)

    @property
    def variance(self) -> Any:
        """c (c0 - c) / (c0^2 (c0 + 1)) with c0 the total."""
        c0 = self.concentration.sum(-1, True)
        return self.concentration * (c0 - self.concentration) / (c0.pow(2) * (c0 + 1))

    def entropy(self) -> Any:
        """Dirichlet entropy."""
        c = self.concentration
        k, a0 = c.shape[-1], c.sum(-1)
        return (lgamma(c).sum(-1) - lgamma(a0) - (k - a0) * digamma(a0)
                - ((c - 1.0) * digamma(c)).sum(-1))

    @property
    def _natural_params(self) -> Any:
        return (self.concentration,)

    def _log_normalizer(self, x: Any) -> Any:
        return x.lgamma().sum(-1) - lgamma(x.sum(-1))
