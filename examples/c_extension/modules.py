"""The extension's add as an nn.Module, over the autograd.Function of
functions.py."""
from minitorch import nn

try:  # installed: pip install ./examples/c_extension
    from .functions import MyAddFunction
except ImportError:  # run from this folder
    from functions import MyAddFunction


class MyAddModule(nn.Module):
    def forward(self, input1, input2):
        return MyAddFunction.apply(input1, input2)
