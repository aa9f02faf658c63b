"""minitorch's own checkpoint format (the default of minitorch.save before it
wrote torch's zip format): a file format that never runs code on load.
minitorch.load still reads it; `save` here still writes it.

Layout (all integers little-endian):

    magic    16 bytes  b"\\x93MINITORCH-SAVE\\n"
    version  u32       1
    hlen     u64       length of the header
    plen     u64       length of the payload
    digest   32 bytes  SHA-256 of header + payload
    header   hlen      UTF-8 JSON: the object's structure, tensors as
                       {dtype, shape, offset, nbytes} entries
    payload  plen      raw little-endian tensor bytes, one run per tensor

Only plain data can be saved: tensors (and nn.Parameter), None, bool, int,
float, str, bytes, list, tuple, dict, OrderedDict, minitorch.Size and dtypes.
Loading checks every declared size against the bytes actually present before
allocating, verifies the digest before parsing, decodes each header node as
json parses it (so the JSON tree is never built whole: a few times the
header's size, not fifteen), and refuses pickle files instead of unpickling
them. Tensor entries may not overlap (save never writes
overlapping runs), so what load allocates is bounded by the file's size.
"""
import base64
import hashlib
import io
import json
import os
import struct
from collections import OrderedDict
from typing import Any, BinaryIO, Dict, List, Tuple, Union

import numpy as np

from .. import _C
from .._tensor import Tensor

__all__ = ["save", "load_from"]

MAGIC = b"\x93MINITORCH-SAVE\n"
VERSION = 1
_PREFIX = struct.Struct("<16sIQQ32s")
_MAX_HEADER = 1 << 26
_CHUNK = 1 << 24
_ALIGN = 64
_MAX_DEPTH = 100

# dtype name -> (dtype, NumPy storage dtype with the same bytes)
_DTYPES: Dict[str, Tuple[Any, str]] = {
    "bool": (_C.bool, "|b1"), "uint8": (_C.uint8, "|u1"), "int8": (_C.int8, "|i1"),
    "int16": (_C.int16, "<i2"), "int32": (_C.int32, "<i4"), "int64": (_C.int64, "<i8"),
    "float16": (_C.float16, "<f2"), "bfloat16": (_C.bfloat16, "<i2"),
    "float32": (_C.float32, "<f4"), "float64": (_C.float64, "<f8"),
    "complex64": (_C.complex64, "<c8"), "complex128": (_C.complex128, "<c16"),
    "uint16": (_C.uint16, "<u2"), "uint32": (_C.uint32, "<u4"), "uint64": (_C.uint64, "<u8"),
    "complex32": (_C.complex32, "<i4"),
}
# NumPy has neither: their elements cross as integers of the same size
AS_BITS = {_C.bfloat16: _C.int16, _C.complex32: _C.int32}
_DTYPE_NAMES = {d: name for name, (d, _) in _DTYPES.items()}

FileLike = Union[str, os.PathLike, BinaryIO]


# ------------------------------------------------------------------- save

class _Writer:
    def __init__(self) -> None:
        self.chunks: List[bytes] = []
        self.size = 0
        self.active: set = set()

    def tensor(self, t: Tensor) -> Dict[str, Any]:
        from ..nn import Parameter

        name = _DTYPE_NAMES[t.dtype]
        data = t.detach().resolve_conj().contiguous()
        if t.dtype in AS_BITS:
            data = data.view(AS_BITS[t.dtype])
        raw = np.ascontiguousarray(data.numpy()).astype(_DTYPES[name][1], copy=False).tobytes()
        pad = -self.size % _ALIGN
        if pad:
            self.chunks.append(bytes(pad))
            self.size += pad
        node = {"type": "tensor", "dtype": name, "shape": list(t.shape),
                "offset": self.size, "nbytes": len(raw),
                "requires_grad": bool(t.requires_grad),
                "parameter": isinstance(t, Parameter)}
        self.chunks.append(raw)
        self.size += len(raw)
        return node

    def encode(self, obj: Any) -> Dict[str, Any]:
        if obj is None:
            return {"type": "none"}
        if isinstance(obj, Tensor):
            return self.tensor(obj)
        if isinstance(obj, bool):
            return {"type": "bool", "value": obj}
        if isinstance(obj, int):
            return {"type": "int", "value": str(int(obj))}
        if isinstance(obj, float):
            return {"type": "float", "value": float(obj).hex()}
        if isinstance(obj, str):
            return {"type": "str", "value": obj}
        if isinstance(obj, bytes):
            return {"type": "bytes", "value": base64.b64encode(obj).decode("ascii")}
        if isinstance(obj, _C.dtype):
            return {"type": "dtype", "value": _DTYPE_NAMES[obj]}
        if isinstance(obj, _C.Size):
            return {"type": "size", "value": [int(s) for s in obj]}
        kind = _container_kind(obj)
        if kind is None:
            raise TypeError(
                f"minitorch.save: cannot save an object of type {type(obj).__qualname__}; "
                "only tensors, None, bool, int, float, str, bytes, dtypes, Size and "
                "list/tuple/dict/OrderedDict of them can be saved"
            )
        if id(obj) in self.active:
            raise ValueError("minitorch.save: cannot save a container that contains itself")
        if len(self.active) >= _MAX_DEPTH:
            raise ValueError(f"minitorch.save: the object nests containers more than "
                             f"{_MAX_DEPTH} deep")
        self.active.add(id(obj))
        if kind in ("dict", "odict"):
            items = [[self.encode(k), self.encode(v)] for k, v in obj.items()]
        else:
            items = [self.encode(v) for v in obj]
        self.active.discard(id(obj))
        return {"type": kind, "items": items}


