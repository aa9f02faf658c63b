"""RelaxedOneHotCategorical: the Concrete / Gumbel-softmax relaxation of a
one-hot Categorical, a reparameterisable point of the simplex."""
from typing import Any, Optional

import minitorch

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from ._relaxed import RelaxedOfBase
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical draw: log_softmax((logits + g) / t)
    for Gumbel noise g."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "ExpRelaxedCategorical":
        """ExpRelaxedCategorical with the parameters expanded to `batch_shape`."""
        return self._expanded(ExpRelaxedCategorical, batch_shape, _instance,
                              temperature=self.temperature,
                              _categorical=self._categorical.expand(batch_shape))

    @property
    def param_shape(self) -> Any:
        """Shape of the parameter tensor."""
        return self._categorical.param_shape

    @property
    def logits(self) -> Any:
        """Normalised log-probabilities."""
        return self._categorical.logits

    @property
    def probs(self) -> Any:
        """Normalised probabilities."""
        return self._categorical.probs

    def rsample(self, sample_shape: Any = ()) -> Any:
        """log_softmax((logits - log(-log u)) / temperature)."""
        shape = self._extended_shape(sample_shape)
        u = clamp_probs(minitorch.rand(shape, dtype=self.logits.dtype))
        scores = (self.logits - (-u.log()).log()) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Any) -> Any:
        """The ExpConcrete log density: lgamma(K) + (K - 1) log t plus the
        normalised scores logits - t value summed over the event."""
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        t = self.temperature
        log_scale = minitorch.full_like(t, float(k)).lgamma() + t.log() * (k - 1)
        score = logits - value.mul(t)
        return (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1) + log_scale


class RelaxedOneHotCategorical(RelaxedOfBase):
    """exp of an ExpRelaxedCategorical draw: a point of the simplex."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True
    _base = ExpRelaxedCategorical
    _transform = ExpTransform
    _base_validates = True
