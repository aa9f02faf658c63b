"""The safetensors format, read and written without the safetensors package,
with the API of safetensors.torch: save/save_file, load/load_file.

A file is an 8-byte little-endian header length, a UTF-8 JSON header
{name: {dtype, shape, data_offsets}, "__metadata__": {str: str}} padded with
spaces to a multiple of 8, then the raw little-endian tensor bytes. Loading
checks the header as the safetensors package does before allocating anything:
the offsets must tile the data exactly, in order, with no gap or overlap, and
each tensor's shape and dtype must fill its range exactly, so what load
allocates equals the file's data size (load_file maps the file instead).
"""
import json
import os
import struct
from typing import Dict, List, Optional, Tuple

import numpy as np

from .. import _C
from .._tensor import Tensor
from ..serialization.raw import check_bool, empty_raw, mapped_raw, raw_bytes
from ._safetensors_header import Header, parse

__all__ = ["SafetensorError", "save", "save_file", "load", "load_file"]

_MAX_HEADER = 100_000_000
_DTYPES = {
    "BOOL": _C.bool, "U8": _C.uint8, "I8": _C.int8, "I16": _C.int16, "F16": _C.float16,
    "BF16": _C.bfloat16, "I32": _C.int32, "F32": _C.float32, "F64": _C.float64, "I64": _C.int64,
}
_NAMES = {d: name for name, d in _DTYPES.items()}
# every dtype name of the format, in the package's order: it writes tensors by
# this order, last first, then by name
_KNOWN = ["BOOL", "F4", "F6_E2M3", "F6_E3M2", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0",
          "F8_E4M3FNUZ", "F8_E5M2FNUZ", "I16", "U16", "F16", "BF16", "I32", "U32", "F32", "C64",
          "F64", "I64", "U64"]


class SafetensorError(Exception):
    """A malformed safetensors file (the safetensors package's error type)."""


def _fail(what: str) -> SafetensorError:
    return SafetensorError(f"Error while deserializing: {what}")


# ------------------------------------------------------------------- save

def _check_tensors(tensors: Dict[str, Tensor]) -> None:
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    by_storage: Dict[int, List[Tuple[int, int, str]]] = {}
    for k, v in tensors.items():
        if not isinstance(v, Tensor):
            raise ValueError(f"Key `{k}` is invalid, expected torch.Tensor but received {type(v)}")
        if v.numel():
            base = v.data_ptr() - v.storage_offset() * v.dtype.itemsize
            by_storage.setdefault(base, []).append(
                (v.data_ptr(), v.data_ptr() + v.numel() * v.dtype.itemsize, k))
    failing = []
    for spans in by_storage.values():
        spans.sort()
        group, end = set(), -1
        for start, stop, name in spans:
            if start < end:
                group.add(name)
            else:
                if len(group) > 1:
                    failing.append(group)
                group = {name}
            end = max(end, stop)
        if len(group) > 1:
            failing.append(group)
    if failing:
        raise RuntimeError(
            "\n            Some tensors share memory, this will lead to duplicate memory on disk "
            f"and potential differences when loading them again: {failing}.\n"
            "            A potential way to correctly save your model is to use `save_model`.\n"
            "            More information at https://huggingface.co/docs/safetensors/torch_shared_tensors\n"
            "            ")
    for k, v in tensors.items():
        if not v.is_contiguous():
            raise ValueError(
                f"You are trying to save a non contiguous tensor: `{k}` which is not allowed. It "
                "either means you are trying to save tensors which are reference of each other in "
                "which case it's recommended to save only the full tensors, and reslice at load "
                "time, or simply call `.contiguous()` on your tensor to pack it before saving.")
        if v.dtype not in _NAMES:
            raise ValueError(f"safetensors cannot store tensors of dtype {v.dtype}")


