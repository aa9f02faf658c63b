"""LazyConv1d/2d/3d and LazyConvTranspose1d/2d/3d: convolutions whose
in_channels, and so weight and bias shapes, come from the first input; they
then become the Conv/ConvTranspose module of their dimension."""
from ..parameter import UninitializedParameter
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .lazy import LazyModuleMixin

__all__ = ["LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d"]


class _LazyConvXdMixin(LazyModuleMixin):
    def _make_lazy(self, out_channels: int, bias: bool, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        # the base constructor's call, on the 0-channel placeholder weight, initializes nothing
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups)
        else:
            shape = (self.out_channels, self.in_channels // self.groups)
        self.weight.materialize((*shape, *self.kernel_size))
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()

    def _get_in_channels(self, input) -> int:
        unbatched = self._n + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) "
                               f"input to {self.__class__.__name__}, but got input of size: "
                               f"{input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]


class _LazyConvNd(_LazyConvXdMixin):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device, dtype)
        self._make_lazy(out_channels, bias, device, dtype)


class _LazyConvTransposeNd(_LazyConvXdMixin):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros",
                 device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device, dtype)
        self._make_lazy(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConvNd, Conv1d):
    """A Conv1d whose in_channels is inferred from the first input."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConvNd, Conv2d):
    """A Conv2d whose in_channels is inferred from the first input."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConvNd, Conv3d):
    """A Conv3d whose in_channels is inferred from the first input."""

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    """A ConvTranspose1d whose in_channels is inferred from the first input."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    """A ConvTranspose2d whose in_channels is inferred from the first input."""

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    """A ConvTranspose3d whose in_channels is inferred from the first input."""

    cls_to_become = ConvTranspose3d
