"""Tensor.untyped_storage() and Tensor.storage(), with torch's basic API.

A storage object is a 1-D uint8 tensor over the whole of a tensor's
refcounted C storage (_C._storage_bytes), so it shares the memory, keeps it
alive, and reports the address every view of it shares. One UntypedStorage
object stands for one C storage while it lives (a weak table keyed by the
storage's identity), so `t.untyped_storage() is t[1:].untyped_storage()`,
as in torch. TypedStorage, torch's deprecated typed view, reads the same
bytes as elements of a dtype.
"""
import warnings
import weakref
from typing import Any, List, Union

import minitorch
from . import _C
from ._tensor import Tensor, device

__all__ = ["UntypedStorage", "TypedStorage"]

_live: "weakref.WeakValueDictionary[int, UntypedStorage]" = weakref.WeakValueDictionary()
_CPU = device("cpu")


def _index(idx: Any, size: int) -> int:
    if not isinstance(idx, int) or isinstance(idx, bool):
        raise TypeError(f"can't index a storage with {type(idx).__name__}")
    # torch reports a negative index after wrapping it once
    wrapped = idx + size if idx < 0 else idx
    if not 0 <= wrapped < size:
        raise IndexError(f"index {wrapped} out of range for storage of size {size}")
    return wrapped


def _lines(values: List[Any]) -> str:
    return "".join(f" {v}\n" for v in values)


class UntypedStorage:
    """The bytes a tensor's data lives in; every view of it shares them."""

    __slots__ = ("_bytes", "__weakref__")

    def __init__(self, *args, device=None) -> None:
        if device is not None and str(device) != "cpu":
            raise RuntimeError(f"minitorch storages live on the CPU, not {device!r}")
        if len(args) > 1:
            raise TypeError(f"UntypedStorage() takes at most 1 argument ({len(args)} given)")
        arg = args[0] if args else 0
        if isinstance(arg, int) and not isinstance(arg, bool):
            if arg < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {arg}: "
                                   f"[{arg}]")
            self._bytes = minitorch.empty(arg, dtype=_C.uint8)
        elif isinstance(arg, (list, tuple)):
            self._bytes = minitorch.tensor(list(arg), dtype=_C.uint8)
        else:
            raise TypeError(f"UntypedStorage(): expected a size or a sequence of bytes, got "
                            f"{type(arg).__name__}")

    @classmethod
    def _over(cls, raw: Tensor) -> "UntypedStorage":
        s = cls.__new__(cls)
        s._bytes = raw
        return s

    @classmethod
    def _of(cls, t: Tensor) -> "UntypedStorage":
        key = _C._storage_key(t)
        found = _live.get(key)
        if found is None:
            found = _live[key] = cls._over(_C._storage_bytes(t))
        return found

    @classmethod
    def _new_shared(cls, size: int, *, device=None) -> "UntypedStorage":
        """A new storage of size bytes in shared memory."""
        if device is not None and str(device) != "cpu":
            raise RuntimeError(f"minitorch storages live on the CPU, not {device!r}")
        return cls._over(_C._empty_shared(size))

    # ---- torch's basic API --------------------------------------------------

    @property
    def device(self) -> device:
        """The storage's device: always the CPU."""
        return _CPU

    @property
    def is_cuda(self) -> bool:
        """Always False: minitorch storages live on the CPU."""
        return False

    @property
    def _cdata(self) -> int:
        return _C._storage_key(self._bytes)

    def data_ptr(self) -> int:
        """The address of the storage's first byte (0 when it is empty)."""
        return self._bytes.data_ptr() if self.nbytes() else 0

    def nbytes(self) -> int:
        """The storage's size in bytes."""
        return self._bytes.numel()

    def size(self) -> int:
        """The storage's size in bytes (its length)."""
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        """1: an untyped storage counts bytes."""
        return 1

    def untyped(self) -> "UntypedStorage":
        """The UntypedStorage of these bytes."""
        return self

    def tolist(self) -> List[int]:
        """The bytes as a list of ints."""
        return self._bytes.tolist()

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            start, stop, step = idx.indices(self.nbytes())
            if step != 1:
                raise RuntimeError("slices with steps other than 1 are not supported")
            return UntypedStorage._over(self._bytes[start:max(start, stop)])
        return int(self._bytes[_index(idx, self.nbytes())].item())

    def __setitem__(self, idx, value) -> None:
        if isinstance(idx, slice):
            self._bytes[idx] = value
        else:
            self._bytes[_index(idx, self.nbytes())] = value

    def __iter__(self):
        return iter(self.tolist())

    def fill_(self, value) -> "UntypedStorage":
        """Sets every element to value; returns the storage."""
        self._bytes.fill_(value)
        return self

    def copy_(self, source: "UntypedStorage", non_blocking=None) -> "UntypedStorage":
        """Copies another storage of the same size in bytes into this one."""
        src = source.untyped()._bytes
        if src.numel() != self.nbytes():
            raise RuntimeError(f"size mismatch, {self.nbytes()} vs {src.numel()}")
        self._bytes.copy_(src)
        return self

    def clone(self) -> "UntypedStorage":
        """A copy of the storage in new memory."""
        return UntypedStorage._over(self._bytes.clone())

    def cpu(self) -> "UntypedStorage":
        """The storage itself: it is on the CPU already."""
        return self

    def is_shared(self) -> bool:
        """Whether the storage lives in shared memory."""
        return self._bytes.is_shared()

    def share_memory_(self) -> "UntypedStorage":
        """Moves the storage into shared memory; returns it."""
        self._bytes.share_memory_()
        return self

    def is_pinned(self, device=None) -> bool:
        """Always False: minitorch has no pinned memory."""
        return False

    def __repr__(self) -> str:
        return (_lines(self.tolist()) +
                f"[minitorch.storage.UntypedStorage(device=cpu) of size {self.nbytes()}]")


