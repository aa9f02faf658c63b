"""Properties that several distributions derive alike from their parameters,
kept once here: the mean and mode of a distribution centred at `loc`, and the
three matrix views of a Gaussian-family scale held as its lower Cholesky
factor (`_unbroadcasted_scale_tril`, expanded to `_matrix_shape()`)."""
from typing import Any

import minitorch

from .utils import lazy_property


class CenteredAtLoc:
    """Mean and mode are both the `loc` parameter."""

    @property
    def mean(self) -> Any:
        """loc."""
        return self.loc

    @property
    def mode(self) -> Any:
        """loc."""
        return self.loc


class ScaleTrilMatrices:
    """scale_tril, covariance_matrix and precision_matrix from the factor L."""

    @lazy_property
    def scale_tril(self) -> Any:
        """The lower Cholesky factor L of the covariance."""
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Any:
        """L @ L^T."""
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Any:
        """The inverse covariance, by a Cholesky solve against the identity."""
        L = self._unbroadcasted_scale_tril
        identity = minitorch.eye(L.shape[-1], dtype=L.dtype)
        return minitorch.cholesky_solve(identity, L).expand(self._matrix_shape())
