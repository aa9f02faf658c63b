"""nn.functional.fractional_max_pool2d/3d (re-exported by nn.functional):
max pooling over windows whose starts follow a pseudo-random sequence, one
sample in [0, 1) per (sample, channel, dimension) from _random_samples or
the global Generator. The windows' element numbers are computed as torch's
kernel computes them, then a gather and a max over each window, so the
gradient is max's: the whole gradient to each window's maximum."""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Union

import numpy as np

import minitorch
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor
_Size = Union[int, Sequence[int]]

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]

_DIM_WORDS = ("time", "height", "width")


def _expand(value, n: int) -> List:
    return list(value) if isinstance(value, (tuple, list)) else [value] * n


def _starts(sample: np.ndarray, size: int, out: int, pool: int) -> np.ndarray:
    """Window starts as torch's generate_intervals: in the input's precision,
    the last window flush with the end."""
    seq = np.empty(out, dtype=np.int64)
    if out > 1:
        alpha = sample.dtype.type(size - pool) / sample.dtype.type(out - 1)
        i = np.arange(out - 1, dtype=sample.dtype)
        seq[:-1] = ((i + sample) * alpha).astype(np.int64) - np.int64(sample * alpha)
    if out > 0:
        seq[-1] = size - pool
    return seq


def _fractional(input: Tensor, kernel_size: _Size, output_size, output_ratio,
                random_samples: Optional[Tensor], n: int):
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        # a bare number fails here as in torch (the modules pass pairs)
        if len(output_ratio) > n:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple "
                             "of Ints.")
        ratio = _expand(output_ratio, n)
        output_size = [int(input.size(-n + d) * ratio[d]) for d in range(n)]
    if random_samples is None:
        batch = 1 if input.dim() == n + 1 else input.size(0)
        random_samples = minitorch.rand(batch, input.size(-n - 1), n, dtype=input.dtype)
    pool, out = _expand(kernel_size, n), _expand(output_size, n)
    prefix = f"{name}()" if n == 2 else f"{name}_out()"
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{prefix}: Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{prefix}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(input.shape)} with dimension {d} "
                               "being empty.")
    sizes = list(input.shape[-n:])
    words = _DIM_WORDS[3 - n:]
    for d in range(n):
        if out[d] + pool[d] - 1 > sizes[d]:
            raise RuntimeError(f"{prefix}: pool {words[d]} {pool[d]} too large relative to "
                               f"input {words[d]} {sizes[d]}")
    lead = tuple(input.shape[:-n])
    planes = math.prod(lead)
    channels = input.size(-n - 1)
    if random_samples.size(1) != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    samples = random_samples.detach().numpy().reshape(-1, n)
    # torch draws the 2-d windows' width from sample 0 and height from sample
    # 1; the 3-d ones' time, height, width from samples 0, 1, 2
    order = [1, 0] if n == 2 else [0, 1, 2]
    window = np.stack(np.meshgrid(*[np.arange(p) for p in pool], indexing="ij"), -1)
    where = np.empty((planes,) + tuple(out) + (math.prod(pool),), dtype=np.int64)
    for p in range(planes):
        starts = [_starts(samples[p][order[d]], sizes[d], out[d], pool[d]) for d in range(n)]
        grid = np.stack(np.meshgrid(*starts, indexing="ij"), -1)
        cells = grid[..., None, :] + window.reshape(-1, n)
        flat = np.zeros(cells.shape[:-1], dtype=np.int64)
        for d in range(n):
            flat = flat * sizes[d] + cells[..., d]
        where[p] = flat
    index = minitorch.tensor(where.reshape(planes, -1))
    values = input.reshape(planes, -1).gather(1, index).reshape(planes, -1, math.prod(pool))
    best, pick = values.max(-1)
    chosen = index.reshape(planes, -1, math.prod(pool)).gather(2, pick.unsqueeze(-1))
    return best.reshape(*lead, *out), chosen.reshape(*lead, *out)


@_overridable
def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: _Size, output_size=None,
                                       output_ratio=None, return_indices: bool = False,
                                       _random_samples: Optional[Tensor] = None):
    """fractional_max_pool2d's values and the element numbers of the maxima."""
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)


@_overridable
def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: _Size, output_size=None,
                                       output_ratio=None, return_indices: bool = False,
                                       _random_samples: Optional[Tensor] = None):
    """fractional_max_pool3d's values and the element numbers of the maxima."""
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)


@_overridable
def fractional_max_pool2d(input: Tensor, kernel_size: _Size, output_size=None,
                          output_ratio=None, return_indices: bool = False,
                          _random_samples: Optional[Tensor] = None):
    """Max over kernel_size windows of (N, C, H, W) or (C, H, W) placed at
    pseudo-random fractional strides, to output_size or output_ratio of the input."""
    out = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return out if return_indices else out[0]


@_overridable
def fractional_max_pool3d(input: Tensor, kernel_size: _Size, output_size=None,
                          output_ratio=None, return_indices: bool = False,
                          _random_samples: Optional[Tensor] = None):
    """Max over kernel_size windows of (N, C, T, H, W) or (C, T, H, W) placed at
    pseudo-random fractional strides, to output_size or output_ratio of the input."""
    out = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return out if return_indices else out[0]


publish(globals())
