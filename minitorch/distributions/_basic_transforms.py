"""The base Transform (an invertible map with the log absolute determinant
of its Jacobian, its inverse `.inv`, its sign, its domain and codomain
constraints, and the cache of its last (x, y) pair) and the first
transforms on it: ExpTransform, SigmoidTransform, TanhTransform,
AbsTransform, AffineTransform, CorrCholeskyTransform and ComposeTransform.
_elementwise_transforms and _combining_transforms build the others on it;
transforms gathers them all."""
import functools
import math
import numbers
import operator
import weakref
from typing import Any, List

from . import constraints
from .independent import _sum_rightmost

__all__ = ["AbsTransform", "AffineTransform", "ComposeTransform", "CorrCholeskyTransform",
           "ExpTransform", "SigmoidTransform", "TanhTransform", "Transform", "identity_transform"]


def _mt() -> Any:
    import minitorch
    return minitorch


class Transform:
    """An invertible map y = t(x); cache_size=1 keeps the last (x, y) so that
    inverting a value the transform made returns the x it came from."""
    bijective = False
    domain: Any = constraints.real
    codomain: Any = constraints.real

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._inv: Any = None
        self._cached_x_y: Any = (None, None)

    @property
    def event_dim(self) -> int:
        """The event dims of domain and codomain, which must agree."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> "Transform":
        """The inverse transform (t.inv.inv is t)."""
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = weakref.ref(inv)
        return inv

    @property
    def sign(self) -> Any:
        """The sign of the Jacobian's determinant, for bijective elementwise maps."""
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> "Transform":
        """This transform with a cache of cache_size (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other: Any) -> bool:
        return self is other

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return id(self)

    def __call__(self, x: Any) -> Any:
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y: Any) -> Any:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x: Any) -> Any:
        raise NotImplementedError

    def _inverse(self, y: Any) -> Any:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """log abs(dy/dx) at the pair (x, y = t(x))."""
        raise NotImplementedError

    def forward_shape(self, shape: Any) -> Any:
        """The shape of t(x) for an x of shape `shape`."""
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of t.inv(y) for a y of shape `shape`."""
        return shape

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform, sharing its cache."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self) -> Any:  # type: ignore[override]
        """The constraint of the inputs."""
        return self._inv.codomain

    @property
    def codomain(self) -> Any:  # type: ignore[override]
        """The constraint of the outputs."""
        return self._inv.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether the transform is invertible."""
        return self._inv.bijective

    @property
    def sign(self) -> Any:
        """The sign of the Jacobian determinant."""
        return self._inv.sign

    @property
    def inv(self) -> Transform:
        """The inverse transform."""
        return self._inv

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    def __hash__(self) -> int:
        return hash(self._inv)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({repr(self._inv)})"

    def __call__(self, x: Any) -> Any:
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """log abs(dy/dx) at the pair (x, y)."""
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: Any) -> Any:
        """The shape of t(x) for an x of shape `shape`."""
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of t.inv(y) for a y of shape `shape`."""
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """The transforms of `parts` applied in order."""

    def __init__(self, parts: List[Transform], cache_size: int = 0) -> None:
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    def __hash__(self) -> int:
        return id(self)

    @property
    def domain(self) -> Any:  # type: ignore[override]
        """The constraint of the inputs."""
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @property
    def codomain(self) -> Any:  # type: ignore[override]
        """The constraint of the outputs."""
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether the transform is invertible."""
        return all(p.bijective for p in self.parts)

    @property
    def sign(self) -> Any:
        """The sign of the Jacobian determinant."""
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self) -> Transform:
        """The inverse transform."""
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = weakref.ref(inv)
            inv._inv = weakref.ref(self)
        return inv

    def with_cache(self, cache_size: int = 1) -> "ComposeTransform":
        """This transform with a cache of cache_size (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Any) -> Any:
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """log abs(dy/dx) at the pair (x, y)."""
        if not self.parts:
            return _mt().zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(a, b),
                                        event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape: Any) -> Any:
        """The shape of t(x) for an x of shape `shape`."""
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of t.inv(y) for a y of shape `shape`."""
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{self.__class__.__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class ExpTransform(Transform):
    """y = exp(x)."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ExpTransform)

    def __hash__(self) -> int:
        return hash(ExpTransform)

    def _call(self, x: Any) -> Any:
        return x.exp()

    def _inverse(self, y: Any) -> Any:
        return y.log()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """log abs(dy/dx) at the pair (x, y)."""
        return x


class AbsTransform(Transform):
    """y = abs(x) (not injective: the inverse picks the nonnegative root)."""
    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, AbsTransform)

    def __hash__(self) -> int:
        return hash(AbsTransform)

    def _call(self, x: Any) -> Any:
        return x.abs()

    def _inverse(self, y: Any) -> Any:
        return y


def _clipped_sigmoid(x: Any) -> Any:
    finfo = _mt().finfo(x.dtype)
    return _mt().clamp(_mt().sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)


