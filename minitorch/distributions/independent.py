"""Independent: reinterpret some batch dims of a distribution as event dims,
so log_prob sums over them (a diagonal Normal as one multivariate event)."""
from typing import Any, Dict, Optional

from . import constraints
from .distribution import Distribution

__all__ = ["Independent"]


def _sum_rightmost(value: Any, dim: int) -> Any:
    """Sum the rightmost `dim` dims of value."""
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1) if dim else value


class Independent(Distribution):
    """A base distribution whose rightmost `reinterpreted_batch_ndims` batch dims
    are event dims."""
    arg_constraints: Dict[str, Any] = {}

    def __init__(self, base_distribution: Distribution, reinterpreted_batch_ndims: int,
                 validate_args: Optional[bool] = None) -> None:
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}")
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(shape[:len(shape) - event_dim], shape[len(shape) - event_dim:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Independent":
        """Independent over the base distribution expanded to `batch_shape`."""
        base = self.base_dist.expand(
            tuple(batch_shape) + tuple(self.event_shape[:self.reinterpreted_batch_ndims]))
        return self._expanded(Independent, batch_shape, _instance, base_dist=base,
                              reinterpreted_batch_ndims=self.reinterpreted_batch_ndims)

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        """Whether the base distribution has rsample."""
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        """Only without reinterpreted dims, as the base says."""
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self) -> Any:
        """The base support with the reinterpreted dims folded into its event."""
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self) -> Any:
        """The base mean."""
        return self.base_dist.mean

    @property
    def mode(self) -> Any:
        """The base mode."""
        return self.base_dist.mode

    @property
    def variance(self) -> Any:
        """The base variance."""
        return self.base_dist.variance

    def sample(self, sample_shape: Any = ()) -> Any:
        """The base sample."""
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """The base rsample."""
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Any) -> Any:
        """The base log_prob summed over the reinterpreted dims."""
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Any:
        """The base entropy summed over the reinterpreted dims."""
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True) -> Any:
        """The base support, when no dims are reinterpreted."""
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        return self.__class__.__name__ + f"({self.base_dist}, {self.reinterpreted_batch_ndims})"