_warned = [False]


def _warn_typed(stacklevel: int) -> None:
    # once per process, as torch warns
    if _warned[0]:
        return
    _warned[0] = True
    warnings.warn(
        "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
        "the only storage class. This should only matter to you if you are using storages "
        "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
        "tensor.storage()", UserWarning, stacklevel=stacklevel + 1)


class TypedStorage:
    """torch's deprecated typed storage: a storage's bytes read as one dtype."""

    __slots__ = ("_untyped_storage", "dtype")

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None,
                 _internal: bool = False) -> None:
        if not _internal:
            _warn_typed(2)
        self.dtype = _C.float32 if dtype is None else dtype
        if wrap_storage is not None:
            if args:
                raise RuntimeError("TypedStorage(): takes no positional arguments with "
                                   "wrap_storage")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError("expected a UntypedStorage for wrap_storage, got "
                                f"{type(wrap_storage).__name__}")
            self._untyped_storage = wrap_storage
            return
        arg: Union[int, list] = args[0] if args else 0
        if isinstance(arg, int) and not isinstance(arg, bool):
            raw = minitorch.empty(arg, dtype=self.dtype).view(_C.uint8) if arg else \
                minitorch.empty(0, dtype=_C.uint8)
        else:
            raw = minitorch.tensor(list(arg), dtype=self.dtype).reshape(-1).view(_C.uint8)
        self._untyped_storage = UntypedStorage._over(raw)

    @classmethod
    def _wrap(cls, untyped: UntypedStorage, dtype) -> "TypedStorage":
        s = cls.__new__(cls)
        s._untyped_storage = untyped
        s.dtype = dtype
        return s

    def _new_shared(self, size: int, *, device=None) -> "TypedStorage":
        """A new storage of size elements of this dtype in shared memory."""
        return TypedStorage._wrap(
            UntypedStorage._new_shared(size * self.element_size(), device=device), self.dtype)

    def _elements(self) -> Tensor:
        raw = self._untyped_storage._bytes
        return raw.view(self.dtype) if raw.numel() else minitorch.empty(0, dtype=self.dtype)

    @property
    def device(self) -> device:
        """The storage's device: always the CPU."""
        return _CPU

    @property
    def is_cuda(self) -> bool:
        """Always False: minitorch storages live on the CPU."""
        return False

    def untyped(self) -> UntypedStorage:
        """The UntypedStorage of these bytes."""
        return self._untyped_storage

    def data_ptr(self) -> int:
        """The address of the storage's first byte (0 when it is empty)."""
        return self._untyped_storage.data_ptr()

    def nbytes(self) -> int:
        """The storage's size in bytes."""
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        """The size in bytes of one element of the storage's dtype."""
        return self.dtype.itemsize

    def size(self) -> int:
        """The number of elements of the storage's dtype it holds."""
        return self.nbytes() // self.element_size()

    def __len__(self) -> int:
        return self.size()

    def tolist(self) -> list:
        """The elements as a list of Python numbers."""
        return self._elements().tolist()

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        return self._elements()[_index(idx, self.size())].item()

    def __setitem__(self, idx, value) -> None:
        elements = self._elements()
        if isinstance(idx, slice):
            elements[idx] = value
        else:
            elements[_index(idx, self.size())] = value

    def __iter__(self):
        return iter(self.tolist())

    def fill_(self, value) -> "TypedStorage":
        """Sets every element to value; returns the storage."""
        self._elements().fill_(value)
        return self

    def is_shared(self) -> bool:
        """Whether the storage lives in shared memory."""
        return self._untyped_storage.is_shared()

    def share_memory_(self) -> "TypedStorage":
        """Moves the storage into shared memory; returns it."""
        self._untyped_storage.share_memory_()
        return self

    def cpu(self) -> "TypedStorage":
        """The storage itself: it is on the CPU already."""
        return self

    def __repr__(self) -> str:
        return (_lines(self.tolist()) + f"[minitorch.storage.TypedStorage(dtype={self.dtype}, "
                f"device=cpu) of size {self.size()}]")