def _container_kind(obj: Any):
    if type(obj) is OrderedDict:
        return "odict"
    if type(obj) is dict:
        return "dict"
    if type(obj) is list:
        return "list"
    if type(obj) is tuple:
        return "tuple"
    return None


def save(obj: Any, f: FileLike) -> None:
    """Saves an object (tensors, state_dicts and nested containers of plain
    Python data) to a file path or a writable binary file object."""
    writer = _Writer()
    header = json.dumps({"root": writer.encode(obj)}, separators=(",", ":")).encode("utf-8")
    digest = hashlib.sha256(header)
    for chunk in writer.chunks:
        digest.update(chunk)
    prefix = _PREFIX.pack(MAGIC, VERSION, len(header), writer.size, digest.digest())

    def write(out: BinaryIO) -> None:
        out.write(prefix)
        out.write(header)
        for chunk in writer.chunks:
            out.write(chunk)

    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as out:
            write(out)
    else:
        write(f)


# ------------------------------------------------------------------- load

def _fail(what: str) -> RuntimeError:
    return RuntimeError(f"minitorch.load: {what}")


def describe_foreign(head: bytes) -> str:
    if head[:1] == b"\x80" or head[:1] in (b"(", b"]", b"}", b"c"):
        return ("this is a pickle file; minitorch.load never unpickles a pickle that is not a "
                "torch checkpoint, because unpickling can run arbitrary code")
    return "not a minitorch.save file (bad magic)"


def _remaining(f: BinaryIO):
    """Bytes left in f from its position, or None when it cannot seek."""
    try:
        if not f.seekable():
            return None
        here = f.tell()
        end = f.seek(0, io.SEEK_END)
        f.seek(here)
        return end - here
    except (AttributeError, OSError):
        return None


def _read_exact(f: BinaryIO, n: int, what: str) -> bytes:
    # Chunked, so a lying length never makes one huge allocation up front.
    parts = []
    left = n
    while left:
        part = f.read(min(left, _CHUNK))
        if not part:
            raise _fail(f"file is truncated: {what} declares {n} bytes, found {n - left}")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


