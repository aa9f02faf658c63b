"""The transforms acting on one value or one vector at a time that torch
lists besides exp/sigmoid/tanh/affine: PowerTransform, SoftplusTransform,
SoftmaxTransform, StickBreakingTransform, LowerCholeskyTransform and
PositiveDefiniteTransform (re-exported by transforms)."""
from typing import Any

import minitorch
import minitorch.nn.functional as F

from . import constraints
from ._basic_transforms import Transform
from .utils import broadcast_all, lazy_property, tiny


class PowerTransform(Transform):
    """y = x ** exponent on the positive reals."""
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size: int = 1) -> "PowerTransform":
        """This transform with a cache of cache_size (0 or 1)."""
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self) -> Any:  # type: ignore[override]
        """The sign of the exponent."""
        return self.exponent.sign()

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, PowerTransform):
            return False
        return bool(self.exponent.eq(other.exponent).all().item())

    def __hash__(self) -> int:
        return id(self)

    def _call(self, x: Any) -> Any:
        return x.pow(self.exponent)

    def _inverse(self, y: Any) -> Any:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """log abs(exponent y / x)."""
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape: Any) -> Any:
        """shape broadcast with the exponent's."""
        return minitorch.broadcast_shapes(tuple(shape), tuple(self.exponent.shape))

    def inverse_shape(self, shape: Any) -> Any:
        """shape broadcast with the exponent's."""
        return self.forward_shape(shape)


class SoftplusTransform(Transform):
    """y = log(1 + exp(x))."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SoftplusTransform)

    def __hash__(self) -> int:
        return hash(SoftplusTransform)

    def _call(self, x: Any) -> Any:
        return F.softplus(x)

    def _inverse(self, y: Any) -> Any:
        return y + (-(-y).expm1()).log()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """log sigmoid(x) = -softplus(-x)."""
        return -F.softplus(-x)


class SoftmaxTransform(Transform):
    """Unnormalised log-probabilities to the simplex by softmax over the last
    dim (not bijective: the inverse returns log y, one of the preimages)."""
    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SoftmaxTransform)

    def __hash__(self) -> int:
        return hash(SoftmaxTransform)

    def _call(self, x: Any) -> Any:
        p = (x - x.amax(-1, keepdim=True)).exp()
        return p / p.sum(-1, keepdim=True)

    def _inverse(self, y: Any) -> Any:
        return y.log()

    def forward_shape(self, shape: Any) -> Any:
        """The same shape (at least one dim)."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        """The same shape (at least one dim)."""
        return self.forward_shape(shape)


def _stick_offsets(k: int, like: Any) -> Any:
    """log(K - i) for i = 0 .. K-1: centres x = 0 on the simplex's centre."""
    return minitorch.arange(k, 0, -1, dtype=like.dtype).log()


class StickBreakingTransform(Transform):
    """R^K to the (K + 1)-simplex: the i-th sigmoid (shifted by log(K - i))
    breaks off that fraction of the stick left by the earlier pieces."""
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, StickBreakingTransform)

    def __hash__(self) -> int:
        return hash(StickBreakingTransform)

    def _call(self, x: Any) -> Any:
        finfo = minitorch.finfo(x.dtype)
        z = minitorch.sigmoid(x - _stick_offsets(x.shape[-1], x)).clamp(min=finfo.tiny,
                                                                         max=1 - finfo.eps)
        left = (1 - z).cumprod(-1)
        return F.pad(z, [0, 1], value=1) * F.pad(left, [1, 0], value=1)

    def _inverse(self, y: Any) -> Any:
        pieces = y[..., :-1]
        left = (1 - pieces.cumsum(-1)).clamp(min=tiny(y.dtype))
        return pieces.log() - left.log() + _stick_offsets(pieces.shape[-1], y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        """sum over the pieces of log sigmoid'(x_i) times the stick left, as
        -x + log sigmoid(x) + log y_i with x shifted."""
        x = x - _stick_offsets(x.shape[-1], x)
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape: Any) -> Any:
        """(..., K) to (..., K + 1)."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape: Any) -> Any:
        """(..., K + 1) to (..., K)."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Square matrices to lower-triangular ones with a positive diagonal:
    keep the strict lower triangle and exponentiate the diagonal."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    def __hash__(self) -> int:
        return hash(LowerCholeskyTransform)

    def _call(self, x: Any) -> Any:
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y: Any) -> Any:
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Square matrices to positive-definite ones, L L^T of LowerCholeskyTransform's L."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    def __hash__(self) -> int:
        return hash(PositiveDefiniteTransform)

    def _call(self, x: Any) -> Any:
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y: Any) -> Any:
        return LowerCholeskyTransform().inv(minitorch.linalg.cholesky(y))
