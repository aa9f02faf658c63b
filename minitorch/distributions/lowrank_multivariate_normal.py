"""LowRankMultivariateNormal: the Gaussian whose covariance is
cov_factor @ cov_factor^T + diag(cov_diag). Densities go through the m x m
capacitance matrix I + W^T D^-1 W (Woodbury identity and the matrix
determinant lemma), so nothing n x n is factored unless asked for."""
import math
from typing import Any, Optional

import minitorch

from . import constraints
from ._parameter_views import CenteredAtLoc
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _plus_identity(K: Any) -> Any:
    return K + minitorch.eye(K.shape[-1], dtype=K.dtype)


def _capacitance_tril(W: Any, D: Any) -> Any:
    """The Cholesky factor of I + W^T D^-1 W, batched."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    return minitorch.linalg.cholesky(_plus_identity(Wt_Dinv @ W))


def _lowrank_logdet(D: Any, capacitance_tril: Any) -> Any:
    """log det(W W^T + D) = log det C + log det D."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _lowrank_mahalanobis(W: Any, D: Any, x: Any, capacitance_tril: Any) -> Any:
    """x^T (W W^T + D)^-1 x = x^T D^-1 x - |C_L^-1 W^T D^-1 x|^2."""
    Wt_Dinv_x = ((W.mT / D.unsqueeze(-2)) @ x.unsqueeze(-1))
    batch = tuple(minitorch.broadcast_shapes(tuple(capacitance_tril.shape[:-2]),
                                             tuple(Wt_Dinv_x.shape[:-2])))
    m = capacitance_tril.shape[-1]
    y = minitorch.linalg.solve_triangular(capacitance_tril.expand(batch + (m, m)),
                                          Wt_Dinv_x.expand(batch + (m, 1)), upper=False)
    return (x.pow(2) / D).sum(-1) - y.squeeze(-1).pow(2).sum(-1)


class LowRankMultivariateNormal(CenteredAtLoc, Distribution):
    """Multivariate normal with covariance cov_factor @ cov_factor^T + diag(cov_diag);
    rsample is loc + cov_factor @ eps_W + sqrt(cov_diag) * eps_D."""
    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Any, cov_factor: Any, cov_diag: Any,
                 validate_args: Optional[bool] = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, "
                             "with optional leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != tuple(event_shape):
            raise ValueError("cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != tuple(event_shape):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = minitorch.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LowRankMultivariateNormal":
        """The distribution with loc, cov_factor and cov_diag expanded to `batch_shape`."""
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        return self._expanded(
            LowRankMultivariateNormal, batch_shape, _instance,
            loc=self.loc.expand(loc_shape), cov_diag=self.cov_diag.expand(loc_shape),
            cov_factor=self.cov_factor.expand(loc_shape + tuple(self.cov_factor.shape[-1:])),
            _unbroadcasted_cov_factor=self._unbroadcasted_cov_factor,
            _unbroadcasted_cov_diag=self._unbroadcasted_cov_diag,
            _capacitance_tril=self._capacitance_tril)

    def _matrix_shape(self) -> tuple:
        return tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape)

    @lazy_property
    def variance(self) -> Any:
        """The covariance diagonal: row sums of cov_factor^2 plus cov_diag."""
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
                ).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def scale_tril(self) -> Any:
        """The lower Cholesky factor of the covariance, as D^1/2 chol(I + D^-1/2 W W^T D^-1/2):
        that matrix's eigenvalues are at least 1, so the factorisation is well conditioned."""
        d_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / d_sqrt
        L = d_sqrt * minitorch.linalg.cholesky(_plus_identity(Dinvsqrt_W @ Dinvsqrt_W.mT))
        return L.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Any:
        """cov_factor @ cov_factor^T + diag(cov_diag)."""
        W = self._unbroadcasted_cov_factor
        return (W @ W.mT + minitorch.diag_embed(self._unbroadcasted_cov_diag)).expand(
            self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Any:
        """D^-1 - A^T A with A = C_L^-1 W^T D^-1 (Woodbury)."""
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        C = self._capacitance_tril
        batch = tuple(minitorch.broadcast_shapes(tuple(C.shape[:-2]), tuple(Wt_Dinv.shape[:-2])))
        A = minitorch.linalg.solve_triangular(C.expand(batch + tuple(C.shape[-2:])),
                                              Wt_Dinv.expand(batch + tuple(Wt_Dinv.shape[-2:])),
                                              upper=False)
        P = minitorch.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A
        return P.expand(self._matrix_shape())

    def rsample(self, sample_shape: Any = ()) -> Any:
        """loc + cov_factor @ eps_W + sqrt(cov_diag) * eps_D for standard normal eps."""
        shape = tuple(self._extended_shape(sample_shape))
        dtype = self.loc.dtype
        eps_W = minitorch.randn(shape[:-1] + tuple(self.cov_factor.shape[-1:]), dtype=dtype)
        eps_D = minitorch.randn(shape, dtype=dtype)
        Wx = (self._unbroadcasted_cov_factor @ eps_W.unsqueeze(-1)).squeeze(-1)
        return self.loc + Wx + self._unbroadcasted_cov_diag.sqrt() * eps_D

    def log_prob(self, value: Any) -> Any:
        """Gaussian log density at `value`."""
        if self._validate_args:
            self._validate_sample(value)
        M = _lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                 value - self.loc, self._capacitance_tril)
        log_det = _lowrank_logdet(self._unbroadcasted_cov_diag, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + M)

    def entropy(self) -> Any:
        """0.5 (n (1 + log 2 pi) + log det covariance)."""
        log_det = _lowrank_logdet(self._unbroadcasted_cov_diag, self._capacitance_tril)
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        return H if len(self._batch_shape) == 0 else H.expand(tuple(self._batch_shape))
