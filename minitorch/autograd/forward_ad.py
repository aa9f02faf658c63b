"""Forward-mode automatic differentiation: dual tensors.

A tangent rides on the autograd meta of a tensor for the active dual level
(csrc/autograd/forward.c); every differentiable op computes its outputs'
tangents right after it runs. Only one level can be active at a time.
"""
from typing import Any, NamedTuple, Optional

from .. import _C

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

_current_level = -1


def enter_dual_level():
    """Enters a new forward grad level and makes it the default of the other
    functions here; returns its index."""
    global _current_level
    new_level = _C._enter_dual_level()
    _current_level = new_level
    return new_level


def exit_dual_level(*, level=None):
    """Exits a forward grad level: every tangent of that level is dropped."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was "
                           "created. This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    _C._exit_dual_level()
    _current_level = level - 1


class _set_fwd_grad_enabled:
    """Turns tangent propagation on or off (off inside a custom Function's forward)."""

    def __init__(self, mode: bool) -> None:
        self.prev = _C._is_fwd_grad_enabled()
        _C._set_fwd_grad_enabled(mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        _C._set_fwd_grad_enabled(self.prev)


def _vmap_levels(*tensors):
    """The active vmap levels when one of tensors is batched by vmap: dual
    tensors are then made of their physical (batched) forms."""
    from ..func._batched import BatchedTensor, levels
    return list(levels()) if any(type(t) is BatchedTensor for t in tensors) else None


def make_dual(tensor, tangent, *, level=None):
    """A new tensor aliasing ``tensor``'s memory, carrying ``tangent`` as its
    forward gradient at ``level`` (the current one by default)."""
    active = _vmap_levels(tensor, tangent)
    if active:
        from ..func._batched import from_physical, to_physical
        dual = make_dual(to_physical(tensor, active), to_physical(tangent, active), level=level)
        return from_physical(dual, active)
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if level != _current_level:
        raise RuntimeError("Invalid level given to _make_dual")
    if _C._fw_grad(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {level} is not supported.")
    with _set_fwd_grad_enabled(False):
        dual = tensor.view_as(tensor)
        # (a tangent of another shape is refused by _set_fw_grad, with torch's message;
        # a primal whose elements overlap cannot be written into, its tangent stays)
        if (tangent.shape == tensor.shape and not _overlaps(tensor)
                and not _same_layout(tangent, tensor)):
            tangent = _zeros_laid_out_as(tensor).copy_(tangent)
    _C._set_fw_grad(dual, tangent)
    return dual


def _overlaps(t):
    return any(stride == 0 and size > 1 for size, stride in zip(t.shape, t.stride()))


def _storage_numel(t):
    return t.untyped_storage().nbytes() // t.element_size()


def _same_layout(tangent, primal):
    """torch's test for keeping the given tangent as-is: every view the primal
    allows (up to its whole storage) must be one the tangent allows too."""
    if primal.numel() == 0:
        # nothing to read or write: torch keeps such a tangent whatever its offset
        return True
    if tangent.storage_offset() != primal.storage_offset():
        return False
    if any(size != 1 and a != b
           for size, a, b in zip(primal.shape, tangent.stride(), primal.stride())):
        return False
    return (_storage_numel(tangent) == _storage_numel(primal)
            and tangent.is_conj() == primal.is_conj() and tangent.is_neg() == primal.is_neg())


def _zeros_laid_out_as(primal):
    """Zeros with primal's strides, storage offset, storage size and conj bit."""
    storage = _C._functions["zeros"]((_storage_numel(primal),), dtype=primal.dtype,
                                     device=primal.device)
    out = storage.as_strided(primal.shape, primal.stride(), primal.storage_offset())
    return out.conj() if primal.is_conj() else out


class UnpackedDualTensor(NamedTuple):
    """What :func:`unpack_dual` returns: the primal and the tangent (or None)."""

    primal: Any
    tangent: Optional[Any]


def unpack_dual(tensor, *, level=None):
    """Splits a dual tensor into ``(primal, tangent)``: ``primal`` is a view of
    ``tensor`` without tangent, ``tangent`` the tangent as-is (None if it has
    none at ``level``)."""
    active = _vmap_levels(tensor)
    if active:
        from ..func._batched import from_physical, to_physical
        primal, tangent = unpack_dual(to_physical(tensor, active), level=level)
        return UnpackedDualTensor(from_physical(primal, active),
                                  None if tangent is None else from_physical(tangent, active))
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    tangent = _C._fw_grad(tensor) if level == _current_level else None
    with _set_fwd_grad_enabled(False):
        primal = tensor.view_as(tensor)
    return UnpackedDualTensor(primal, tangent)


class dual_level:
    """Context manager (and decorator) within which forward AD computation
    happens; the tangents created inside are dropped on exit. Nesting is not
    supported."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        exit_dual_level()

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)
        return wrapper
