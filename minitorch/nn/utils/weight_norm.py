"""Weight normalization w = g * v / ||v|| - the norm taken over every dimension
but ``dim`` (the whole tensor when ``dim`` is None or -1) - and the legacy
hook form of torch.nn.utils.weight_norm / remove_weight_norm, which replaces
the parameter by ``<name>_g`` and ``<name>_v`` and recomputes the weight
before every forward. parametrizations.weight_norm reuses the arithmetic.
"""
import warnings
from typing import Any, Optional, TypeVar

import minitorch
from minitorch import Tensor
from ..modules.module import Module
from ..parameter import Parameter
from ._norm_hooks import refuse_second_hook, remove_hook

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def norm_except_dim(v: Tensor, dim: int) -> Tensor:
    """The 2-norm of v over all dims but ``dim``, kept broadcastable against v
    (a 0-d tensor for dim -1, the whole-tensor norm).
    """
    if dim == -1:
        return minitorch.linalg.vector_norm(v)
    dim %= v.dim()
    others = [d for d in range(v.dim()) if d != dim]
    if not others:
        return v.abs()
    return minitorch.linalg.vector_norm(v, dim=others, keepdim=True)


def apply_weight_norm(v: Tensor, g: Tensor, dim: int) -> Tensor:
    """v rescaled so that its norm over all dims but ``dim`` is g."""
    return v * (g / norm_except_dim(v, dim))


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from g and v."""

    def __init__(self, name: str, dim: Optional[int]) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Any:
        """The weight from the module's current ``<name>_g`` and ``<name>_v``."""
        return apply_weight_norm(getattr(module, self.name + "_v"),
                                 getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: Optional[int]) -> "WeightNorm":
        """Splits ``module.<name>`` into g and v and installs the hook."""
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        refuse_second_hook(module, WeightNorm, name, "weight_norm")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight,
                                                                         fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """Folds g and v back into one ``<name>`` parameter."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


T_module = TypeVar("T_module", bound=Module)


def weight_norm(module: T_module, name: str = "weight", dim: Optional[int] = 0) -> T_module:
    """Reparametrizes ``module.<name>`` as ``g * v / ||v||`` through a forward
    pre-hook (deprecated in torch for parametrizations.weight_norm).
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: T_module, name: str = "weight") -> T_module:
    """Undoes :func:`weight_norm`, leaving the current weight as a parameter."""
    return remove_hook(module, WeightNorm, name, "weight_norm")
