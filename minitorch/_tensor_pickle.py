"""Pickling and copying tensors: Tensor.__reduce_ex__ and Tensor.__deepcopy__.

A tensor pickles as its whole storage plus its geometry (dtype, size,
stride, storage offset), as torch's does, so views pickled together come
back sharing one storage: the storage travels as one _StorageBytes object,
the same one for every view of it while a pickle is being written, and the
pickler's memo writes it once. With protocol 5 its bytes are a
pickle.PickleBuffer, so a pickler with a buffer_callback hands them out of
band without a copy, and loading wraps the buffers it is given without a
copy. A read-only buffer is copied instead: minitorch has no read-only
tensors, and writing through one must never change memory its owner
believes immutable.
"""
import copy
import pickle
import weakref

import numpy as np

from . import _C

_from_numpy = _C._functions["from_numpy"]
_as_strided = _C._functions["as_strided"]
_empty = _C._functions["empty"]


class _StorageBytes:
    """One storage's bytes in a pickle (a uint8 tensor over all of them)."""

    __slots__ = ("raw", "__weakref__")

    def __init__(self, raw):
        self.raw = raw

    def __reduce_ex__(self, protocol):
        if protocol >= 5:
            return (_rebuild_storage, (pickle.PickleBuffer(self.raw.numpy()),))
        return (_rebuild_storage, (self.raw.numpy().tobytes(),))


# storage address -> its _StorageBytes while anything (a pickler's memo)
# holds it; the entry keeps the storage alive, so the address stays unique.
_live_storages: "weakref.WeakValueDictionary[int, _StorageBytes]" = weakref.WeakValueDictionary()


def _storage_of(t) -> _StorageBytes:
    key = _C._storage_key(t)
    found = _live_storages.get(key)
    if found is None:
        found = _live_storages[key] = _StorageBytes(_C._storage_bytes(t))
    return found


def _rebuild_storage(buffer):
    """The uint8 tensor over a pickled storage's bytes: the buffer itself when
    it is writable, a copy when it is read-only (or bytes, from protocols < 5)."""
    arr = np.frombuffer(buffer, dtype=np.uint8)
    if not arr.flags.writeable:
        arr = arr.copy()
    return _from_numpy(arr)


def _rebuild_tensor_v5(cls, raw, dtype_name, size, stride, offset, requires_grad, state,
                       conj=False):
    """A tensor over a rebuilt storage with its pickled geometry (and conjugate bit)."""
    if isinstance(raw, _StorageBytes):
        raw = raw.raw  # copy.copy passes the reduce's arguments through: share, as torch
    dtype = getattr(_C, dtype_name)
    itemsize = dtype.itemsize
    nbytes = raw.numel()
    usable = nbytes - nbytes % itemsize
    if usable == 0:
        base = _empty(0, dtype=dtype)  # NumPy gives an empty buffer stride 0: no view(dtype)
    else:
        base = (raw if usable == nbytes else raw[:usable]).view(dtype)
    t = _as_strided(base, size, stride, offset)
    if conj:
        t = t.conj()
    if cls is not t.__class__:
        t = t.as_subclass(cls)
    if requires_grad:
        t.requires_grad = True
    if state:
        t.__dict__.update(state)
    return t


def _dtype_name(t) -> str:
    return repr(t.dtype)[len("minitorch."):]


def reduce_tensor(t):
    state = dict(t.__dict__) if hasattr(t, "__dict__") else {}
    args = (type(t), _storage_of(t), _dtype_name(t), tuple(t.shape), t.stride(),
            t.storage_offset(), t.requires_grad, state)
    # the conjugate bit travels as torch's does; only when set, so older readers load the rest
    return (_rebuild_tensor_v5, args + (True,) if t.is_conj() else args)


def deepcopy_tensor(t, memo):
    """As torch: only leaves copy; the copy keeps requires_grad and .grad, and
    tensors sharing a storage in one deepcopy share the copied storage."""
    if not t.is_leaf:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
            "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
            "because of a torch.nn.utils.weight_norm usage, see "
            "https://github.com/pytorch/pytorch/pull/103001")
    if id(t) in memo:
        return memo[id(t)]
    key = ("minitorch.storage", _C._storage_key(t))
    pair = memo.get(key)
    if pair is None:
        raw = _C._storage_bytes(t)
        # the original stays in the memo so its address is not reused meanwhile
        pair = memo[key] = (raw, raw.clone())
    dup = _rebuild_tensor_v5(type(t), pair[1], _dtype_name(t), tuple(t.shape), t.stride(),
                             t.storage_offset(), t.requires_grad and not t.is_conj(), {})
    if t.is_conj():
        # as torch's: the copy holds the values, its conjugate bit resolved
        dup = dup.conj().resolve_conj().requires_grad_(t.requires_grad)
    memo[id(t)] = dup
    if hasattr(t, "__dict__"):
        dup.__dict__.update(copy.deepcopy(t.__dict__, memo))
    if t.grad is not None:
        dup.grad = deepcopy_tensor(t.grad, memo)
    return dup
