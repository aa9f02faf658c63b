"""The *_copy functions (t_copy, diagonal_copy, ...): each runs its view op
and returns the values as fresh contiguous tensors that alias nothing,
written into out= when given. All are made by one factory from the list of
view ops, so their gradients are the view's and clone's."""
from typing import Callable

from ._global_flags import contiguous_format
from ._out_param import write_out, write_out_list
from ._tensor import Tensor
from .overrides import composite


def _alias(input: Tensor) -> Tensor:
    return input.view_as(input)


def _narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """narrow, with the checks and messages of torch's narrow_copy kernel
    (which are not narrow's)."""
    if input.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if dim >= input.dim():
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, "
                           "but got false.  (Could this error message be improved?  If so, "
                           "please report an enhancement request to PyTorch.)")
    size = input.size(dim)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    start += size if start < 0 else 0
    if length < 0 or start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return input.narrow(dim, start, length)


# the ones torch also has as a Tensor method
_METHODS = {"narrow_copy"}


def _fresh(t: Tensor) -> Tensor:
    return t.clone(memory_format=contiguous_format)


def _make(name: str, view: Callable, out_name) -> Callable:
    def copy(input: Tensor, *args, out=None, **kwargs):
        # copied before out= is written: out may share memory with input
        result = view(input, *args, **kwargs)
        if out_name is None:
            fresh = _fresh(result)
            return fresh if out is None else write_out(out, fresh)
        pieces = tuple(_fresh(t) for t in result)
        if out is None:
            return pieces
        write_out_list(out_name, out, pieces)
        return None
    copy.__name__ = copy.__qualname__ = name
    view_name = name[:-len("_copy")]
    copy.__doc__ = (f"Performs {view_name}() and returns its result as freshly created "
                    "contiguous tensors that share no memory with input.")
    return composite(method=name in _METHODS)(copy)


# one row per copy: its name, the view it copies, and the name torch gives a
# list out= in its size check where the view gives several tensors
alias_copy = _make("alias_copy", _alias, None)
as_strided_copy = _make("as_strided_copy", Tensor.as_strided, None)
diagonal_copy = _make("diagonal_copy", Tensor.diagonal, None)
expand_copy = _make("expand_copy", Tensor.expand, None)
narrow_copy = _make("narrow_copy", _narrow, None)
permute_copy = _make("permute_copy", Tensor.permute, None)
split_with_sizes_copy = _make("split_with_sizes_copy", Tensor.split_with_sizes,
                              "split_with_sizes_copy_out")
squeeze_copy = _make("squeeze_copy", Tensor.squeeze, None)
t_copy = _make("t_copy", Tensor.t, None)
transpose_copy = _make("transpose_copy", Tensor.transpose, None)
unbind_copy = _make("unbind_copy", Tensor.unbind, "unbind_copy_int_out")
unfold_copy = _make("unfold_copy", Tensor.unfold, None)
unsqueeze_copy = _make("unsqueeze_copy", Tensor.unsqueeze, None)
view_copy = _make("view_copy", Tensor.view, None)

__all__ = [name for name in dir() if name.endswith("_copy")]
