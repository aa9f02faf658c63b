"""The shape shared by RelaxedBernoulli and RelaxedOneHotCategorical: a
transformed relaxed base (temperature, probs or logits) whose parameters read
through to the base."""
from typing import Any, Optional

from .transformed_distribution import TransformedDistribution


class RelaxedOfBase(TransformedDistribution):
    """Subclasses name their base distribution (`_base`), the transform of its
    draws (`_transform`) and whether the base sees validate_args (torch hands
    it to the categorical's base only)."""
    _base: Any
    _transform: Any
    _base_validates: bool

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: Optional[bool] = None) -> None:
        base_args = {"validate_args": validate_args} if self._base_validates else {}
        super().__init__(self._base(temperature, probs, logits, **base_args), self._transform(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Any:
        """The distribution with its parameters expanded to `batch_shape`."""
        own = next(k for k in type(self).__mro__ if "_base" in vars(k))
        return super().expand(batch_shape, self._get_checked_instance(own, _instance))

    @property
    def temperature(self) -> Any:
        """The relaxation temperature."""
        return self.base_dist.temperature

    @property
    def logits(self) -> Any:
        """Log-odds (normalised log-probabilities for the categorical)."""
        return self.base_dist.logits

    @property
    def probs(self) -> Any:
        """Probabilities in the limit of zero temperature."""
        return self.base_dist.probs
