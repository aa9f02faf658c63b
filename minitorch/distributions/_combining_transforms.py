"""Transforms built from other transforms or distributions, as torch's:
IndependentTransform (batch dims into the event), ReshapeTransform,
CatTransform and StackTransform (a transform per slice along a dim) and
CumulativeDistributionTransform (a distribution's cdf). Re-exported by transforms."""
from typing import Any, Optional, Sequence

import minitorch

from . import constraints
from .independent import _sum_rightmost
from ._basic_transforms import Transform


class IndependentTransform(Transform):
    """base_transform with `reinterpreted_batch_ndims` more dims in its event:
    the log Jacobian sums over them."""

    def __init__(self, base_transform: Transform, reinterpreted_batch_ndims: int,
                 cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> "IndependentTransform":
        """This transform with a cache of cache_size (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        """The base domain over the wider event."""
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        """The base codomain over the wider event."""
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether the base transform is invertible."""
        return self.base_transform.bijective

    @property
    def sign(self) -> Any:
        """The base transform's sign."""
        return self.base_transform.sign

    def _call(self, x: Any) -> Any:
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: Any) -> Any:
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """The base log Jacobian summed over the reinterpreted dims."""
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}({self.base_transform!r}, "
                f"{self.reinterpreted_batch_ndims})")

    def forward_shape(self, shape: Any) -> Any:
        """The base transform's output shape."""
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        """The base transform's input shape."""
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshape the rightmost in_shape dims to out_shape (Jacobian 1)."""
    bijective = True

    def __init__(self, in_shape: Any, out_shape: Any, cache_size: int = 0) -> None:
        self.in_shape = minitorch.Size(tuple(in_shape))
        self.out_shape = minitorch.Size(tuple(out_shape))
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self) -> Any:
        """Reals over in_shape's dims."""
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self) -> Any:
        """Reals over out_shape's dims."""
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> "ReshapeTransform":
        """This transform with a cache of cache_size (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Any) -> Any:
        return x.reshape(tuple(x.shape[:x.dim() - len(self.in_shape)]) + tuple(self.out_shape))

    def _inverse(self, y: Any) -> Any:
        return y.reshape(tuple(y.shape[:y.dim() - len(self.out_shape)]) + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """Zeros over the batch."""
        return x.new_zeros(tuple(x.shape[:x.dim() - len(self.in_shape)]))

    @staticmethod
    def _swap(shape: Any, old: Any, new: Any) -> Any:
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if tuple(shape[cut:]) != tuple(old):
            raise ValueError(f"Shape mismatch: expected {minitorch.Size(tuple(shape[cut:]))} "
                             f"but got {old}")
        return minitorch.Size(tuple(shape[:cut]) + tuple(new))

    def forward_shape(self, shape: Any) -> Any:
        """The batch dims followed by out_shape."""
        return self._swap(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape: Any) -> Any:
        """The batch dims followed by in_shape."""
        return self._swap(shape, self.out_shape, self.in_shape)


def _check_dim(t: Any, value: Any, name: str, size: int, what: str) -> None:
    if not -value.dim() <= t.dim < value.dim():
        raise AssertionError(f"dim {t.dim} out of range for {name} with {value.dim()} dimensions")
    if value.size(t.dim) != size:
        raise AssertionError(f"{name.split()[0]}.size({t.dim}) = {value.size(t.dim)} must equal "
                             f"{what} {size}")


class _PiecewiseTransform(Transform):
    """Transforms `tseq`, one per slice along `dim`; subclasses say how the
    parts' constraints combine."""

    def __init__(self, tseq: Sequence[Transform], dim: int, cache_size: int) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def _combine(self, parts: list) -> Any:
        raise NotImplementedError

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether every part is invertible."""
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> Any:
        """The parts' domains combined along dim."""
        return self._combine([t.domain for t in self.transforms])

    @constraints.dependent_property
    def codomain(self) -> Any:
        """The parts' codomains combined along dim."""
        return self._combine([t.codomain for t in self.transforms])


class CatTransform(_PiecewiseTransform):
    """Transform i applied to the i-th slice of `lengths[i]` along `dim`, concatenated."""

    def __init__(self, tseq: Sequence[Transform], dim: int = 0,
                 lengths: Optional[Sequence[int]] = None, cache_size: int = 0) -> None:
        super().__init__(tseq, dim, cache_size)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")

    @property
    def event_dim(self) -> int:
        """The largest event dims of the parts."""
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        """The total length along dim."""
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> "CatTransform":
        """This transform with a cache of cache_size (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _combine(self, parts: list) -> Any:
        return constraints.cat(parts, self.dim, self.lengths)

    def _slices(self, v: Any, name: str) -> Any:
        _check_dim(self, v, name, self.length, "length")
        return constraints.narrowed_slices(v, self.dim, self.lengths)

    def _call(self, x: Any) -> Any:
        return minitorch.cat([t(s) for t, s in zip(self.transforms, self._slices(x, "tensor"))],
                             dim=self.dim)

    def _inverse(self, y: Any) -> Any:
        return minitorch.cat([t.inv(s) for t, s in zip(self.transforms,
                                                        self._slices(y, "tensor"))], dim=self.dim)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """Each part's log Jacobian (summed to the common event dims), concatenated
        along dim when dim is a batch dim, else summed."""
        parts = [_sum_rightmost(t.log_abs_det_jacobian(a, b), self.event_dim - t.event_dim)
                 for t, a, b in zip(self.transforms, self._slices(x, "x"), self._slices(y, "y"))]
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        return minitorch.cat(parts, dim=dim) if dim < 0 else sum(parts)


class StackTransform(_PiecewiseTransform):
    """Transform i applied to the i-th slice along `dim`, stacked."""

    def __init__(self, tseq: Sequence[Transform], dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(tseq, dim, cache_size)

    def with_cache(self, cache_size: int = 1) -> "StackTransform":
        """This transform with a cache of cache_size (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _combine(self, parts: list) -> Any:
        return constraints.stack(parts, self.dim)

    def _slices(self, v: Any, name: str) -> Any:
        _check_dim(self, v, name, len(self.transforms), "len(transforms)")
        return [v.select(self.dim, i) for i in range(v.size(self.dim))]

    def _call(self, x: Any) -> Any:
        return minitorch.stack([t(s) for s, t in zip(self._slices(x, "tensor"), self.transforms)],
                               dim=self.dim)

    def _inverse(self, y: Any) -> Any:
        return minitorch.stack([t.inv(s) for s, t in zip(self._slices(y, "tensor"),
                                                          self.transforms)], dim=self.dim)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """Each slice's log Jacobian, stacked along dim."""
        xs, ys = self._slices(x, "x"), self._slices(y, "y")
        return minitorch.stack([t.log_abs_det_jacobian(a, b)
                                for a, b, t in zip(xs, ys, self.transforms)], dim=self.dim)


class CumulativeDistributionTransform(Transform):
    """y = distribution.cdf(x), onto the unit interval; its log Jacobian is
    the log density."""
    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> Any:  # type: ignore[override]
        """The distribution's support."""
        return self.distribution.support

    def _call(self, x: Any) -> Any:
        return self.distribution.cdf(x)

    def _inverse(self, y: Any) -> Any:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """The log density at x."""
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size: int = 1) -> "CumulativeDistributionTransform":
        """This transform with a cache of cache_size (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
