"""Parametrizations to register with nn.utils.parametrize: weight_norm
(weight = g * v / ||v||, originals g and v), spectral_norm (weight divided
by its largest singular value, estimated by power iteration whose vectors
``_u`` and ``_v`` persist as buffers and advance one step per access in
training mode) and orthogonal (``_orthogonal.py``).
"""
from typing import Optional

import minitorch
from minitorch import Tensor
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .spectral_norm import default_dim, weight_to_matrix
from .weight_norm import apply_weight_norm, norm_except_dim
from ._orthogonal import orthogonal

__all__ = ["weight_norm", "spectral_norm", "orthogonal"]


class _WeightNorm(Module):
    def __init__(self, dim: Optional[int] = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return apply_weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor):
        return norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: Optional[int] = 0) -> Module:
    """Parametrizes ``module.<name>`` as ``g * v / ||v||`` with originals
    ``original0`` (g) and ``original1`` (v).
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, "
                             f"{ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = weight_to_matrix(weight, self.dim)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # In place, so that copies of the buffers (as in state_dict) see the update.
        with minitorch.no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(minitorch.mv(weight_mat, self._v), dim=0,
                                          eps=self.eps))
                self._v.copy_(F.normalize(minitorch.mv(weight_mat.t(), self._u), dim=0,
                                          eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.dim() == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = weight_to_matrix(weight, self.dim)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = minitorch.dot(u, minitorch.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: Optional[int] = None) -> Module:
    """Parametrizes ``module.<name>`` as itself divided by its spectral norm,
    estimated with ``n_power_iterations`` power-iteration steps per training
    access (``dim`` defaults to 1 for transposed convolutions, else 0).
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    dim = default_dim(module) if dim is None else dim
    parametrize.register_parametrization(module, name,
                                         _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
