"""The names torch's checkpoints give tensors, storages and dtypes, and the
minitorch objects they stand for.

Both directions go through this table: the zip writer emits these names as
pickle GLOBALs, and both unpicklers resolve torch's names here and nowhere
else, so a checkpoint loaded with weights_only=True can call nothing but the
constructors and rebuild functions listed in `allowed_globals`. The rebuild
functions check every size, stride and offset against the storage they view
before making the view, so a forged pickle cannot read outside its storage.
"""
import codecs
import pickle
from collections import Counter, OrderedDict
from typing import Any, Dict

from .. import _C
from .._tensor import Tensor, device
from .native import _DTYPE_NAMES, _DTYPES

# torch's legacy typed-storage class names, which its persistent ids carry
STORAGE_DTYPES = {
    "DoubleStorage": _C.float64, "FloatStorage": _C.float32, "HalfStorage": _C.float16,
    "BFloat16Storage": _C.bfloat16, "LongStorage": _C.int64, "IntStorage": _C.int32,
    "ShortStorage": _C.int16, "CharStorage": _C.int8, "ByteStorage": _C.uint8,
    "BoolStorage": _C.bool, "ComplexFloatStorage": _C.complex64,
    "ComplexDoubleStorage": _C.complex128,
}
STORAGE_NAMES = {d: name for name, d in STORAGE_DTYPES.items()}
_MAX_DIMS = 64


