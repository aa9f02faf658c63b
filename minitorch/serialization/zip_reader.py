"""Reads torch.save's zip checkpoints (data.pkl plus one stored record per
storage) without trusting them.

Before anything is allocated, the archive's records must be stored
(uncompressed, as torch writes them), lie inside the file and not overlap, so
the bytes all records hold add up to at most the file's size; a storage is
allocated only when the pickle names it, once per record, and only if its
declared element count matches its record's size exactly. Loading therefore
allocates at most about the file's size, whatever the pickle claims.
"""
import io
import pickle
import struct
import zipfile
from typing import Any, BinaryIO, Callable, Dict

import numpy as np

from .. import _C
from .native import _CHUNK, _fail
from .raw import check_bool, empty_raw, mapped_raw
from .stored_zip import crc32
from .torch_paths import from_torch
from .torch_names import LoadedStorage, StorageType, allowed_globals, unsupported_torch_kind
from .weights_only import WeightsUnpickler

_LOCAL_HEADER = 30
# a record is read and checksummed this much at a time: what the read just
# wrote is still in L2 when the checksum reads it
_CRC_CHUNK = 1 << 18
_CUDA_MESSAGE = (
    "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
    "If you are running on a CPU-only machine, please use torch.load with "
    "map_location=torch.device('cpu') to map your storages to the CPU.")


def _open_zip(f: BinaryIO) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(f)
    except (zipfile.BadZipFile, EOFError, ValueError, OSError) as e:
        raise RuntimeError(
            "PytorchStreamReader failed reading zip archive: failed finding central directory "
            f"(the file is truncated or not a zip archive: {e})") from None


class Archive:
    def __init__(self, f: BinaryIO, file_size: int, mmap: bool = False) -> None:
        self.zf = _open_zip(f)
        self.f = f
        self.file_size = file_size
        # copy-on-write, as torch maps: loaded tensors may be written to
        self.mapped = np.memmap(f, dtype=np.uint8, mode="c") if mmap else None
        infos = self.zf.infolist()
        end = 0
        for info in sorted(infos, key=lambda i: i.header_offset):
            if info.compress_type != zipfile.ZIP_STORED:
                raise _fail(f"record {info.filename} is compressed; torch.save never "
                            "compresses, and a compressed record could expand without bound")
            if info.file_size != info.compress_size:
                raise _fail(f"record {info.filename} declares {info.file_size} bytes but "
                            f"stores {info.compress_size}")
            if info.header_offset < end:
                raise _fail(f"records overlap in the zip archive (at {info.filename})")
            end = info.header_offset + _LOCAL_HEADER + info.compress_size
            if end > file_size:
                raise _fail(f"file is truncated: record {info.filename} declares "
                            f"{info.compress_size} bytes past the end of the file")
        pkl = [i.filename for i in infos
               if i.filename.endswith("/data.pkl") and i.filename.count("/") == 1]
        if not pkl:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
        self.prefix = pkl[0][:-len("data.pkl")]
        self.records = {i.filename: i for i in infos}

    def record(self, name: str) -> zipfile.ZipInfo:
        info = self.records.get(self.prefix + name)
        if info is None:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found")
        return info

    def _data_start(self, info: zipfile.ZipInfo) -> int:
        """Where a stored record's bytes start in the file (after its local
        header), checked to end inside the file."""
        self.f.seek(info.header_offset)
        head = self.f.read(_LOCAL_HEADER)
        if len(head) < _LOCAL_HEADER or head[:4] != b"PK\x03\x04":
            raise _fail(f"record {info.filename} has no local header")
        name_len, extra_len = struct.unpack_from("<HH", head, 26)
        start = info.header_offset + _LOCAL_HEADER + name_len + extra_len
        if start + info.file_size > self.file_size:
            raise _fail(f"file is truncated inside record {info.filename}")
        return start

    def read_into(self, info: zipfile.ZipInfo, out: memoryview) -> None:
        # straight from the file into out (records are stored), checksummed
        self.f.seek(self._data_start(info))
        if read_chunked(self.f, out, f"record {info.filename}", checksum=True) != info.CRC:
            raise _fail(f"record {info.filename} is corrupted (bad CRC-32)")

    def mapped_record(self, info: zipfile.ZipInfo) -> np.ndarray:
        """The bytes of a stored record, straight from the mapped file."""
        start = self._data_start(info)
        return self.mapped[start:start + info.file_size]

    def read(self, name: str) -> bytes:
        info = self.record(name)
        out = bytearray(info.file_size)
        self.read_into(info, memoryview(out))
        return bytes(out)


