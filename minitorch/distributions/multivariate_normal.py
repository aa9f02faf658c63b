"""MultivariateNormal: the Gaussian over vectors, given by loc and one of
covariance_matrix, precision_matrix or scale_tril (kept internally as the
unbroadcast Cholesky factor, as torch keeps it)."""
import math
from typing import Any, Optional

import minitorch

from . import constraints
from ._linalg import cholesky, solve_lower
from ._parameter_views import CenteredAtLoc, ScaleTrilMatrices
from .distribution import Distribution

__all__ = ["MultivariateNormal"]


def _inverse_lower(L: Any) -> Any:
    n = L.shape[-1]
    return solve_lower(L, minitorch.eye(n, dtype=L.dtype).expand(tuple(L.shape)))


def _precision_to_scale_tril(P: Any) -> Any:
    """The lower Cholesky factor of P^-1, from the factor of P with its order reversed."""
    Lf = cholesky(minitorch.flip(P, (-2, -1)))
    L_inv = minitorch.flip(Lf, (-2, -1)).mT
    return _inverse_lower(L_inv)


def batch_mahalanobis(L: Any, x: Any) -> Any:
    """x^T (L L^T)^-1 x over the batch, broadcasting L against x."""
    n = L.shape[-1]
    batch = tuple(minitorch.broadcast_shapes(tuple(L.shape[:-2]), tuple(x.shape[:-1])))
    y = solve_lower(L.expand(batch + (n, n)), x.expand(batch + (n,)).unsqueeze(-1))
    return y.squeeze(-1).pow(2).sum(-1)


class MultivariateNormal(CenteredAtLoc, ScaleTrilMatrices, Distribution):
    """Multivariate normal N(loc, Sigma); rsample is loc + scale_tril @ eps."""
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Any, covariance_matrix: Any = None, precision_matrix: Any = None,
                 scale_tril: Any = None, validate_args: Optional[bool] = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril "
                             "may be specified.")
        name = ("scale_tril matrix" if scale_tril is not None else "covariance_matrix"
                if covariance_matrix is not None else "precision_matrix")
        matrix = given[0]
        if matrix.dim() < 2:
            raise ValueError(f"{name} must be at least two-dimensional, "
                             "with optional leading batch dimensions")
        batch_shape = tuple(minitorch.broadcast_shapes(tuple(matrix.shape[:-2]),
                                                       tuple(loc.shape[:-1])))
        expanded = matrix.expand(batch_shape + (-1, -1))
        if scale_tril is not None:
            self.scale_tril = expanded
        elif covariance_matrix is not None:
            self.covariance_matrix = expanded
        else:
            self.precision_matrix = expanded
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "MultivariateNormal":
        """MultivariateNormal with loc and the matrices expanded to `batch_shape`."""
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        cov_shape = loc_shape + tuple(self.event_shape)
        matrices = {name: self.__dict__[name].expand(cov_shape)
                    for name in ("covariance_matrix", "scale_tril", "precision_matrix")
                    if name in self.__dict__}
        return self._expanded(MultivariateNormal, batch_shape, _instance,
                              loc=self.loc.expand(loc_shape),
                              _unbroadcasted_scale_tril=self._unbroadcasted_scale_tril, **matrices)

    def _matrix_shape(self) -> tuple:
        return tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape)

    @property
    def variance(self) -> Any:
        """The covariance diagonal."""
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape: Any = ()) -> Any:
        """loc + scale_tril @ eps for a standard normal eps."""
        eps = minitorch.randn(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: Any) -> Any:
        """Gaussian log density at `value`."""
        if self._validate_args:
            self._validate_sample(value)
        m = batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - half_log_det

    def entropy(self) -> Any:
        """0.5 n (1 + log 2 pi) + log det scale_tril."""
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return H if len(self._batch_shape) == 0 else H.expand(tuple(self._batch_shape))
