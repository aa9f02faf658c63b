"""Switches over view tracking and version counters, as torch.autograd has them.

``_force_original_view_tracking(mode)`` turns view replay on or off from the
moment it is made (a plain call works), and as a context manager or
decorator puts the previous setting back afterwards. With replay on, a view
made straight from its base keeps the op that made it, and when the base is
changed in place the view's grad_fn is that op again (``ViewBackward0``, ...)
instead of an ``AsStridedBackward0`` view of the base.

``_unsafe_preserve_version_counter(tensors)`` puts back on exit the versions
the tensors had when it was made, hiding the in-place changes made inside
from autograd's checks.
"""
from .. import _C
from .._contextlib import _DecoratorContextManager

__all__ = ["is_view_replay_enabled"]


def is_view_replay_enabled() -> bool:
    """Returns True while view replay is on (see ``_force_original_view_tracking``)."""
    return _C._is_view_replay_enabled()


class _force_original_view_tracking(_DecoratorContextManager):
    """Turns view replay on (``mode=True``) or off; see the module docstring."""

    def __init__(self, mode: bool) -> None:
        self.prev = _C._is_view_replay_enabled()
        _C._set_view_replay_enabled(mode)
        self.mode = mode

    def __call__(self, orig_func):
        # as a decorator the mode is put back at once; each call runs under it
        _C._set_view_replay_enabled(self.prev)
        return super().__call__(orig_func)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        _C._set_view_replay_enabled(self.prev)

    def clone(self) -> "_force_original_view_tracking":
        """A new object with the same mode (made for each decorated call)."""
        return self.__class__(self.mode)


class _unsafe_preserve_version_counter(_DecoratorContextManager):
    """Puts back the versions ``tensors`` (a tensor or a tuple of them) had
    when this was made; see the module docstring."""

    def __init__(self, tensors) -> None:
        self.tensors = (tensors,) if isinstance(tensors, _C.TensorBase) else tensors
        if not isinstance(self.tensors, tuple):
            raise AssertionError("Expected tensors to be a tuple")
        self.prev_versions = tuple(t._version for t in self.tensors)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        _C._autograd._unsafe_set_version_counter(self.tensors, self.prev_versions)
