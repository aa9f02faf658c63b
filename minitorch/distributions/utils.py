"""Helpers the distributions share: broadcasting parameters, converting
between probabilities and logits, and the dtype's eps."""
from numbers import Number
from typing import Any, Dict, Tuple

import minitorch
import minitorch.nn.functional as F

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs",
           "probs_to_logits", "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant

_EPS = {minitorch.float16: 0.0009765625, minitorch.bfloat16: 0.0078125,
        minitorch.float32: 1.1920928955078125e-07, minitorch.float64: 2.220446049250313e-16}
_TINY = {minitorch.float16: 6.103515625e-05, minitorch.bfloat16: 1.1754943508222875e-38,
         minitorch.float32: 1.1754943508222875e-38, minitorch.float64: 2.2250738585072014e-308}


def eps(dtype: Any) -> float:
    """Machine epsilon of a floating dtype (torch.finfo(dtype).eps)."""
    return _EPS[dtype]


def tiny(dtype: Any) -> float:
    """Smallest normal number of a floating dtype (torch.finfo(dtype).tiny)."""
    return _TINY[dtype]


def _tensor_like(v: Any) -> bool:
    return isinstance(v, minitorch.Tensor) or hasattr(type(v), "__torch_function__")


def broadcast_all(*values: Any) -> Tuple[Any, ...]:
    """Broadcast tensors and numbers together; numbers take the first tensor's
    dtype (the default dtype when there is none)."""
    if not all(_tensor_like(v) or isinstance(v, Number) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(_tensor_like(v) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, minitorch.Tensor)),
                     minitorch.get_default_dtype())
        values = tuple(v if _tensor_like(v) else minitorch.tensor(v, dtype=dtype) for v in values)
    return tuple(minitorch.broadcast_tensors(*values))


def check_probs_or_logits(probs: Any, logits: Any) -> None:
    """Refuse both or neither of probs and logits, as torch's distributions do."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def expand_probs_or_logits(d: Any, shape: Any) -> Dict[str, Any]:
    """The probs and/or logits a distribution holds, expanded to shape, with
    _param the one it was built from (logits when both are held)."""
    params = {k: d.__dict__[k].expand(tuple(shape)) for k in ("probs", "logits") if k in d.__dict__}
    params["_param"] = params.get("logits", params.get("probs"))
    return params


def clamp_probs(probs: Any) -> Any:
    """Clamp probabilities into [eps, 1 - eps] of their dtype."""
    e = eps(probs.dtype)
    return probs.clamp(min=e, max=1 - e)


def logits_to_probs(logits: Any, is_binary: bool = False) -> Any:
    """Probabilities from log-odds (binary) or unnormalised log-probabilities."""
    if is_binary:
        return minitorch.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def probs_to_logits(probs: Any, is_binary: bool = False) -> Any:
    """Logits from probabilities, clamped away from 0 and 1 first."""
    p = clamp_probs(probs)
    if is_binary:
        return minitorch.log(p) - minitorch.log1p(-p)
    return minitorch.log(p)


def _tril_mask(n: int, diag: int) -> Any:
    rows = minitorch.arange(n)
    return rows < rows.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat: Any, diag: int = 0) -> Any:
    """The entries on and below diagonal `diag` of each D x D matrix, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec: Any, diag: int = 0) -> Any:
    """D x D matrices holding each vector, row by row, on and below diagonal
    `diag` (zeros elsewhere); the vector's length fixes D."""
    # D is the positive root of D^2 + (1 + 2 diag) D - |diag| (diag + 1) - 2 len = 0
    b = 1 + 2 * diag
    n = (-b + (b * b + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > eps(vec.dtype):
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = minitorch.zeros(tuple(vec.shape[:-1]) + (n, n), dtype=vec.dtype)
    mat[..., _tril_mask(n, diag)] = vec
    return mat


class lazy_property:
    """A property computed on first access and then stored on the instance
    (so a distribution built from probs computes logits once, and the other way)."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        with minitorch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
