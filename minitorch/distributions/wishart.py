"""Wishart: the distribution of sums of df outer products of Gaussian vectors
with covariance Sigma, over symmetric positive-definite matrices; Sigma is
given as covariance_matrix, precision_matrix or scale_tril and kept as its
unbroadcast Cholesky factor. Sampling is Bartlett's decomposition."""
import math
import warnings
from numbers import Number
from typing import Any, Optional

import minitorch

from . import constraints
from ._parameter_views import ScaleTrilMatrices
from .exp_family import ExponentialFamily
from .gamma import Gamma
from .multivariate_normal import _precision_to_scale_tril
from .utils import eps

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x: Any, p: int) -> Any:
    """The multivariate digamma: sum over i < p of digamma(x - i/2)."""
    if not bool((x > (p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    offsets = minitorch.arange(p, dtype=x.dtype).div(2)
    return minitorch.digamma(x.unsqueeze(-1) - offsets).sum(-1)


class Wishart(ScaleTrilMatrices, ExponentialFamily):
    """Wishart distribution W(df, Sigma) on p x p positive-definite matrices."""
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self) -> Any:  # type: ignore[override]
        """The matrices' constraints and df > p - 1."""
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df: Any, covariance_matrix: Any = None, precision_matrix: Any = None,
                 scale_tril: Any = None, validate_args: Optional[bool] = None) -> None:
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, "
                             "with optional leading batch dimensions")
        if isinstance(df, Number):
            batch_shape = tuple(param.shape[:-2])
            self.df = minitorch.tensor(df, dtype=param.dtype)
        else:
            batch_shape = tuple(minitorch.broadcast_shapes(param.shape[:-2], df.shape))
            self.df = df.expand(batch_shape)
        event_shape = tuple(param.shape[-2:])
        p = event_shape[-1]
        if bool((self.df <= p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        expanded = param.expand(batch_shape + (-1, -1))
        if scale_tril is not None:
            self.scale_tril = expanded
        elif covariance_matrix is not None:
            self.covariance_matrix = expanded
        else:
            self.precision_matrix = expanded
        if bool((self.df < p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur "
                          "for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = minitorch.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._chi2 = self._bartlett_chi2()

    def _bartlett_chi2(self) -> Gamma:
        """Chi-squared with df - i degrees of freedom for row i (as Gamma(k/2, 1/2))."""
        p = self._event_shape[-1]
        offsets = minitorch.arange(p, dtype=self._unbroadcasted_scale_tril.dtype)
        k = self.df.unsqueeze(-1) - offsets.expand(tuple(self._batch_shape) + (p,))
        return Gamma(0.5 * k, minitorch.full_like(k, 0.5))

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Wishart":
        """The distribution with df and the matrices expanded to `batch_shape`."""
        cov_shape = tuple(batch_shape) + tuple(self.event_shape)
        matrices = {name: self.__dict__[name].expand(cov_shape)
                    for name in ("covariance_matrix", "scale_tril", "precision_matrix")
                    if name in self.__dict__}
        new = self._expanded(
            Wishart, batch_shape, _instance, df=self.df.expand(tuple(batch_shape)),
            _unbroadcasted_scale_tril=self._unbroadcasted_scale_tril.expand(cov_shape),
            **matrices)
        new._chi2 = new._bartlett_chi2()
        return new

    def _matrix_shape(self) -> tuple:
        return tuple(self._batch_shape) + tuple(self._event_shape)

    def _df_matrix(self) -> Any:
        return self.df.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self) -> Any:
        """df * Sigma."""
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self) -> Any:
        """(df - p - 1) Sigma, NaN where df <= p + 1 (no mode)."""
        factor = self.df - self._event_shape[-1] - 1
        factor = minitorch.where(factor > 0, factor, math.nan)
        return factor.reshape(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self) -> Any:
        """Var X_ij = df (Sigma_ij^2 + Sigma_ii Sigma_jj)."""
        V = self.covariance_matrix
        d = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (V.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett_sample(self, sample_shape: tuple) -> Any:
        """L A A^T L^T with A lower triangular: sqrt(chi2(df - i)) on the
        diagonal (clamped above eps), standard normals below it."""
        p = self._event_shape[-1]
        diag = self._chi2.rsample(sample_shape).sqrt()
        diag = diag.clamp(min=eps(diag.dtype))
        below = minitorch.randn(tuple(sample_shape) + tuple(self._batch_shape) + (p, p),
                                dtype=diag.dtype).tril(-1)
        chol = self._unbroadcasted_scale_tril @ (minitorch.diag_embed(diag) + below)
        return chol @ chol.mT

    def rsample(self, sample_shape: Any = (), max_try_correction: Any = None) -> Any:
        """Bartlett draws; a singular draw (possible for df near p - 1) is drawn
        again, up to max_try_correction (default 10) times, with a warning."""
        tries = 10 if max_try_correction is None else max_try_correction
        sample_shape = tuple(sample_shape)
        sample = self._bartlett_sample(sample_shape)
        singular = ~self.support.check(sample)
        if not bool(singular.any()):
            return sample
        warnings.warn("Singular sample detected.", stacklevel=2)
        for _ in range(tries):
            if not bool(singular.any()):
                break
            fresh = self._bartlett_sample(sample_shape)
            keep = singular.reshape(tuple(singular.shape) + (1, 1))
            sample = minitorch.where(keep, fresh, sample)
            singular = singular & ~self.support.check(fresh)
        return sample

    def log_prob(self, value: Any) -> Any:
        """Wishart log density at `value`."""
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        half_log_det = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = minitorch.cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(-1)
        return (-nu * (p * _LOG_2 / 2 + half_log_det) - minitorch.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * minitorch.linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self) -> Any:
        """The Wishart entropy, batched over batch_shape."""
        nu = self.df
        p = self._event_shape[-1]
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + half_log_det) + minitorch.mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self) -> Any:
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x: Any, y: Any) -> Any:
        p = self._event_shape[-1]
        a = y + (p + 1) / 2
        return (a * (-minitorch.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + minitorch.mvlgamma(a, p=p))
