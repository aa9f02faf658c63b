"""conv3d and the transposed convolutions, composed over the 2-d convolution
rows (csrc/ops/nn.def) so they share their im2col + gemm kernels:

- conv_transpose2d is the input gradient of conv2d (_convolution_backward_input,
  whose col2im scatters each input pixel through the kernel), plus the bias;
  its own gradients are that row's derivatives, i.e. conv2d and the conv
  weight gradient.
- conv3d gathers, for each depth tap of the kernel, the input depth slices it
  reads, and folds the taps into the channels of one conv2d over all output
  depths at once.
- conv_transpose3d runs conv_transpose2d with the depth taps as extra output
  channels, then scatters each tap to its output depth with a 1-d col2im (the
  input gradient of a conv with a one-hot kernel).
conv1d-shaped forms add a height-1 dimension. No loop runs over output
positions; the only Python loops are over the kernel's depth taps."""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple, Union

from . import _C
from ._tensor import Tensor
from .overrides import composite

__all__ = ["conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]

_f = _C._functions
_Size = Union[int, Sequence[int]]


def _tuple(value: _Size, n: int, name: str) -> Tuple[int, ...]:
    """An int or list argument as n values, in torch's words when it has another length."""
    vals = list(value) if isinstance(value, (tuple, list)) else [value]
    if len(vals) == 1:
        vals = vals * n
    if len(vals) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={[int(v) for v in vals]}")
    return tuple(int(v) for v in vals)


def _batched(input: Tensor, nsp: int, op: str) -> bool:
    """Whether input carries a batch dim; it must have nsp + 1 or nsp + 2 dims."""
    names = ["", "1D", "2D", "3D", "4D", "5D"]
    if input.dim() not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"Expected {names[nsp + 1]} (unbatched) or {names[nsp + 2]} (batched) "
                           f"input to {op}, but got input of size: {list(input.shape)}")
    return input.dim() == nsp + 2


def _check_weight_rank(weight: Tensor, groups: int) -> None:
    """torch's first checks of a convolution's weight, before its geometry."""
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")


def _check_spread(weight: Tensor, x: Tensor, lists) -> None:
    """A weight whose rank is not the batched input x's: torch first spreads
    each (name, values) of lists over the weight's spatial dims, refusing a
    list of another length, then compares the ranks."""
    wd = weight.dim()
    if wd == x.dim():
        return
    for name, vals in lists:
        if len(vals) not in (1, wd - 2):
            raise RuntimeError(f"expected {name} to be a single integer value or a list of "
                               f"{wd - 2} values to match the convolution dimensions, but got "
                               f"{name}={list(vals)}")
    raise RuntimeError(f"Expected {wd}-dimensional input for {wd}-dimensional weight "
                       f"{list(weight.shape)}, but got {x.dim()}-dimensional input of size "
                       f"{list(x.shape)} instead")


def _check_common(stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                  groups: int) -> None:
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")


def _check_same_type(x: Tensor, weight: Tensor) -> None:
    """torch's words for a weight of another dtype than the input, as conv2d's
    row gives them: the scalar types for a real input; a complex one names
    the tensor types, a real weight's in the legacy form."""
    if x.dtype == weight.dtype:
        return
    xs, ws = (t.type().split(".")[-1][:-len("Tensor")] for t in (x, weight))
    if not x.is_complex():
        raise RuntimeError(f"expected scalar type {xs} but found {ws}")
    shown = f"CPU{ws}Type" if weight.is_complex() else f"torch.{ws}Tensor"
    raise RuntimeError(f"Input type (CPU{xs}Type) and weight type ({shown}) should be the same")