def _layout(tensors: Dict[str, Tensor], metadata: Optional[Dict[str, str]]):
    _check_tensors(tensors)
    if metadata is not None and not (isinstance(metadata, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
        raise ValueError("metadata must be a dict of str to str")
    header: Dict[str, object] = {}
    if metadata:
        header["__metadata__"] = metadata
    names = sorted(tensors, key=lambda k: (-_KNOWN.index(_NAMES[tensors[k].dtype]), k))
    offset = 0
    for k in names:
        t = tensors[k]
        nbytes = t.numel() * t.dtype.itemsize
        header[k] = {"dtype": _NAMES[t.dtype], "shape": list(t.shape),
                     "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text, names


def save(tensors: Dict[str, Tensor], metadata: Optional[Dict[str, str]] = None) -> bytes:
    """The safetensors bytes of a dict of contiguous tensors that share no memory."""
    head, names = _layout(tensors, metadata)
    return head + b"".join(bytes(raw_bytes(tensors[k])) for k in names)


def save_file(tensors: Dict[str, Tensor], filename, metadata: Optional[Dict[str, str]] = None
              ) -> None:
    """Writes a dict of contiguous tensors that share no memory to a
    safetensors file."""
    head, names = _layout(tensors, metadata)
    with open(filename, "wb") as out:
        out.write(head)
        for k in names:
            out.write(raw_bytes(tensors[k]))


# ------------------------------------------------------------------- load

def _parse_header(text: bytes, data_len: int) -> Header:
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _fail(f"invalid UTF-8 in header: {e}") from None
    del text  # the caller's copy is the only one left while parsing
    entries = parse(decoded, tuple(_KNOWN), _fail)
    del decoded
    end = 0
    for name, dtype, shape, start, stop in entries:
        if start != end or stop < start:
            raise _fail(f"invalid offset for tensor `{name}`")
        numel = 1
        for s in shape:
            numel *= s
        if dtype in _DTYPES and numel * _DTYPES[dtype].itemsize != stop - start:
            raise _fail("invalid shape, data type, or offset for tensor")
        end = stop
    if end != data_len:
        raise _fail("incomplete metadata, file not fully covered")
    for name, dtype, *_ in entries:
        if dtype not in _DTYPES:
            raise _fail(f"minitorch has no dtype for the {dtype} tensor `{name}`")
    return entries


def _read_header(read, total: int):
    if total < 8:
        raise _fail("header too small")
    (n,) = struct.unpack("<Q", read(8))
    if n > _MAX_HEADER:
        raise _fail("header too large")
    if 8 + n > total:
        raise _fail("invalid header length")
    return _parse_header(read(n), total - 8 - n)


def _check_bool(name: str, dtype_name: str, raw: memoryview) -> None:
    if dtype_name == "BOOL" and not check_bool(raw):
        raise _fail(f"bool tensor `{name}` holds bytes other than 0 and 1")


def load(data: bytes) -> Dict[str, Tensor]:
    """The tensors of safetensors bytes, in the file's order."""
    view = memoryview(data).cast("B")
    pos = [0]

    def read(n: int) -> memoryview:
        pos[0] += n
        return view[pos[0] - n:pos[0]]

    entries = _read_header(lambda n: bytes(read(n)), len(view))
    base = pos[0]
    out = {}
    for name, dtype, shape, start, stop in entries:
        t, raw = empty_raw(shape, _DTYPES[dtype])
        raw[:] = view[base + start:base + stop]
        _check_bool(name, dtype, raw)
        out[name] = t
    return out


def load_file(filename, device="cpu") -> Dict[str, Tensor]:
    """The tensors of a safetensors file, in the file's order. As the
    package's, they map the file (copy-on-write) instead of reading it."""
    if str(device) != "cpu":
        raise RuntimeError(f"minitorch tensors live on the CPU, not {device!r}")
    with open(filename, "rb") as src:
        total = os.fstat(src.fileno()).st_size
        entries = _read_header(src.read, total)
        base = src.tell()
        mapped = np.memmap(src, dtype=np.uint8, mode="c")
    out = {}
    for name, dtype, shape, start, stop in entries:
        flat, raw = mapped_raw(mapped[base + start:base + stop], _DTYPES[dtype])
        _check_bool(name, dtype, raw)
        out[name] = flat.reshape(shape)
    return out
