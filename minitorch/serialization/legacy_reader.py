"""Reads torch's legacy non-zip checkpoints (torch.save with
_use_new_zipfile_serialization=False) without trusting them.

The file is a run of protocol-2 pickles: torch's magic number, the protocol
version 1001, a dict of system facts, the object itself (its storages are
persistent ids ('storage', storage type, key, location, numel, view)), the
list of storage keys, then each storage's bytes behind its element count.
The three leading pickles are read with the allow-listed unpickler whatever
weights_only says, so a pickle that is no torch checkpoint never runs code.
A storage is allocated when the object's pickle names it, and only while all
storages allocated so far still fit in the bytes left in the file, so a load
allocates at most about the file's size; reads never ask for more than what
is left.
"""
import pickle
import struct
from typing import Any, BinaryIO, Dict

from .. import _C
from .native import _fail
from .raw import check_bool, empty_raw, raw_bytes
from .torch_names import LoadedStorage, StorageType
from .weights_only import WeightsUnpickler
from .zip_reader import FullUnpickler, location_mapper, read_chunked

MAGIC_NUMBER = 0x1950a86a20f9469cfc6c
PROTOCOL_VERSION = 1001


class _Bounded:
    """f's reads, never asking for more than the file has left."""

    def __init__(self, f: BinaryIO, end: int) -> None:
        self.f = f
        self.end = end

    def left(self) -> int:
        return self.end - self.f.tell()

    def read(self, n: int = -1) -> bytes:
        left = self.left()
        return self.f.read(left if n < 0 else min(n, left))

    def readinto(self, out: memoryview) -> int:
        return self.f.readinto(out[:max(self.left(), 0)])

    def readline(self) -> bytes:
        return self.f.readline(self.left())


class _LegacyStorages:
    def __init__(self, src: _Bounded, map_location, trusted: bool) -> None:
        self.src = src
        self.trusted = trusted
        self.restore = location_mapper(map_location)
        self.roots: Dict[str, LoadedStorage] = {}
        self.allocated = 0

    def __call__(self, pid) -> LoadedStorage:
        if self.trusted and isinstance(pid, tuple) and len(pid) == 4 and pid[0] == "module":
            return pid[1]  # a whole module's class, as torch's legacy save names it
        if not (isinstance(pid, tuple) and len(pid) == 6 and pid[0] == "storage"):
            raise pickle.UnpicklingError("unsupported persistent id encountered")
        _, stype, key, location, numel, view = pid
        if not isinstance(stype, StorageType) or type(key) is not str or type(
                location) is not str or type(numel) is not int or numel < 0:
            raise pickle.UnpicklingError(f"malformed storage reference {pid!r}")
        root = self.roots.get(key)
        if root is None:
            nbytes = numel * stype.dtype.itemsize
            if self.allocated + nbytes > self.src.left():
                raise _fail(f"storage {key} declares {numel} elements of {stype.dtype}, more "
                            "than the rest of the file holds")
            flat, _ = empty_raw((numel,), stype.dtype)
            self.allocated += nbytes
            root = self.roots[key] = self.restore(LoadedStorage(flat), location)
        elif root.dtype != stype.dtype:
            raise _fail(f"storage {key} is referenced with two dtypes")
        if view is None:
            return root
        if not (isinstance(view, tuple) and len(view) == 3 and type(view[1]) is int
                and type(view[2]) is int and 0 <= view[1] and 0 <= view[2]
                and view[1] + view[2] <= len(root)):
            raise pickle.UnpicklingError(f"malformed storage view {view!r}")
        return LoadedStorage(root.flat[view[1]:view[1] + view[2]])

    def fill(self, keys) -> None:
        if not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
            raise _fail("malformed list of storage keys")
        for key in keys:
            storage = self.roots.get(key)
            if storage is None:
                raise _fail(f"storage key {key!r} not found in the checkpoint's object")
            head = self.src.read(8)
            if len(head) < 8:
                raise _fail(f"file is truncated before storage {key}")
            (numel,) = struct.unpack("<q", head)
            if numel != len(storage):
                raise _fail(f"storage {key} has the wrong size: expected {len(storage)} "
                            f"elements, got {numel}")
            raw = raw_bytes(storage.flat)
            read_chunked(self.src, raw, f"storage {key}")
            if storage.dtype == _C.bool and not check_bool(raw):
                raise _fail(f"bool storage {key} holds bytes other than 0 and 1")


def load_legacy(f: BinaryIO, end: int, map_location, weights_only: bool) -> Any:
    src = _Bounded(f, end)
    storages = _LegacyStorages(src, map_location, trusted=not weights_only)

    def refuse(pid):
        raise pickle.UnpicklingError("unsupported persistent id encountered")

    if WeightsUnpickler(src, refuse).load() != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = WeightsUnpickler(src, refuse).load()
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    sys_info = WeightsUnpickler(src, refuse).load()
    if isinstance(sys_info, dict) and sys_info.get("little_endian") is False:
        raise _fail("big-endian legacy checkpoints are not supported")
    unpickler = WeightsUnpickler if weights_only else FullUnpickler
    result = unpickler(src, storages).load()
    storages.fill(WeightsUnpickler(src, refuse).load())
    return result
