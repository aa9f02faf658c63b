"""Gradient clipping: by total norm (clip_grad_norm_, get_total_norm,
clip_grads_with_norm_) and by value (clip_grad_value_), as torch.nn.utils.

The total norm is the norm of the per-tensor norms, which equals the norm of
all gradients concatenated; computing it that way never materialises the
concatenation. ``foreach`` is accepted for torch compatibility: every tensor
here is a CPU tensor, where torch's foreach path gives the same values.
"""
import types
import warnings
from typing import Iterable, Optional, Union

import minitorch
from minitorch import Tensor

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]

_TensorOrTensors = Union[Tensor, Iterable[Tensor]]


def _as_list(tensors: _TensorOrTensors) -> list:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(tensors: _TensorOrTensors, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False,
                   foreach: Optional[bool] = None) -> Tensor:
    """Returns the ``norm_type``-norm of ``tensors`` taken together as one vector."""
    with minitorch.no_grad():
        tensors = _as_list(tensors)
        norm_type = float(norm_type)
        if not tensors:
            return minitorch.tensor(0.0)
        norms = [minitorch.linalg.vector_norm(t, norm_type) for t in tensors]
        total = minitorch.linalg.vector_norm(minitorch.stack(norms), norm_type)
        if error_if_nonfinite and bool(total.isnan() | total.isinf()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
        return total


def clip_grads_with_norm_(parameters: _TensorOrTensors, max_norm: float, total_norm: Tensor,
                          foreach: Optional[bool] = None) -> None:
    """Scales the gradients in place by ``min(max_norm / (total_norm + 1e-6), 1)``."""
    with minitorch.no_grad():
        grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
        if not grads:
            return
        coef = minitorch.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(parameters: _TensorOrTensors, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False,
                    foreach: Optional[bool] = None) -> Tensor:
    """Clips the gradients' total norm to ``max_norm`` in place; returns the norm
    they had before clipping.
    """
    is_generator = isinstance(parameters, types.GeneratorType)
    parameters = _as_list(parameters)
    if is_generator and not parameters:
        warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                      stacklevel=2)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters: _TensorOrTensors, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False,
                   foreach: Optional[bool] = None) -> Tensor:
    """Deprecated spelling of :func:`clip_grad_norm_`."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: _TensorOrTensors, clip_value: float,
                     foreach: Optional[bool] = None) -> None:
    """Clamps every gradient in place into ``[-clip_value, clip_value]``."""
    with minitorch.no_grad():
        clip_value = float(clip_value)
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