class _Reader:
    def __init__(self, payload: memoryview) -> None:
        self.payload = payload
        self.runs: List[Tuple[int, int]] = []  # (offset, nbytes) of every tensor read
        self.claimed = 0

    def claim(self, offset: int, nbytes: int) -> None:
        # Every entry gets its own copy, so entries sharing bytes could make a
        # small file allocate without bound: the copies may not add up to
        # more than the payload, and overlaps are refused once all are known.
        self.claimed += nbytes
        if self.claimed > len(self.payload):
            raise _fail("tensor entries overlap in the payload")
        if nbytes:
            self.runs.append((offset, nbytes))

    def check_overlaps(self) -> None:
        end = 0
        for offset, nbytes in sorted(self.runs):
            if offset < end:
                raise _fail("tensor entries overlap in the payload")
            end = offset + nbytes

    def tensor(self, node: Dict[str, Any]) -> Tensor:
        from ..nn import Parameter

        name = node.get("dtype")
        if name not in _DTYPES:
            raise _fail(f"unknown tensor dtype {name!r}")
        dtype, np_dtype = _DTYPES[name]
        shape = node.get("shape")
        if (not isinstance(shape, list) or len(shape) > 16
                or not all(type(s) is int and s >= 0 for s in shape)):
            raise _fail(f"invalid tensor shape {shape!r}")
        offset, nbytes = node.get("offset"), node.get("nbytes")
        if type(offset) is not int or type(nbytes) is not int or offset < 0 or nbytes < 0:
            raise _fail("invalid tensor offset or size")
        numel = 1
        for s in shape:
            numel *= s
        itemsize = np.dtype(np_dtype).itemsize
        if numel * itemsize != nbytes or offset + nbytes > len(self.payload):
            raise _fail(f"tensor of shape {shape} and dtype {name} does not fit the payload")
        self.claim(offset, nbytes)
        arr = np.frombuffer(self.payload, dtype=np_dtype, count=numel, offset=offset)
        if name == "bool" and arr.view(np.uint8).max(initial=0) > 1:
            raise _fail("bool tensor holds bytes other than 0 and 1")
        arr = arr.astype(np_dtype[1:], copy=True).reshape(shape)
        t = _C._functions["from_numpy"](arr)
        if dtype in AS_BITS:
            t = t.view(dtype)
        if node.get("parameter") is True:
            return Parameter(t, requires_grad=node.get("requires_grad") is True)
        if node.get("requires_grad") is True:
            return Tensor._make_subclass(Tensor, t, True)
        return t

    def node(self, node: Dict[str, Any]) -> "_Decoded":
        """json's object_hook: decodes one node as soon as it is parsed, its
        children already decoded, so the JSON tree is never built whole (it
        would cost many times the header's size)."""
        if "type" not in node:
            if set(node) == {"root"}:
                return _Root(node["root"])
            raise _fail("malformed header")
        kind = node["type"]
        value = node.get("value")
        try:
            if kind == "none":
                return _NONE
            if kind == "bool" and isinstance(value, bool):
                return _TRUE if value else _FALSE
            if kind == "int" and isinstance(value, str) and len(value) < 4300:
                return _Decoded(int(value))
            if kind == "float" and isinstance(value, str):
                return _Decoded(float.fromhex(value))
            if kind == "str" and isinstance(value, str):
                return _Decoded(value)
            if kind == "bytes" and isinstance(value, str):
                return _Decoded(base64.b64decode(value, validate=True))
            if kind == "dtype" and isinstance(value, str) and value in _DTYPES:
                return _Decoded(_DTYPES[value][0])
            if kind == "size" and isinstance(value, list) and all(
                    type(v) is int for v in value):
                return _Decoded(_C.Size(value))
        except (ValueError, TypeError) as e:
            raise _fail(f"malformed {kind} value in header ({e})") from None
        if kind == "tensor":
            return _Decoded(self.tensor(node))
        items = node.get("items")
        if kind in ("list", "tuple", "dict", "odict") and isinstance(items, list):
            if kind in ("list", "tuple"):
                children = items
            else:
                if not all(isinstance(kv, list) and len(kv) == 2 for kv in items):
                    raise _fail("malformed dict in header")
                children = [c for kv in items for c in kv]
            if not all(type(c) is _Decoded for c in children):
                raise _fail("malformed header")
            depth = 1 + max((c.depth for c in children), default=0)
            if depth > _MAX_DEPTH:
                raise _fail("header nests containers too deeply")
            if kind == "list":
                return _Decoded([c.value for c in items], depth)
            if kind == "tuple":
                return _Decoded(tuple(c.value for c in items), depth)
            result = OrderedDict() if kind == "odict" else {}
            for k, v in items:
                try:
                    result[k.value] = v.value
                except TypeError:
                    raise _fail("unhashable dict key in header") from None
            return _Decoded(result, depth)
        raise _fail(f"malformed header entry of type {kind!r}")


class _Decoded:
    """A decoded node, told apart from the JSON values around it (a node may
    stand only where the format puts nodes) and knowing how deeply it nests
    containers."""

    __slots__ = ("value", "depth")

    def __init__(self, value: Any, depth: int = 0) -> None:
        self.value = value
        self.depth = depth


# the constants' nodes are shared: a header of many Nones costs no wrappers
_NONE, _TRUE, _FALSE = _Decoded(None), _Decoded(True), _Decoded(False)


class _Root:
    __slots__ = ("node",)

    def __init__(self, node: Any) -> None:
        self.node = node


def load_from(f: BinaryIO) -> Any:
    """Reads a native file from f's position (the magic included)."""
    prefix = f.read(_PREFIX.size)
    if prefix[:len(MAGIC)] != MAGIC:
        if prefix and MAGIC.startswith(prefix):
            raise _fail("file is truncated: incomplete header")
        raise _fail(describe_foreign(prefix))
    if len(prefix) < _PREFIX.size:
        raise _fail("file is truncated: incomplete header")
    _, version, hlen, plen, digest = _PREFIX.unpack(prefix)
    if version != VERSION:
        raise _fail(f"unsupported format version {version} (this minitorch reads {VERSION})")
    if hlen > _MAX_HEADER:
        raise _fail(f"declared header size {hlen} is implausibly large")
    left = _remaining(f)
    if left is not None and hlen + plen != left:
        if hlen + plen > left:
            raise _fail(f"file is truncated: expected {hlen + plen} bytes after the "
                        f"prefix, found {left}")
        raise _fail(f"file has {left - hlen - plen} unexpected trailing bytes")
    header = _read_exact(f, hlen, "the header")
    payload = _read_exact(f, plen, "the payload")
    check = hashlib.sha256(header)
    check.update(payload)
    if check.digest() != digest:
        raise _fail("checksum mismatch: the file is corrupted")
    reader = _Reader(memoryview(payload))
    try:
        text = header.decode("utf-8")
        del header
        root = json.loads(text, object_hook=reader.node)
    except (ValueError, TypeError, RecursionError):
        raise _fail("malformed header") from None
    if type(root) is not _Root or type(root.node) is not _Decoded:
        raise _fail("malformed header")
    reader.check_overlaps()
    return root.node.value
