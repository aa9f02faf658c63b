"""Conv1d/2d/3d and ConvTranspose1d/2d/3d over the functional convolutions."""
import math
from typing import Optional, Sequence, Tuple

import minitorch
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d"]


def _ntuple(n):
    def parse(x):
        if isinstance(x, (tuple, list)):
            return tuple(x)
        return (x,) * n
    return parse


class _ConvNd(Module):
    _n = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None, transposed: bool = False, output_padding=0) -> None:
        super().__init__()
        tup = _ntuple(self._n)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in tup(stride)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        valid_padding_modes = {"zeros"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride)
        self.padding = padding if isinstance(padding, str) else tup(padding)
        self.dilation = tup(dilation)
        self.transposed = transposed
        self.output_padding = tup(output_padding)
        self.groups = groups
        self.padding_mode = padding_mode
        # a transposed convolution's weight is that of the convolution it is the adjoint of
        w_shape = ((in_channels, out_channels // groups) if transposed
                   else (out_channels, in_channels // groups))
        self.weight = Parameter(minitorch.empty(*w_shape, *self.kernel_size, dtype=dtype))
        if bias:
            self.bias = Parameter(minitorch.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


class Conv1d(_ConvNd):
    """Applies a 1D convolution over an input signal of several input planes."""

    _n = 1

    def forward(self, input):
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


class Conv2d(_ConvNd):
    """Applies a 2D convolution over an input signal of several input planes."""

    _n = 2

    def forward(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


class Conv3d(_ConvNd):
    """Applies a 3D convolution over an input signal of several input planes."""

    _n = 3

    def forward(self, input):
        return F.conv3d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


class _ConvTransposeNd(_ConvNd):
    """A transposed convolution module: a _ConvNd with the adjoint's weight
    layout whose forward may pick output_padding from a requested output_size."""

    _fn = "conv_transpose2d"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype, transposed=True,
                         output_padding=output_padding)

    def _output_padding(self, input, output_size) -> Tuple[int, ...]:
        """self.output_padding, or the one that makes the output output_size
        (spatial sizes, optionally led by the batch and channel sizes)."""
        if output_size is None:
            return self.output_padding
        n = self._n
        lead = 2 if input.dim() == n + 2 else 1
        size = [int(v) for v in output_size]
        if len(size) == lead + n:
            size = size[lead:]
        if len(size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must "
                             f"have {n} or {lead + n} elements (got {len(output_size)})")
        lo = [(input.shape[lead + d] - 1) * self.stride[d] - 2 * self.padding[d]
              + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        hi = [lo[d] + self.stride[d] - 1 for d in range(n)]
        if any(not lo[d] <= size[d] <= hi[d] for d in range(n)):
            raise ValueError(f"requested an output size of {size}, but valid sizes range from "
                             f"{lo} to {hi} (for an input of {input.shape[lead:]})")
        return tuple(size[d] - lo[d] for d in range(n))

    def forward(self, input, output_size: Optional[Sequence[int]] = None):
        output_padding = self._output_padding(input, output_size)
        return getattr(F, self._fn)(input, self.weight, self.bias, self.stride, self.padding,
                                    output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Applies a 1D transposed convolution operator over an input image composed
    of several input planes."""

    _n = 1
    _fn = "conv_transpose1d"


class ConvTranspose2d(_ConvTransposeNd):
    """Applies a 2D transposed convolution operator over an input image composed
    of several input planes."""

    _n = 2
    _fn = "conv_transpose2d"


class ConvTranspose3d(_ConvTransposeNd):
    """Applies a 3D transposed convolution operator over an input image composed
    of several input planes."""

    _n = 3
    _fn = "conv_transpose3d"
