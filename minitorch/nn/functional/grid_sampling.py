"""nn.functional.affine_grid and grid_sample (re-exported by nn.functional).

affine_grid maps a base grid of normalised [-1, 1] coordinates through each
affine matrix with one bmm. grid_sample turns the grid into pixel
coordinates (unnormalise, then clip or reflect them as padding_mode asks),
gathers the corner pixels of every sampling point from the flattened planes
and sums them with bilinear weights (or takes the nearest; bicubic sums 4 x 4
taps, each moved inside on its own), masking taps outside the input for
'zeros' padding. Everything is made of ops that
record, so the input gets the scatter-add of the weights and the grid the
weights' derivative, as in torch's kernels."""
from __future__ import annotations

import itertools
import warnings
from typing import List, Sequence

import minitorch
from ..._resample_weights import cubic_coefficients
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor

__all__ = ["affine_grid", "grid_sample"]

_CUBIC_A = -0.75


def _default_align(align_corners):
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to "
                      "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                      "old behavior is desired. See the documentation of grid_sample for "
                      "details.", stacklevel=3)
        return False
    return align_corners


def _base_axis(n: int, align: bool, dtype) -> Tensor:
    """The normalised coordinates of n pixel centres (or corners with align)."""
    if n <= 1:
        return minitorch.zeros(1, dtype=dtype)
    axis = minitorch.linspace(-1, 1, n, dtype=dtype)
    return axis if align else axis * ((n - 1) / n)


@_overridable
def affine_grid(theta: Tensor, size: List[int], align_corners=None) -> Tensor:
    """The (N, H, W, 2) (or (N, D, H, W, 3)) sampling grid of the affine maps theta
    (N x 2 x 3, or N x 3 x 4) for an output of size size."""
    align = _default_align(align_corners)
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) in (4, 5):
        k = len(size) - 2
        if theta.dim() != 3 or theta.shape[-2] != k or theta.shape[-1] != k + 1:
            raise ValueError(f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} "
                             f"for size {size}. Got {theta.shape}.")
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    spatial = list(size[2:])
    if align and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n = size[0]
    # the last column is x (width), then y, (z), then the constant 1 for the translation
    columns = []
    for j, extent in enumerate(reversed(spatial)):
        shape = [1] * k
        shape[k - 1 - j] = extent
        columns.append(_base_axis(extent, align, theta.dtype).reshape(shape).expand(*spatial))
    columns.append(minitorch.ones(*spatial, dtype=theta.dtype))
    base = minitorch.stack(columns, -1).reshape(1, -1, k + 1).expand(n, -1, k + 1)
    return base.bmm(theta.transpose(1, 2)).reshape(n, *spatial, k)


def _clip(coord: Tensor, size: int) -> Tensor:
    """Clamps to [0, size - 1]; torch's gradient is zero on and beyond both ends."""
    inside = (coord > 0) & (coord < size - 1)
    return minitorch.where(inside, coord, coord.detach().clamp(0, size - 1))


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """Folds coord back and forth into [twice_low / 2, twice_high / 2]."""
    if twice_low == twice_high:
        return coord * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    dist = (coord - low).abs()
    extra = dist.fmod(span)
    flips = (dist.detach() / span).floor()
    return minitorch.where(flips.remainder(2) == 0, extra + low, span - extra + low)


def _unnormalise(coord: Tensor, size: int, align: bool, vectorised: bool) -> Tensor:
    """Pixel coordinate of a normalised grid coordinate along an axis of the given size,
    rounded as torch's kernels round it: its 5-D kernel as written; its 4-D (vectorised)
    one scales by half the size with the shift fused into the product, an fma, which
    float32 gets exactly through float64 (where its product is exact) and float64 only
    to an ulp."""
    if not vectorised:
        return (coord + 1) / 2 * (size - 1) if align else ((coord + 1) * size - 1) / 2
    if align:
        return (coord + 1) * ((size - 1) / 2)
    if coord.dtype == minitorch.float32:
        return ((coord + 1).double() * (size / 2) - 0.5).float()
    return (coord + 1) * (size / 2) - 0.5


def _pad(coord: Tensor, size: int, padding_mode: str, align: bool) -> Tensor:
    """Moves a pixel coordinate inside the axis as padding_mode does ('zeros' leaves it)."""
    if padding_mode == "border":
        coord = _clip(coord, size)
    elif padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align else _reflect(coord, -1, 2 * size - 1)
        coord = _clip(coord, size)
    return coord


