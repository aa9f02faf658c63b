"""MixtureSameFamily: a Categorical mixture over the rightmost batch dim of
one component distribution."""
from typing import Any, Dict, Optional

import minitorch

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """Draw a component index from mixture_distribution, then a sample from
    that slice of component_distribution's rightmost batch dim."""
    arg_constraints: Dict[str, Any] = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical, component_distribution: Distribution,
                 validate_args: Optional[bool] = None) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "torch.distributions.Distribution")
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for a, b in zip(reversed(mdbs), reversed(cdbs)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible "
                                 f"with `component_distribution.batch_shape`({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(cdbs, component_distribution.event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "MixtureSameFamily":
        """The mixture with both distributions expanded to `batch_shape`."""
        shape = tuple(batch_shape)
        return self._expanded(
            MixtureSameFamily, batch_shape, _instance, _num_component=self._num_component,
            _event_ndims=self._event_ndims,
            _component_distribution=self._component_distribution.expand(
                shape + (self._num_component,)),
            _mixture_distribution=self._mixture_distribution.expand(shape))

    @constraints.dependent_property
    def support(self) -> Any:
        """The component support, checked over every component."""
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        """The Categorical over components."""
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        """The batched component distribution."""
        return self._component_distribution

    def _pad(self, x: Any) -> Any:
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x: Any) -> Any:
        dist_ndims = len(self.batch_shape)
        cat_ndims = len(self.mixture_distribution.batch_shape)
        pad = 0 if cat_ndims == 1 else dist_ndims - cat_ndims
        xs = tuple(x.shape)
        return x.reshape(xs[:-1] + (1,) * pad + xs[-1:] + (1,) * self._event_ndims)

    @property
    def mean(self) -> Any:
        """The probability-weighted component means."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return minitorch.sum(probs * self.component_distribution.mean, dim=-1 - self._event_ndims)

    @property
    def variance(self) -> Any:
        """E[Var | component] + Var[E | component]."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        dim = -1 - self._event_ndims
        mean_var = minitorch.sum(probs * self.component_distribution.variance, dim=dim)
        spread = (self.component_distribution.mean - self._pad(self.mean)).pow(2.0)
        return mean_var + minitorch.sum(probs * spread, dim=dim)

    def cdf(self, x: Any) -> Any:
        """The probability-weighted component cdfs."""
        cdf = self.component_distribution.cdf(self._pad(x))
        return minitorch.sum(cdf * self.mixture_distribution.probs, dim=-1)

    def log_prob(self, x: Any) -> Any:
        """logsumexp over components of log weight + component log_prob."""
        if self._validate_args:
            self._validate_sample(x)
        log_prob = self.component_distribution.log_prob(self._pad(x))
        log_mix = minitorch.log_softmax(self.mixture_distribution.logits, dim=-1)
        return minitorch.logsumexp(log_prob + log_mix, dim=-1)

    def sample(self, sample_shape: Any = ()) -> Any:
        """A component sample picked at each draw's mixture index."""
        with minitorch.no_grad():
            gather_dim = len(tuple(sample_shape)) + len(self.batch_shape)
            es = tuple(self.event_shape)
            mix = self.mixture_distribution.sample(sample_shape)
            comp = self.component_distribution.sample(sample_shape)
            idx = mix.reshape(tuple(mix.shape) + (1,) * (len(es) + 1))
            idx = idx.repeat((1,) * mix.dim() + (1,) + es)
            return minitorch.gather(comp, gather_dim, idx).squeeze(gather_dim)

    def __repr__(self) -> str:
        return (f"MixtureSameFamily(\n  {self.mixture_distribution},\n"
                f"  {self.component_distribution})")
