"""Dropout: zeroes elements with probability p in training, identity in eval."""
from .. import functional as F
from .module import Module

__all__ = ["Dropout"]


class Dropout(Module):
    """Randomly zeroes elements of the input with probability p during training."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