class SigmoidTransform(Transform):
    """y = sigmoid(x), kept inside (0, 1) by the dtype's tiny and eps."""
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SigmoidTransform)

    def __hash__(self) -> int:
        return hash(SigmoidTransform)

    def _call(self, x: Any) -> Any:
        return _clipped_sigmoid(x)

    def _inverse(self, y: Any) -> Any:
        finfo = _mt().finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """log abs(dy/dx) at the pair (x, y)."""
        F = _mt().nn.functional
        return -F.softplus(-x) - F.softplus(x)


class TanhTransform(Transform):
    """y = tanh(x)."""
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, TanhTransform)

    def __hash__(self) -> int:
        return hash(TanhTransform)

    def _call(self, x: Any) -> Any:
        return x.tanh()

    def _inverse(self, y: Any) -> Any:
        return _mt().atanh(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """log abs(dy/dx) at the pair (x, y)."""
        # the numerically stable 2 (log 2 - x - softplus(-2x)), as torch
        return 2.0 * (math.log(2.0) - x - _mt().nn.functional.softplus(-2.0 * x))


class AffineTransform(Transform):
    """y = loc + scale x, over events of `event_dim` rightmost dims."""
    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        """The event dims the transform acts on."""
        return self._event_dim

    @property
    def domain(self) -> Any:  # type: ignore[override]
        """The constraint of the inputs."""
        if self._event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    @property
    def codomain(self) -> Any:  # type: ignore[override]
        """The constraint of the outputs."""
        return self.domain

    def with_cache(self, cache_size: int = 1) -> "AffineTransform":
        """This transform with a cache of cache_size (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
                if a != b:
                    return False
            elif not bool((_mt().as_tensor(a) == _mt().as_tensor(b)).all()):
                return False
        return True

    def __hash__(self) -> int:
        return id(self)

    @property
    def sign(self) -> Any:
        """The sign of the Jacobian determinant."""
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x: Any) -> Any:
        return self.loc + self.scale * x

    def _inverse(self, y: Any) -> Any:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """log abs(dy/dx) at the pair (x, y)."""
        shape = x.shape
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = _mt().full_like(x, math.log(abs(scale)))
        else:
            result = _mt().abs(scale).log()
        if self._event_dim:
            result = result.reshape(tuple(result.shape[:result.dim() - self._event_dim]) + (-1,))
            result = result.sum(-1)
            shape = shape[:len(shape) - self._event_dim]
        return result.expand(shape)

    def forward_shape(self, shape: Any) -> Any:
        """The shape of t(x) for an x of shape `shape`."""
        return tuple(_mt().broadcast_shapes(shape, getattr(self.loc, "shape", ()),
                                            getattr(self.scale, "shape", ())))

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of t.inv(y) for a y of shape `shape`."""
        return self.forward_shape(shape)



class CorrCholeskyTransform(Transform):
    """Unconstrained vectors of length D (D - 1) / 2 to Cholesky factors of D x D
    correlation matrices: the vector fills the strict lower triangle row by
    row through tanh, and each row is then stick-broken (signed) to unit length."""
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, CorrCholeskyTransform)

    def __hash__(self) -> int:
        return hash(CorrCholeskyTransform)

    def _call(self, x: Any) -> Any:
        from .utils import eps, vec_to_tril_matrix
        mt = _mt()
        x = x.tanh()
        e = eps(x.dtype)
        r = vec_to_tril_matrix(x.clamp(min=-1 + e, max=1 - e), diag=-1)
        # row i keeps, at column j, r_ij times the length left by the earlier columns
        left = (1 - r.pow(2)).sqrt().cumprod(-1)
        r = r + mt.eye(r.shape[-1], dtype=r.dtype)
        return r * mt.nn.functional.pad(left[..., :-1], [1, 0], value=1)

    def _inverse(self, y: Any) -> Any:
        from .utils import tril_matrix_to_vec
        mt = _mt()
        left = 1 - mt.cumsum(y * y, dim=-1)
        left = mt.nn.functional.pad(left[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return (t.log1p() - (-t).log1p()) / 2

    def log_abs_det_jacobian(self, x: Any, y: Any, intermediates: Any = None) -> Any:
        """The stick-breaking part, half the log of the lengths left before each
        strict-lower entry but the last of its row, plus tanh's log derivative."""
        from .utils import tril_matrix_to_vec
        mt = _mt()
        left = 1 - (y * y).cumsum(dim=-1)
        stick = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        tanh = -2 * (x + mt.nn.functional.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick + tanh

    def forward_shape(self, shape: Any) -> Any:
        """(..., N) to (..., D, D) with N = D (D - 1) / 2."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        N = shape[-1]
        D = round((0.25 + 2 * N) ** 0.5 + 0.5)
        if D * (D - 1) // 2 != N:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return tuple(shape[:-1]) + (D, D)

    def inverse_shape(self, shape: Any) -> Any:
        """(..., D, D) to (..., D (D - 1) / 2)."""
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        D = shape[-1]
        return tuple(shape[:-2]) + (D * (D - 1) // 2,)
