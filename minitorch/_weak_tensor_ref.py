"""``_C._WeakTensorRef``: torch's weak reference to a tensor, whose
``expired()`` says whether the tensor is gone (tests use it to check that
a graph does not keep a tensor alive). A minitorch tensor's Python object
is its tensor, so a weak reference to the object is one to the tensor."""
import weakref

from . import _C


class _WeakTensorRef:
    __slots__ = ("_ref",)

    def __init__(self, tensor) -> None:
        self._ref = weakref.ref(tensor)

    def expired(self) -> bool:
        return self._ref() is None


_C._WeakTensorRef = _WeakTensorRef
