"""TransformedDistribution: a base distribution pushed through transforms,
its log density by the change of variables, as torch's."""
from typing import Any, Dict, Optional

from . import constraints
from .distribution import Distribution
from .independent import _sum_rightmost
from .transforms import ComposeTransform, Transform

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """Samples t_n(...t_1(x)) for x from base_distribution; log_prob inverts
    the transforms and subtracts their log Jacobian determinants."""
    arg_constraints: Dict[str, Any] = {}

    def __init__(self, base_distribution: Distribution, transforms: Any,
                 validate_args: Optional[bool] = None) -> None:
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{transform.domain.event_dim}, but got {base_shape}.")
        forward_shape = tuple(transform.forward_shape(base_shape))
        expanded_base_shape = tuple(transform.inverse_shape(forward_shape))
        if base_shape != expanded_base_shape:
            base_batch_shape = expanded_base_shape[:len(expanded_base_shape) - base_event_dim]
            base_distribution = base_distribution.expand(base_batch_shape)
        reinterpreted = transform.domain.event_dim - base_event_dim
        if reinterpreted > 0:
            from .independent import Independent
            base_distribution = Independent(base_distribution, reinterpreted)
        self.base_dist = base_distribution
        transform_change = transform.codomain.event_dim - transform.domain.event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + transform_change)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "TransformedDistribution":
        """The same transforms over the base distribution expanded so that
        the result has `batch_shape`."""
        shape = tuple(batch_shape) + tuple(self.event_shape)
        for t in reversed(self.transforms):
            shape = tuple(t.inverse_shape(shape))
        base_batch = shape[:len(shape) - len(self.base_dist.event_shape)]
        return self._expanded(TransformedDistribution, batch_shape, _instance,
                              base_dist=self.base_dist.expand(base_batch),
                              transforms=self.transforms)

    @constraints.dependent_property
    def support(self) -> Any:
        """The codomain of the last transform, widened to the event dims."""
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        """Whether the base distribution has rsample."""
        return self.base_dist.has_rsample

    def sample(self, sample_shape: Any = ()) -> Any:
        """A base sample pushed through the transforms, with no graph."""
        import minitorch
        with minitorch.no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape: Any = ()) -> Any:
        """A reparameterised base sample pushed through the transforms."""
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value: Any) -> Any:
        """The base log density at the inverted value minus the transforms' log
        absolute Jacobian determinants."""
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob: Any = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(transform.log_abs_det_jacobian(x, y),
                                                 event_dim - transform.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y),
                                         event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value: Any) -> Any:
        sign: Any = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value: Any) -> Any:
        """The base cdf at the inverted value (flipped for decreasing transforms)."""
        for transform in self.transforms[::-1]:
            value = transform.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: Any) -> Any:
        """The transforms applied to the base icdf."""
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for transform in self.transforms:
            value = transform(value)
        return value
