"""OneHotCategorical: a Categorical draw as a one-hot vector over the last dim."""
from typing import Any, Optional

import minitorch
import minitorch.nn.functional as F

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """One-hot vectors of length K, the 1 at a Categorical(probs or logits) index."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "OneHotCategorical":
        """OneHotCategorical with the parameters expanded to `batch_shape`."""
        return self._expanded(OneHotCategorical, batch_shape, _instance,
                              _categorical=self._categorical.expand(batch_shape))

    @property
    def _param(self) -> Any:
        return self._categorical._param

    @property
    def probs(self) -> Any:
        """Normalised probabilities."""
        return self._categorical.probs

    @property
    def logits(self) -> Any:
        """Normalised log-probabilities."""
        return self._categorical.logits

    @property
    def mean(self) -> Any:
        """probs."""
        return self._categorical.probs

    @property
    def mode(self) -> Any:
        """The one-hot vector of the most probable index."""
        probs = self._categorical.probs
        return F.one_hot(probs.argmax(dim=-1), num_classes=probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self) -> Any:
        """probs (1 - probs)."""
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self) -> Any:
        """Shape of the parameter tensor."""
        return self._categorical.param_shape

    def sample(self, sample_shape: Any = ()) -> Any:
        """One-hot vectors of Categorical draws, in probs' dtype."""
        indices = self._categorical.sample(sample_shape)
        return F.one_hot(indices, self._categorical._num_events).to(self._categorical.probs.dtype)

    def log_prob(self, value: Any) -> Any:
        """The Categorical log_prob of the hot index."""
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self) -> Any:
        """The Categorical entropy."""
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Any:
        """The K one-hot vectors along a new leading dim."""
        n = self.event_shape[0]
        values = minitorch.eye(n, dtype=self._param.dtype)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose rsample passes gradients to probs as if the
    sample were probs (the straight-through estimator)."""
    has_rsample = True

    def rsample(self, sample_shape: Any = ()) -> Any:
        """The one-hot sample plus probs - probs.detach()."""
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