class TorchGlobal:
    """A name in torch's namespace that the zip writer emits as a GLOBAL."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.module}.{self.name} only names a global inside a checkpoint")

    def __repr__(self) -> str:
        return f"<torch global {self.module}.{self.name}>"


class StorageType:
    """What a storage class name in a checkpoint resolves to: its dtype."""

    __slots__ = ("name", "dtype")

    def __init__(self, name: str, dtype) -> None:
        self.name = name
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"StorageType(dtype={self.dtype})"


class LoadedStorage:
    """A storage read from a checkpoint record: `flat` is a 1-D tensor over
    all of it. Tensors rebuilt from the same record view the same `flat`."""

    __slots__ = ("flat",)

    def __init__(self, flat: Tensor) -> None:
        self.flat = flat

    @property
    def dtype(self):
        return self.flat.dtype

    def __len__(self) -> int:
        return self.flat.numel()


def _ints(value, what: str):
    if isinstance(value, (tuple, list)) and len(value) <= _MAX_DIMS and all(
            type(v) is int and v >= 0 for v in value):
        return tuple(value)
    raise RuntimeError(f"minitorch.load: invalid tensor {what} {value!r} in the checkpoint")


def _view(storage, storage_offset, size, stride) -> Tensor:
    if not isinstance(storage, LoadedStorage):
        raise RuntimeError("minitorch.load: a tensor in the checkpoint does not refer to a "
                           f"storage record (got {type(storage).__name__})")
    size, stride = _ints(size, "size"), _ints(stride, "stride")
    if len(size) != len(stride):
        raise RuntimeError(f"minitorch.load: tensor size {size} and stride {stride} in the "
                           "checkpoint differ in length")
    if type(storage_offset) is not int or storage_offset < 0:
        raise RuntimeError(f"minitorch.load: invalid storage offset {storage_offset!r}")
    n = len(storage)
    end = storage_offset
    if all(size):
        end += 1 + sum((s - 1) * st for s, st in zip(size, stride))
    if end > n:
        raise RuntimeError(
            f"minitorch.load: a tensor of size {list(size)}, stride {list(stride)} and storage "
            f"offset {storage_offset} does not fit its storage of {n} elements")
    return storage.flat.as_strided(size, stride, storage_offset)


def rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
                      backward_hooks, metadata=None) -> Tensor:
    t = _view(storage, storage_offset, size, stride)
    if isinstance(metadata, dict) and metadata.get("conj") is True:
        t = t.conj()
    if requires_grad is True:
        t.requires_grad_(True)
    return t


def rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad,
                      backward_hooks, dtype, metadata=None) -> Tensor:
    """torch's rebuild of a tensor over an untyped (byte) storage, its dtype
    given apart: how it saves the dtypes with no typed storage class."""
    if not isinstance(storage, LoadedStorage) or storage.dtype != _C.uint8:
        raise RuntimeError("minitorch.load: a tensor in the checkpoint does not refer to an "
                           "untyped storage record")
    if not isinstance(dtype, _C.dtype) or len(storage) % dtype.itemsize:
        raise RuntimeError(f"minitorch.load: invalid dtype {dtype!r} for a storage of "
                           f"{len(storage)} bytes")
    typed = LoadedStorage(storage.flat.view(dtype))
    return rebuild_tensor_v2(typed, storage_offset, size, stride, requires_grad,
                             backward_hooks, metadata)


def rebuild_parameter(data, requires_grad, backward_hooks):
    from ..nn import Parameter

    if not isinstance(data, Tensor):
        raise RuntimeError("minitorch.load: a Parameter in the checkpoint does not hold a tensor")
    return Parameter(data, requires_grad is True)


def _set_state(obj, state) -> None:
    if isinstance(state, tuple) and len(state) == 2:
        dict_state, slots_state = state
        for part in (dict_state, slots_state):
            _set_state(obj, part)
        return
    if state is None:
        return
    if not isinstance(state, dict) or not all(
            isinstance(k, str) and not k.startswith("__") for k in state):
        raise RuntimeError("minitorch.load: invalid attribute state for a tensor in the checkpoint")
    for k, v in state.items():
        setattr(obj, k, v)


def rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = rebuild_parameter(data, requires_grad, backward_hooks)
    _set_state(p, state)
    return p


def rebuild_from_type_v2(func, new_type, args, state):
    if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
        raise RuntimeError(f"minitorch.load: {new_type!r} is not a tensor type")
    if not isinstance(args, tuple):
        raise RuntimeError("minitorch.load: malformed tensor in the checkpoint")
    t = func(*args)
    if not isinstance(t, Tensor):
        raise RuntimeError("minitorch.load: malformed tensor in the checkpoint")
    if type(t) is not new_type:
        t = Tensor._make_subclass(new_type, t, t.requires_grad)
    _set_state(t, state)
    return t


def _latin1_encode(text, encoding="latin1"):
    # protocol 2 pickles bytes as _codecs.encode(str, "latin1"); nothing else
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError("_codecs.encode is only allowed for latin1 bytes")
    return codecs.encode(text, "latin1")


def _bytearray(data=b"", *encoding):
    # protocol 2 pickles bytearray(bytes) and protocol 0 bytearray(str, "latin-1");
    # bytearray(n) would allocate n bytes the file never held
    if not isinstance(data, (bytes, bytearray, str)):
        raise pickle.UnpicklingError("bytearray is only allowed from bytes or str")
    return bytearray(data, *encoding)


_REBUILDS = {
    "torch._utils._rebuild_tensor_v2": rebuild_tensor_v2,
    "torch._utils._rebuild_tensor_v3": rebuild_tensor_v3,
    "torch._utils._rebuild_parameter": rebuild_parameter,
    "torch._utils._rebuild_parameter_with_state": rebuild_parameter_with_state,
    "torch._tensor._rebuild_from_type_v2": rebuild_from_type_v2,
}
_ALLOWED: Dict[str, Any] = {}


def allowed_globals() -> Dict[str, Any]:
    """torch's weights_only allow list, as minitorch objects: the containers,
    Size, device, Tensor, Parameter, dtypes, storage types and the rebuild
    functions."""
    if not _ALLOWED:
        from ..nn import Parameter

        _ALLOWED.update({
            "collections.OrderedDict": OrderedDict, "collections.Counter": Counter,
            "torch.nn.parameter.Parameter": Parameter, "torch.Size": _C.Size,
            "torch.Tensor": Tensor, "torch.device": device, "_codecs.encode": _latin1_encode,
            "builtins.bytearray": _bytearray, "builtins.set": set, "builtins.complex": complex,
        })
        _ALLOWED.update({f"torch.{name}": d for name, (d, _) in _DTYPES.items()})
        _ALLOWED.update({f"torch.{name}": StorageType(name, d)
                         for name, d in STORAGE_DTYPES.items()})
        _ALLOWED["torch.storage.UntypedStorage"] = StorageType("UntypedStorage", _C.uint8)
        _ALLOWED.update(_REBUILDS)
    return _ALLOWED


def unsupported_torch_kind(full_name: str):
    """Why a torch name minitorch cannot rebuild is refused, or None."""
    if full_name.startswith(("torch._utils._rebuild_", "torch._tensor._rebuild_")):
        return "this kind of tensor (sparse, quantized, nested, meta or device-only)"
    if full_name.startswith("torch.") and full_name.endswith("Storage"):
        return f"storages of type {full_name} (complex and quantized dtypes)"
    if full_name.startswith("torch.") and full_name[6:] in (
            "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "qint8",
            "quint8", "qint32"):
        return f"the dtype {full_name}"
    return None


def dtype_global(dtype) -> TorchGlobal:
    return TorchGlobal("torch", _DTYPE_NAMES[dtype])


def storage_global(dtype) -> TorchGlobal:
    """The storage class naming a storage of dtype: its typed class, or for
    the dtypes with none (uint16/32/64, complex32) UntypedStorage, whose
    tensors torch rebuilds with _rebuild_tensor_v3."""
    if dtype in STORAGE_NAMES:
        return TorchGlobal("torch", STORAGE_NAMES[dtype])
    return TorchGlobal("torch.storage", "UntypedStorage")
