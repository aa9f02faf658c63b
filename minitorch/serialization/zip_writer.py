"""Writes torch.save's zip checkpoint format, so that torch.load (with
weights_only=True by default) reads what minitorch.save writes.

The archive holds <name>/data.pkl (a protocol-2 pickle), the small records
torch writes (.format_version, .storage_alignment, byteorder, version,
.data/serialization_id) and one stored record data/<key> per storage, its
bytes aligned to 64 in the file as torch aligns them. Tensors pickle as
torch._utils._rebuild_tensor_v2 over a persistent id ('storage', torch
storage class, key, 'cpu', numel); tensors viewing the same memory name the
same key, so views stay views after loading. The pickle is written twice:
the first pass only finds how far into each storage the saved tensors
reach, because a storage's element count is part of every reference to it.
"""
import io
import os
import pickle
import types
from collections import OrderedDict
from typing import Any, BinaryIO, Dict, List, Tuple

from .. import _C
from .._tensor import Tensor, device
from .raw import raw_bytes
from .stored_zip import ALIGN, StoredZipWriter
from .torch_names import STORAGE_NAMES, TorchGlobal, dtype_global, storage_global
from .torch_paths import torch_name

_TENSOR_V2 = TorchGlobal("torch._utils", "_rebuild_tensor_v2")
_TENSOR_V3 = TorchGlobal("torch._utils", "_rebuild_tensor_v3")
_PARAMETER = TorchGlobal("torch._utils", "_rebuild_parameter")
_PARAMETER_STATE = TorchGlobal("torch._utils", "_rebuild_parameter_with_state")
_FROM_TYPE_V2 = TorchGlobal("torch._tensor", "_rebuild_from_type_v2")
_SIZE = TorchGlobal("torch", "Size")
_DEVICE = TorchGlobal("torch", "device")
_TENSOR_CLASS = TorchGlobal("torch", "Tensor")
_PARAMETER_CLASS = TorchGlobal("torch.nn.parameter", "Parameter")


class _Storage:
    __slots__ = ("key", "dtype", "numel", "member")

    def __init__(self, key: str, member: Tensor) -> None:
        self.key = key
        self.dtype = member.dtype
        self.numel = 0
        self.member = member


class _Storages:
    """The storages the saved tensors view, keyed by where their memory starts."""

    def __init__(self) -> None:
        self.by_base: Dict[Any, _Storage] = {}
        self.order: List[_Storage] = []

    def _new(self, base, member: Tensor) -> _Storage:
        storage = _Storage(str(len(self.order)), member)
        self.by_base[base] = storage
        self.order.append(storage)
        return storage

    def locate(self, t: Tensor) -> Tuple[_Storage, int]:
        if t.numel() == 0:
            # empty tensors view nothing: they share one empty storage per dtype
            key = ("empty", t.dtype)
            return self.by_base.get(key) or self._new(key, t), 0
        offset = t.storage_offset()
        base = t.data_ptr() - offset * t.dtype.itemsize
        storage = self.by_base.get(base) or self._new(base, t)
        if storage.dtype != t.dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                               "data as different types")
        reach = offset + 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride()))
        storage.numel = max(storage.numel, reach)
        return storage, offset


class _Discard:
    def write(self, data) -> int:
        return len(data)


def _reduce_torch(storages: "_Storages", obj):
    """How torch pickles obj, when obj is a tensor, Size or device."""
    if isinstance(obj, Tensor):
        from ..nn.parameter import is_lazy
        if is_lazy(obj):
            # no data yet: rebuilt from requires_grad alone, by torch's class of its name
            return (TorchGlobal("torch.nn.parameter", type(obj).__name__), (obj.requires_grad,))
        return _reduce_tensor(storages, obj)
    if type(obj) is _C.Size:
        return (_SIZE, (tuple(obj),))
    if type(obj) is device:
        return (_DEVICE, (str(obj),))
    return NotImplemented