def _check(input: Tensor, grid: Tensor) -> None:
    """torch's grid_sampler argument checks, in torch's order."""
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._scalar_name} but found "
                           f"{grid.dtype._scalar_name}")
    shapes = f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, but "
                           f"got {shapes}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in last "
                           f"dimension, but got grid with sizes {list(grid.shape)}")
    if input.dim() != grid.dim() or input.dim() not in (4, 5):
        raise RuntimeError(f"grid_sampler(): expected {4 if input.dim() == 4 else 5}D input and "
                           f"grid with same number of dimensions, but got {shapes}")
    for d in range(2, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")



def _gather(planes: Tensor, coords: Sequence[Tensor], sizes: Sequence[int]) -> Tensor:
    """planes (N, C, prod(sizes)) at the integer pixels coords (x, y[, z]), each (N, L),
    with sizes (W, H[, D]) to match; 0 outside the input."""
    inside, flat, stride = None, None, 1
    for coord, size in zip(coords, sizes):
        ok = (coord >= 0) & (coord < size)
        inside = ok if inside is None else inside & ok
        part = coord.clamp(0, size - 1) * stride
        flat = part if flat is None else flat + part
        stride *= size
    flat = flat.long()
    n, c = planes.shape[0], planes.shape[1]
    values = planes.gather(2, flat.unsqueeze(1).expand(n, c, flat.shape[1]))
    return values * inside.unsqueeze(1).to(planes.dtype)


def _linear(planes: Tensor, coords: List[Tensor], sizes: List[int]) -> Tensor:
    """The 2 ** k corners around each point, x varying fastest as torch sums them, each
    weighted by the product over x, y[, z] of its distance to the opposite corner
    (the far one's as 1 minus the near one's in torch's 4-D kernel)."""
    lows = [c.detach().floor() for c in coords]
    out = None
    for bits in itertools.product((0, 1), repeat=len(coords)):
        bits = bits[::-1]  # x first
        corner = [lo + b for lo, b in zip(lows, bits)]
        w = None
        for c, lo, b in zip(coords, lows, bits):
            f = c - lo if b else (1 - (c - lo) if len(coords) == 2 else lo + 1 - c)
            w = f if w is None else w * f
        term = _gather(planes, corner, sizes) * w.unsqueeze(1)
        out = term if out is None else out + term
    return out


def _bicubic(planes: Tensor, ix: Tensor, iy: Tensor, width: int, height: int,
             padding_mode: str, align: bool) -> Tensor:
    """4 x 4 taps around each point, each moved inside by the padding rule on its own
    (as torch's kernel does), weighted by the cubic coefficients of the fractions."""
    x0, y0 = ix.detach().floor(), iy.detach().floor()
    wx, wy = cubic_coefficients(ix - x0, _CUBIC_A), cubic_coefficients(iy - y0, _CUBIC_A)
    out = None
    for i in range(4):
        cy = _pad(y0 + (i - 1), height, padding_mode, align)
        row = None
        for j in range(4):
            cx = _pad(x0 + (j - 1), width, padding_mode, align)
            term = _gather(planes, (cx, cy), (width, height)) * wx[j].unsqueeze(1)
            row = term if row is None else row + term
        term = row * wy[i].unsqueeze(1)
        out = term if out is None else out + term
    return out


@_overridable
def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners=None) -> Tensor:
    """Samples the (N, C, H, W) (or (N, C, D, H, W)) input at the normalised (x, y[, z])
    locations of the (N, H_out, W_out, 2) (or (N, D_out, H_out, W_out, 3)) grid:
    (tri)linearly, bicubically (4-D) or at the nearest pixel."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' "
                         f"or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    align = _default_align(align_corners)
    _check(input, grid)
    if mode == "bicubic" and input.dim() != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    n, c = input.shape[0], input.shape[1]
    out_shape = list(grid.shape[1:-1])
    k = input.dim() - 2
    sizes = list(input.shape[2:])[::-1]  # W, H[, D], the order of the grid's last axis
    g = grid.reshape(n, -1, k)
    coords = [_unnormalise(g[..., j], sizes[j], align, k == 2) for j in range(k)]
    planes = input.reshape(n, c, -1)
    if mode == "bicubic":
        out = _bicubic(planes, coords[0], coords[1], sizes[0], sizes[1], padding_mode, align)
        return out.reshape(n, c, *out_shape)
    coords = [_pad(x, size, padding_mode, align) for x, size in zip(coords, sizes)]
    if mode == "nearest":
        # rounds half to even as nearbyint; the 0 * x keeps the grid in the graph (zero grad)
        out = _gather(planes, [x.detach().round() for x in coords], sizes)
        out = out + (coords[0] * 0).unsqueeze(1)
    else:
        out = _linear(planes, coords, sizes)
    return out.reshape(n, c, *out_shape)


publish(globals())
