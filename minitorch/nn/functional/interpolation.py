"""nn.functional.interpolate and its legacy upsample* names (re-exported by nn.functional).

Every mode is separable: each spatial dimension, last first, is resampled by
gathering its taps (index_select) and summing them times per-position weights,
so the backward is the scatter-add of the same weights that index_select's
gradient already does. Indices and weights are computed in NumPy the way
ATen's CPU kernels compute them (in the op-math type, source coordinates
floored after a cast to float), so the chosen source pixels match torch's.
Antialiased bilinear and bicubic are torch's aten._upsample_bilinear2d_aa
and _upsample_bicubic2d_aa (composites_aten.py)."""
from __future__ import annotations

import math
import warnings
from typing import List, Optional, Sequence, Tuple, Union

import numpy as np

import minitorch
from ..._resample_weights import cubic_coefficients, fma, fused
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor
_Size = Union[int, Sequence[int], None]
_Scale = Union[float, Sequence[float], None]

# torch does not dispatch the deprecated upsample names (overrides lists them as ignored)
__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_LINEAR_RANK = {"linear": 3, "bilinear": 4, "trilinear": 5}
_CUBIC_A = -0.75


def _is_int(x: object) -> bool:
    return isinstance(x, int) or (isinstance(x, Tensor) and x.dim() == 0
                                  and not x.dtype.is_floating_point)


def _opmath(input: Tensor) -> type:
    return np.float64 if input.dtype == minitorch.float64 else np.float32


def _scale(opm: type, n_in: int, n_out: int, align: bool, factor: Optional[float]):
    """Source step per output step (ATen's area_pixel_compute_scale)."""
    if align:
        return opm(n_in - 1) / opm(n_out - 1) if n_out > 1 else opm(0)
    if factor is not None and factor > 0:
        return opm(1.0 / factor)
    return opm(n_in) / opm(n_out)


def _source_index(opm: type, s, n_out: int, align: bool) -> np.ndarray:
    """Where each output position samples the input (ATen's
    area_pixel_compute_source_index, its product and shift fused)."""
    d = np.arange(n_out).astype(opm)
    return s * d if align else fma(s, d + opm(0.5), -0.5, opm)


def _floor_f32(real: np.ndarray) -> np.ndarray:
    # ATen floors with floorf, so a double coordinate is rounded to float first
    return np.floor(real.astype(np.float32)).astype(np.int64)


def _nearest_taps(opm, n_in, n_out, factor, exact):
    s = _scale(opm, n_in, n_out, False, factor)
    d = np.arange(n_out).astype(opm)
    real = (d + opm(0.5)) * s if exact else d * s
    return [np.minimum(_floor_f32(real), n_in - 1)], None


def _linear_taps(opm, n_in, n_out, factor, align):
    real = _source_index(opm, _scale(opm, n_in, n_out, align, factor), n_out, align)
    real = real if align else np.maximum(real, opm(0))
    i0 = np.minimum(_floor_f32(real), n_in - 1)
    lam = np.clip(real - i0.astype(opm), 0, 1).astype(opm)
    return [i0, i0 + (i0 < n_in - 1)], [opm(1) - lam, lam]


def _cubic_taps(opm, n_in, n_out, factor, align):
    real = _source_index(opm, _scale(opm, n_in, n_out, align, factor), n_out, align)
    i = np.minimum(_floor_f32(real), n_in - 1)
    t = np.clip(real - i.astype(opm), 0, 1).astype(opm)
    idx = [np.clip(i - 1 + k, 0, n_in - 1) for k in range(4)]
    return idx, cubic_coefficients(t, opm(_CUBIC_A), fused(opm), upsampling=True)


def _resample_dim(x: Tensor, dim: int, taps: List[np.ndarray],
                  weights: Optional[List[np.ndarray]]) -> Tensor:
    """Sums the taps gathered along dim, each times its per-position weight."""
    if weights is None:
        return x.index_select(dim, minitorch.tensor(taps[0]))
    shape = [-1] + [1] * (x.dim() - 1 - dim)
    out = None
    for idx, w in zip(taps, weights):
        term = x.index_select(dim, minitorch.tensor(idx)) * minitorch.tensor(
            np.ascontiguousarray(w), dtype=x.dtype).reshape(shape)
        out = term if out is None else out + term
    return out


def _per_dim(value, input: Tensor, said: str, named: str, noun: str, letter: str) -> list:
    """value for each of the input's spatial dimensions; a sequence must have one per dimension."""
    k = input.dim() - 2
    if not isinstance(value, (list, tuple)):
        return [value] * k
    if len(value) != k:
        raise ValueError(
            f"Input and {said} must have the same number of spatial dimensions, but got input "
            f"with spatial dimensions of {list(input.shape[2:])} and {named} {value}. Please "
            f"provide input tensor in (N, C, d1, d2, ...,dK) format and {noun} in "
            f"({letter}1, {letter}2, ...,{letter}K) format.")
    return list(value)


