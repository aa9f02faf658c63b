"""Flattening parameters into one vector and copying a vector back into them
(torch.nn.utils.parameters_to_vector / vector_to_parameters). Every minitorch
tensor lives on the CPU, so torch's same-device check always passes."""
from typing import Iterable

import minitorch
from minitorch import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Concatenates the flattened parameters into one differentiable vector."""
    return minitorch.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Rebinds each parameter's data to its slice of ``vec``, in order."""
    if not isinstance(vec, Tensor):
        kind = type(vec)
        name = kind.__name__ if kind.__module__ == "builtins" else \
            f"{kind.__module__}.{kind.__qualname__}"
        raise TypeError(f"expected torch.Tensor, but got: {name}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