def read_chunked(src, out: memoryview, what: str, checksum: bool = False) -> int:
    """Fills out from src with bounded readinto calls: no intermediate
    copies, and a lying size never makes one huge read. With checksum, the
    CRC-32 of out is folded in as each chunk lands, while the chunk is still
    in L2 (a pass over the whole record afterwards would read it from memory
    again), and returned."""
    step = _CRC_CHUNK if checksum else _CHUNK
    pos = crc = 0
    while pos < len(out):
        got = src.readinto(out[pos:pos + step])
        if not got:
            raise _fail(f"file is truncated inside {what}")
        if checksum:
            crc = crc32(out[pos:pos + got], crc)
        pos += got
    return crc


def location_mapper(map_location) -> Callable[[LoadedStorage, str], LoadedStorage]:
    def default(storage: LoadedStorage, location: str) -> LoadedStorage:
        if location.startswith("cpu"):
            return storage
        if location.startswith("cuda"):
            raise RuntimeError(_CUDA_MESSAGE)
        raise RuntimeError(f"minitorch.load: cannot restore a storage saved on {location!r}; "
                           "minitorch tensors live on the CPU")

    if map_location is None:
        return default
    if isinstance(map_location, dict):
        return lambda storage, location: default(
            storage, str(map_location.get(location, location)))
    if callable(map_location):
        def call(storage: LoadedStorage, location: str) -> LoadedStorage:
            out = map_location(storage, location)
            if out is None:
                return default(storage, location)
            if not isinstance(out, LoadedStorage):
                raise RuntimeError("minitorch.load: map_location must return the storage it "
                                   f"was given or None, not {type(out).__name__}")
            return out
        return call
    return lambda storage, location: storage  # 'cpu' or device('cpu'), checked by load


class _StorageLoader:
    """persistent_load for both unpicklers: each storage record is read once."""

    def __init__(self, archive: Archive, map_location) -> None:
        self.archive = archive
        self.restore = location_mapper(map_location)
        self.loaded: Dict[str, LoadedStorage] = {}

    def __call__(self, pid) -> LoadedStorage:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError("unsupported persistent id encountered")
        _, stype, key, location, numel = pid
        if not isinstance(stype, StorageType) or type(key) is not str or type(
                location) is not str or type(numel) is not int or numel < 0:
            raise pickle.UnpicklingError(f"malformed storage reference {pid!r}")
        if key in self.loaded:
            storage = self.loaded[key]
            if storage.dtype != stype.dtype:
                raise _fail(f"storage {key} is referenced with two dtypes")
            return storage
        info = self.archive.record(f"data/{key}")
        nbytes = numel * stype.dtype.itemsize
        if info.file_size != nbytes:
            raise _fail(f"storage record data/{key} holds {info.file_size} bytes, but the "
                        f"checkpoint declares {numel} elements of {stype.dtype} ({nbytes} bytes)")
        if self.archive.mapped is not None:
            flat, raw = mapped_raw(self.archive.mapped_record(info), stype.dtype)
        else:
            flat, raw = empty_raw((numel,), stype.dtype)
            self.archive.read_into(info, raw)
        if stype.dtype == _C.bool and not check_bool(raw):
            raise _fail(f"bool storage data/{key} holds bytes other than 0 and 1")
        storage = self.restore(LoadedStorage(flat), location)
        self.loaded[key] = storage
        return storage


class FullUnpickler(pickle.Unpickler):
    """weights_only=False: a plain unpickler (it runs whatever the file names,
    as torch's does) that resolves torch's names to minitorch's."""

    def __init__(self, file, persistent_load: Callable) -> None:
        super().__init__(file)
        self._persistent = persistent_load

    def persistent_load(self, pid):
        return self._persistent(pid)

    def find_class(self, module: str, name: str):
        full = f"{module}.{name}"
        if full in allowed_globals():
            return allowed_globals()[full]
        kind = unsupported_torch_kind(full)
        if kind is not None:
            raise RuntimeError(f"minitorch.load: minitorch cannot load {kind}")
        if module == "torch" or module.startswith("torch."):
            found = from_torch(module, name)
            if found is None:
                raise RuntimeError(f"minitorch.load: {full} has no minitorch counterpart")
            return found
        return super().find_class(module, name)


def load_zip(f: BinaryIO, file_size: int, map_location, weights_only: bool,
             mmap: bool = False) -> Any:
    archive = Archive(f, file_size, mmap)
    data = io.BytesIO(archive.read("data.pkl"))
    loader = _StorageLoader(archive, map_location)
    return (WeightsUnpickler if weights_only else FullUnpickler)(data, loader).load()