class TorchPickler(pickle._Pickler):
    """Writes data.pkl. The pure-Python pickler, because only it can emit a
    GLOBAL naming torch's functions without importing torch."""

    dispatch = dict(pickle._Pickler.dispatch)
    _PLAIN = frozenset([type(None), bool, int, float, str, bytes, list, dict, tuple])

    def __init__(self, file, protocol: int, storages: _Storages) -> None:
        super().__init__(file, protocol)
        self.storages = storages

    def persistent_id(self, obj):
        if type(obj) is _Storage:
            # an untyped storage counts bytes
            numel = obj.numel if obj.dtype in STORAGE_NAMES else obj.numel * obj.dtype.itemsize
            return ("storage", storage_global(obj.dtype), obj.key, "cpu", numel)
        return None

    def reducer_override(self, obj):
        if type(obj) in self._PLAIN:
            return NotImplemented
        return _reduce_torch(self.storages, obj)

    def _write_global(self, g: TorchGlobal, obj) -> None:
        self.write(pickle.GLOBAL + f"{g.module}\n{g.name}\n".encode("utf-8"))
        self.memoize(obj)

    def save_torch_global(self, obj) -> None:
        self._write_global(obj if type(obj) is TorchGlobal else dtype_global(obj), obj)

    def save_global(self, obj, name=None) -> None:
        from ..nn import Parameter

        # the tensor classes are torch's names in the file (as
        # _rebuild_from_type_v2's argument)
        if obj is Tensor:
            self._write_global(_TENSOR_CLASS, obj)
        elif obj is Parameter:
            self._write_global(_PARAMETER_CLASS, obj)
        elif (path := torch_name(obj)) is not None:
            # nn classes and public functions under torch's names, so
            # torch.load rebuilds a saved model from its own classes
            self._write_global(TorchGlobal(*path), obj)
        else:
            super().save_global(obj, name)

    dispatch[TorchGlobal] = save_torch_global
    dispatch[types.FunctionType] = save_global  # the base table holds the base's
    dispatch[_C.dtype] = save_torch_global


class _ReachPickler(pickle.Pickler):
    """The first pass, in the C pickler (its output is dropped): it reduces
    tensors as TorchPickler does, which records how far each storage is
    reached, with torch's names replaced by a placeholder."""

    def __init__(self, protocol: int, storages: _Storages) -> None:
        super().__init__(_Discard(), protocol)
        self.storages = storages

    def persistent_id(self, obj):
        return obj.key if type(obj) is _Storage else None

    def reducer_override(self, obj):
        if type(obj) is TorchGlobal or type(obj) is _C.dtype:
            return (tuple, ())
        rv = _reduce_torch(self.storages, obj)
        return rv if rv is NotImplemented else (tuple, (rv[1],))


def _reduce_tensor(storages: _Storages, t: Tensor):
    from ..nn import Parameter

    state = dict(getattr(t, "__dict__", None) or {})
    if isinstance(t, Parameter):
        data = t.detach()
        if type(t) is Parameter and not state:
            return (_PARAMETER, (data, t.requires_grad, OrderedDict()))
        return (_PARAMETER_STATE, (data, t.requires_grad, OrderedDict(), state))
    if any(st < 0 for st in t.stride()):
        t = t.contiguous()
    storage, offset = storages.locate(t)
    args = (storage, offset, tuple(t.shape), tuple(t.stride()), t.requires_grad, OrderedDict())
    rebuild = _TENSOR_V2
    if t.dtype not in STORAGE_NAMES:
        rebuild, args = _TENSOR_V3, args + (t.dtype,)
    if t.is_conj():
        args += ({"conj": True},)  # torch's tensor metadata: the conjugate bit
    if type(t) is Tensor and not state:
        return (rebuild, args)
    return (_FROM_TYPE_V2, (rebuild, type(t), args, state))


def _pickle(obj: Any, protocol: int) -> Tuple[bytes, _Storages]:
    storages = _Storages()
    _ReachPickler(protocol, storages).dump(obj)
    out = io.BytesIO()
    TorchPickler(out, protocol, storages).dump(obj)
    return out.getvalue(), storages


def _storage_bytes(storage: _Storage) -> memoryview:
    return raw_bytes(storage.member.detach().as_strided((storage.numel,), (1,), 0))


def write_zip(obj: Any, out: BinaryIO, archive_name: str, protocol: int) -> None:
    data_pkl, storages = _pickle(obj, protocol)
    prefix = archive_name + "/"
    zf = StoredZipWriter(out)
    zf.add(prefix + "data.pkl", data_pkl)
    zf.add(prefix + ".format_version", b"1")
    zf.add(prefix + ".storage_alignment", str(ALIGN).encode())
    zf.add(prefix + "byteorder", b"little")
    for storage in storages.order:
        zf.add(f"{prefix}data/{storage.key}", _storage_bytes(storage))
    zf.add(prefix + "version", b"3\n")
    serialization_id = str(int.from_bytes(os.urandom(16), "little")).zfill(40)[:40]
    zf.add(prefix + ".data/serialization_id", serialization_id.encode())
    zf.close()