def _check_weight(x: Tensor, weight: Tensor, bias: Optional[Tensor], groups: int,
                  transposed: bool) -> int:
    """torch's channel, groups and bias checks; returns the output channels."""
    ws = list(weight.shape)
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {ws} instead")
    if ws[0] % groups != 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{ws}] instead")
    want = ws[0] if transposed else ws[1] * groups
    prefix = "transposed=1" if transposed else f"groups={groups}"
    if x.shape[1] != want:
        raise RuntimeError(f"Given {prefix}, weight of size {ws}, expected input"
                           f"{list(x.shape)} to have {want} channels, but got {x.shape[1]} "
                           "channels instead")
    out_ch = ws[1] * groups if transposed else ws[0]
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_ch):
        raise RuntimeError(f"Given {'transposed=1, ' if transposed else ''}weight of size {ws}, "
                           f"expected bias to be 1-dimensional with {out_ch} elements, but got "
                           f"bias of size {list(bias.shape)} instead")
    return out_ch


@composite(method=False)
def conv3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: _Size = 1,
           padding: Union[_Size, str] = 0, dilation: _Size = 1, groups: int = 1) -> Tensor:
    """Applies a 3-d convolution (cross-correlation) of weight over input of shape
    (N, C, D, H, W)."""
    if bias is not None and bias.dtype != input.dtype:
        # torch checks the bias's dtype first; conv2d words it as torch does
        _f["conv2d"](input, weight, bias)
    batched = _batched(input, 3, "conv3d")
    s, d = _tuple(stride, 3, "stride"), _tuple(dilation, 3, "dilation")
    if isinstance(padding, str) and padding not in ("same", "valid"):
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    _check_weight_rank(weight, groups)
    x = input if batched else input.unsqueeze(0)
    same = padding == "same"
    if same and weight.dim() != 5:
        # torch's 'same' path compares the ranks first (no space before the shape)
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}"
                           f"-dimensional weight{list(weight.shape)}, but got 5-dimensional "
                           f"input of size {list(x.shape)} instead")
    if same and any(v != 1 for v in s):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    spread = [("stride", s), ("dilation", d), ("output_padding", (0, 0, 0))]
    if not isinstance(padding, str):
        spread.insert(1, ("padding", _tuple(padding, 3, "padding")))
    _check_spread(weight, x, spread)
    k = tuple(weight.shape[2:])
    if isinstance(padding, str):
        total = [d[i] * (k[i] - 1) if same else 0 for i in range(3)]
        # the odd element of 'same' padding goes to the far side, as in torch
        lo, hi = [t // 2 for t in total], [t - t // 2 for t in total]
    else:
        p = _tuple(padding, 3, "padding")
        lo, hi = list(p), list(p)
    _check_common(s, lo, d, groups)
    out_ch = _check_weight(x, weight, bias, groups, False)
    padded = [x.shape[2 + i] + lo[i] + hi[i] for i in range(3)]
    ext = [d[i] * (k[i] - 1) + 1 for i in range(3)]
    if any(padded[i] < ext[i] for i in range(3)):
        raise RuntimeError("Calculated padded input size per channel: ({}). Kernel size: ({}). "
                           "Kernel size can't be greater than actual input size".format(
                               " x ".join(map(str, padded)), " x ".join(map(str, ext))))
    if x.dtype != weight.dtype and not x.is_complex():
        # torch's 3-d path for real tensors words it so (a complex input takes conv2d's words)
        names = [f"torch.{t.type().split('.')[-1]}" for t in (x, weight)]
        raise RuntimeError(f"Input type ({names[0]}) and weight type ({names[1]}) should be the "
                           "same or input should be a MKLDNN tensor and weight is a dense tensor")
    _check_same_type(x, weight)
    if bias is not None and bias.dtype != x.dtype:
        # conv2d words the bias mismatch as torch's 3-d path does
        return _f["conv2d"](x[:, :, 0], weight[:, :, 0], bias)
    N, C, _, H, W = x.shape
    if lo[0] or hi[0]:
        x = _f["cat"]([x.new_zeros((N, C, lo[0], H, W)), x, x.new_zeros((N, C, hi[0], H, W))], 2)
    od = (padded[0] - ext[0]) // s[0] + 1
    taps = [x[:, :, i * d[0]: i * d[0] + (od - 1) * s[0] + 1: s[0]] for i in range(k[0])]
    cg, og = weight.shape[1], out_ch // groups
    # (N, g, Cg, kd, oD, H, W) -> (N * oD, g * kd * Cg, H, W): taps inside each group
    cols = _f["stack"](taps, 2).reshape(N, groups, cg, k[0], od, H, W)
    cols = cols.permute(0, 4, 1, 3, 2, 5, 6).reshape(N * od, groups * k[0] * cg, H, W)
    w2 = weight.reshape(groups, og, cg, k[0], k[1], k[2]).permute(0, 1, 3, 2, 4, 5)
    w2 = w2.reshape(out_ch, k[0] * cg, k[1], k[2])
    if lo[1:] == hi[1:]:
        y = _f["conv2d"](cols, w2, bias, s[1:], lo[1:], d[1:], groups)
    else:
        y = _f["conv2d"](cols, w2, bias, s[1:], "same", d[1:], groups)
    y = y.reshape(N, od, out_ch, y.shape[2], y.shape[3]).permute(0, 2, 1, 3, 4).contiguous()
    return y if batched else y.squeeze(0)


def _transposed_size(x: Tensor, k: Sequence[int], s: Sequence[int], p: Sequence[int],
                     op: Sequence[int], d: Sequence[int]) -> List[int]:
    """The spatial output size of a transposed convolution, after torch's checks."""
    nsp = len(k)
    if any(op[i] >= s[i] and op[i] >= d[i] for i in range(nsp)):
        dims = ["depth", "height", "width"][3 - max(nsp, 2):]
        if nsp == 1:
            op, s, d = (0, *op), (1, *s), (1, *d)
        parts = [f"output_padding_{n}: {v}" for n, v in zip(dims, op)]
        parts += [f"stride_{n}: {v}" for n, v in zip(dims, s)]
        parts += [f"dilation_{n}: {v}" for n, v in zip(dims, d)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, "
                           "but got " + " ".join(parts))
    size = [(x.shape[2 + i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + op[i] + 1
            for i in range(nsp)]
    if any(v <= 0 for v in size):
        shown = "x".join(str(x.shape[2 + i]) for i in range(nsp))
        raise RuntimeError(f"Given input size per channel: ({shown}). Calculated output size "
                           f"per channel: ({'x'.join(map(str, size))}). Output size is too "
                           "small")
    return size


def _transposed_args(input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: _Size,
                     padding: _Size, output_padding: _Size, groups: int, dilation: _Size,
                     nsp: int, op: str):
    """Checks a transposed convolution's arguments; returns the batched input,
    whether it was batched, the output channels and the parsed geometry."""
    batched = _batched(input, nsp, op)
    s, p = _tuple(stride, nsp, "stride"), _tuple(padding, nsp, "padding")
    d = _tuple(dilation, nsp, "dilation")
    o = _tuple(output_padding, nsp, "output_padding")
    _check_weight_rank(weight, groups)
    x = input if batched else input.unsqueeze(0)
    _check_spread(weight, x, [("stride", s), ("padding", p), ("dilation", d),
                              ("output_padding", o)])
    _check_common(s, p, d, groups)
    if any(v < 0 for v in o):
        raise RuntimeError("negative output_padding is not supported")
    out_ch = _check_weight(x, weight, bias, groups, True)
    _check_same_type(x, weight)
    return x, batched, out_ch, s, p, o, d


def _col2im(x: Tensor, weight: Tensor, size: Sequence[int], s, p, d, groups: int) -> Tensor:
    """conv2d's input gradient for batched x (N, C, H, W): the output's
    spatial size is size. An output_padding of a stride or more makes conv2d of
    that size longer than x, and conv2d is this op's input gradient: x gets
    zero rows and columns there (they scatter nothing), so the gradient fits."""
    for i in range(2):
        extra = (size[i] + 2 * p[i] - d[i] * (weight.shape[2 + i] - 1) - 1) // s[i] + 1 \
            - x.shape[2 + i]
        if extra > 0:
            pad = list(x.shape)
            pad[2 + i] = extra
            x = _f["cat"]([x, x.new_zeros(pad)], 2 + i)
    return _f["_convolution_backward_input"](x, weight, [x.shape[0], weight.shape[1] * groups,
                                                         *size], s, p, d, groups)


def _transpose2d(x: Tensor, weight: Tensor, bias: Optional[Tensor], out_ch: int,
                 size: Sequence[int], s, p, d, groups: int) -> Tensor:
    """conv_transpose2d of batched x, plus bias (O)."""
    y = _col2im(x, weight, size, s, p, d, groups)
    if bias is not None:
        y = y + bias.reshape(out_ch, 1, 1)
    return y


@composite(method=False)
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                     stride: _Size = 1, padding: _Size = 0, output_padding: _Size = 0,
                     groups: int = 1, dilation: _Size = 1) -> Tensor:
    """Applies a 2-d transposed convolution (the adjoint of conv2d) of weight
    (C_in, C_out / groups, kH, kW) over input of shape (N, C_in, H, W)."""
    x, batched, out_ch, s, p, o, d = _transposed_args(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
        "conv_transpose2d")
    size = _transposed_size(x, weight.shape[2:], s, p, o, d)
    y = _transpose2d(x, weight, bias, out_ch, size, s, p, d, groups)
    return y if batched else y.squeeze(0)


@composite(method=False)
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                     stride: _Size = 1, padding: _Size = 0, output_padding: _Size = 0,
                     groups: int = 1, dilation: _Size = 1) -> Tensor:
    """Applies a 1-d transposed convolution (the adjoint of conv1d) of weight
    (C_in, C_out / groups, kL) over input of shape (N, C_in, L)."""
    x, batched, out_ch, s, p, o, d = _transposed_args(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
        "conv_transpose1d")
    size = _transposed_size(x, weight.shape[2:], s, p, o, d)
    y = _transpose2d(x.unsqueeze(2), weight.unsqueeze(2), bias, out_ch, [1, *size], (1, *s),
                     (0, *p), (1, *d), groups).squeeze(2)
    return y if batched else y.squeeze(0)


@composite(method=False)
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                     stride: _Size = 1, padding: _Size = 0, output_padding: _Size = 0,
                     groups: int = 1, dilation: _Size = 1) -> Tensor:
    """Applies a 3-d transposed convolution (the adjoint of conv3d) of weight
    (C_in, C_out / groups, kD, kH, kW) over input of shape (N, C_in, D, H, W)."""
    x, batched, out_ch, s, p, o, d = _transposed_args(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
        "conv_transpose3d")
    k = tuple(weight.shape[2:])
    size = _transposed_size(x, k, s, p, o, d)
    N, cin, D, H, W = x.shape
    og = out_ch // groups
    # the depth taps become output channels, tap-major inside each group
    w2 = weight.reshape(groups, cin // groups, og, k[0], k[1], k[2]).permute(0, 1, 3, 2, 4, 5)
    w2 = w2.reshape(cin, k[0] * og, k[1], k[2])
    planes = x.permute(0, 2, 1, 3, 4).reshape(N * D, cin, H, W)
    y = _transpose2d(planes, w2, None, groups * k[0] * og, size[1:], s[1:], p[1:], d[1:], groups)
    oh, ow = size[1], size[2]
    # (N, D, g, kd, og, oh, ow) -> (N * C_out * oh * ow, kd, 1, D), then tap i of
    # depth j lands on output depth j * sd - pd + i * dd
    taps = y.reshape(N, D, groups, k[0], og, oh, ow).permute(0, 2, 4, 5, 6, 3, 1)
    taps = taps.reshape(N * out_ch * oh * ow, k[0], 1, D)
    one_hot = _f["eye"](k[0], dtype=x.dtype).reshape(k[0], 1, 1, k[0])
    z = _col2im(taps, one_hot, [1, size[0]], (1, s[0]), (0, p[0]), (1, d[0]), 1)
    z = z.reshape(N, out_ch, oh, ow, size[0]).permute(0, 1, 4, 2, 3).contiguous()
    if bias is not None:
        z = z + bias.reshape(out_ch, 1, 1, 1)
    return z if batched else z.squeeze(0)
