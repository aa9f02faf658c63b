"""Spectral normalization, legacy hook form (torch.nn.utils.spectral_norm /
remove_spectral_norm): ``<name>_orig`` is the parameter, ``<name>_u`` and
``<name>_v`` the power-iteration buffers, and a forward pre-hook sets
``module.<name> = <name>_orig / sigma``, advancing the power iteration (v,
then u, in place) first when the module is training. The state-dict version
hooks torch uses to upgrade pre-1.1 checkpoints are not installed.
"""
from typing import Any, Optional, TypeVar

import minitorch
from minitorch import Tensor
from .. import functional as F
from ..modules.module import Module
from ..parameter import Parameter
from ._norm_hooks import refuse_second_hook, remove_hook

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


def weight_to_matrix(weight: Tensor, dim: int) -> Tensor:
    """weight as a matrix whose rows run along ``dim``."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.dim()) if d != dim))
    return weight.reshape(weight.size(0), -1)


def default_dim(module: Module) -> int:
    """The output dimension of a module's weight: 1 for transposed convolutions."""
    return 1 if type(module).__name__.startswith("ConvTranspose") else 0


class SpectralNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_orig``."""

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """The weight as a matrix, rows along ``dim``."""
        return weight_to_matrix(weight, self.dim)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        """``<name>_orig`` divided by its estimated largest singular value."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with minitorch.no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(minitorch.mv(weight_mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(minitorch.mv(weight_mat, v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()
        return weight / minitorch.dot(u, minitorch.mv(weight_mat, v))

    def remove(self, module: Module) -> None:
        """Leaves the current normalized weight as a plain parameter."""
        with minitorch.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int,
              eps: float) -> "SpectralNorm":
        """Moves ``module.<name>`` to ``<name>_orig``, adds u and v and the hook."""
        refuse_second_hook(module, SpectralNorm, name, "spectral_norm")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with minitorch.no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


T_module = TypeVar("T_module", bound=Module)


def spectral_norm(module: T_module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: Optional[int] = None) -> T_module:
    """Divides ``module.<name>`` by its spectral norm before every forward,
    estimated by power iteration (legacy hook form of
    parametrizations.spectral_norm).
    """
    SpectralNorm.apply(module, name, n_power_iterations,
                       default_dim(module) if dim is None else dim, eps)
    return module


def remove_spectral_norm(module: T_module, name: str = "weight") -> T_module:
    """Undoes :func:`spectral_norm`, leaving the current weight as a parameter."""
    return remove_hook(module, SpectralNorm, name, "spectral_norm")