def _output_sizes(input: Tensor, size: _Size, scale_factor: _Scale,
                  recompute: Optional[bool]) -> Tuple[List[int], List[Optional[float]]]:
    """torch's argument checks, giving the output sizes and the scales the kernels use."""
    k = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    scales: List[Optional[float]] = [None] * k
    if size is not None:
        out = _per_dim(size, input, "output", "output size of", "output size", "o")
        if isinstance(size, (list, tuple)) and not all(_is_int(s) for s in size):
            raise TypeError(
                "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                f"Tuple[int, int, int], but got size with types {[type(s) for s in size]}")
        out = [int(s) for s in out]
    elif scale_factor is not None:
        scales = [float(s) for s in _per_dim(scale_factor, input, "scale_factor",
                                             "scale_factor of shape", "scale_factor", "s")]
        # ATen truncates the double product; the recomputed size floors it
        out = [int(math.floor(n * s)) if recompute else int(n * s)
               for n, s in zip(input.shape[2:], scales)]
        if recompute:
            scales = [None] * k
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    return out, scales


def _check_sizes(input: Tensor, out: List[int]) -> None:
    k = len(out)
    names = "DHW"[3 - k:]
    if input.numel() == 0 and any(n == 0 for n in input.shape[1:2]) and \
            all(n > 0 for n in input.shape[2:]):
        raise RuntimeError(f"Non-empty {k + 2}D data tensor expected but got a tensor with sizes "
                           f"{list(input.shape)}")
    if any(n <= 0 for n in list(input.shape[2:]) + out):
        src = ", ".join(f"{c}: {n}" for c, n in zip(names, input.shape[2:]))
        dst = ", ".join(f"{c}: {n}" for c, n in zip(names, out))
        joint = " and output " if k == 1 else " output "
        raise RuntimeError("Input and output sizes should be greater than 0, but got input "
                           f"({src}){joint}({dst})")


def _check_dtype(input: Tensor, mode: str, k: int) -> None:
    if input.dtype.is_floating_point or (mode.startswith("nearest") and
                                         input.dtype == minitorch.uint8):
        return
    kernel = {"nearest": f"upsample_nearest{k}d", "nearest-exact": f"_upsample_nearest_exact{k}d",
              "bicubic": "compute_indices_weights_cubic"}.get(
                  mode, "compute_indices_weights_linear")
    raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype._scalar_name}\'')


def _wrong_rank(input: Tensor, mode: str) -> None:
    need = {"linear": 3, "bilinear": 4, "trilinear": 5}.get(mode)
    if need is not None and input.dim() in (3, 4, 5):
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {need}D input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
        f"modes: {_MODES} (got {mode})")


@_overridable
def interpolate(input: Tensor, size: _Size = None, scale_factor: _Scale = None,
                mode: str = "nearest", align_corners: Optional[bool] = None,
                recompute_scale_factor: Optional[bool] = None,
                antialias: bool = False) -> Tensor:
    """Resamples the spatial dimensions of a (N, C, d1, ..., dK) input to size (or by
    scale_factor) with nearest, nearest-exact, (bi/tri)linear, bicubic or area sampling."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    out, scales = _output_sizes(input, size, scale_factor,
                                True if mode == "area" and size is None
                                else recompute_scale_factor)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes "
                         "and requires a 4-D tensor as input")
    k = input.dim() - 2
    known = mode in ("nearest", "nearest-exact", "area") or _LINEAR_RANK.get(mode) == input.dim() \
        or (mode == "bicubic" and input.dim() == 4)
    if input.dim() not in (3, 4, 5) or not known:
        if mode == "lanczos" and input.dim() == 4:
            raise NotImplementedError("interpolate(): mode 'lanczos' is not supported by "
                                      "minitorch yet")
        _wrong_rank(input, mode)
    if antialias and mode in ("bilinear", "bicubic"):
        _check_sizes(input, out)
        aa = getattr(minitorch.ops.aten, f"_upsample_{mode}2d_aa")
        return aa(input, out, align_corners, *scales)
    if mode == "area":
        pool = getattr(minitorch.nn.functional, f"adaptive_avg_pool{k}d", None)
        if pool is None:
            raise NotImplementedError(f"interpolate(): mode 'area' needs adaptive_avg_pool{k}d, "
                                      "which minitorch does not have yet")
        return pool(input, out if k > 1 else out[0])
    _check_dtype(input, mode, k)
    _check_sizes(input, out)
    x = input
    low = x.dtype in (minitorch.float16, minitorch.bfloat16)
    if low:  # ATen's op-math type for half types is float
        x = x.float()
    opm = _opmath(x)
    for j in reversed(range(k)):
        n_in, n_out, d = input.shape[2 + j], out[j], 2 + j
        if mode.startswith("nearest"):
            taps, weights = _nearest_taps(opm, n_in, n_out, scales[j], mode == "nearest-exact")
        elif mode == "bicubic":
            taps, weights = _cubic_taps(opm, n_in, n_out, scales[j], align_corners)
        else:
            taps, weights = _linear_taps(opm, n_in, n_out, scales[j], align_corners)
        x = _resample_dim(x, d, taps, weights)
    if x is input:
        x = x.clone()
    return x.to(input.dtype) if low else x


def upsample(input: Tensor, size: _Size = None, scale_factor: _Scale = None,
             mode: str = "nearest", align_corners: Optional[bool] = None) -> Tensor:
    """Deprecated name of interpolate."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: _Size = None, scale_factor: _Scale = None) -> Tensor:
    """Deprecated: interpolate with mode='nearest'."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: _Size = None, scale_factor: _Scale = None) -> Tensor:
    """Deprecated: interpolate with mode='bilinear' and align_corners=True."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


publish(globals())
