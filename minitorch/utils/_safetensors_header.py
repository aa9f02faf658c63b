"""Parses a safetensors header in one pass over its text with memory bounded
by a small multiple of the header's size, whatever the header holds.

json.loads would build a dict, a list and several ints per tensor: about 34
times the header's size for a hostile header of many tiny entries. Here each
entry is read token by token and kept only as its name plus machine integers
(offsets, dtype code and dims in arrays), shapes may have at most 64 dims
and offsets exactly two, and __metadata__ is checked without being kept
(load never returns it). The checks and their messages are those of the
safetensors package, as before.
"""
import re
from array import array
from json import JSONDecodeError
from json.decoder import scanstring
from typing import Callable, Dict, Iterator, Tuple

import numpy as np

_SPACE = re.compile(r"[ \t\n\r]*")
# JSON's number grammar; a fraction or exponent makes it a float, never a size
_NUMBER = re.compile(r"(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?")
_MAX_DIMS = 64
_MAX_DIGITS = 19  # sizes and offsets are int64
_FIELDS = ("dtype", "shape", "data_offsets")

Entry = Tuple[str, str, Tuple[int, ...], int, int]


class _Malformed(Exception):
    pass


class _Reader:
    """A cursor over the header text; every method raises _Malformed
    (message after "invalid JSON in header: ") on what it does not expect."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip(self) -> str:
        self.pos = _SPACE.match(self.text, self.pos).end()
        return self.text[self.pos:self.pos + 1]

    def expect(self, char: str, what: str) -> None:
        if self.skip() != char:
            raise _Malformed(f"expected {what} at character {self.pos}")
        self.pos += 1

    def string(self) -> str:
        self.expect('"', "a string")
        try:
            value, self.pos = scanstring(self.text, self.pos)
        except JSONDecodeError as e:
            raise _Malformed(str(e)) from None
        return value

    def members(self, what: str) -> Iterator[str]:
        """The keys of an object, each left with the cursor on its value."""
        self.expect("{", what)
        if self.skip() == "}":
            self.pos += 1
            return
        while True:
            key = self.string()
            self.expect(":", "':'")
            yield key
            if self.skip() == ",":
                self.pos += 1
                continue
            self.expect("}", "',' or '}'")
            return

    def size(self, malformed: str) -> int:
        self.skip()
        m = _NUMBER.match(self.text, self.pos)
        if m is None or m.group(2) or m.group(3) or m.group(1)[0] == "-" or len(
                m.group(1)) > _MAX_DIGITS:
            raise _Malformed(malformed)
        self.pos = m.end()
        return int(m.group(1))

    def sizes(self, most: int, malformed: str) -> array:
        out = array("q")
        self.expect("[", "a list")
        if self.skip() == "]":
            self.pos += 1
            return out
        while True:
            if len(out) == most:
                raise _Malformed(malformed)
            out.append(self.size(malformed))
            if self.skip() == ",":
                self.pos += 1
                continue
            self.expect("]", "',' or ']'")
            return out

    def null(self) -> bool:
        if self.text.startswith("null", self.pos):
            self.pos += 4
            return True
        return False


class Header:
    """The tensors a header declares, in one compact table."""

    def __init__(self, known: Tuple[str, ...]) -> None:
        self.known = known
        self.index: Dict[str, int] = {}  # a repeated name keeps its last entry, as JSON's
        self.starts = array("q")
        self.stops = array("q")
        self.dtypes = bytearray()
        self.dims = array("q")
        self.dims_at = array("q", [0])

    def add(self, name: str, r: _Reader) -> None:
        dtype = shape = offsets = None
        malformed = f"malformed shape or offsets for tensor `{name}`"
        for field in r.members(f"an entry for tensor `{name}`"):
            if field == "dtype" and dtype is None:
                dtype = r.string()
                if dtype not in self.known:
                    raise _Malformed(f"unknown dtype {dtype!r}")
            elif field == "shape" and shape is None:
                shape = r.sizes(_MAX_DIMS, malformed)
            elif field == "data_offsets" and offsets is None:
                offsets = r.sizes(2, malformed)
            else:
                raise _Malformed(f"malformed entry for tensor `{name}`")
        if dtype is None or shape is None or offsets is None:
            raise _Malformed(f"malformed entry for tensor `{name}`")
        if len(offsets) != 2:
            raise _Malformed(malformed)
        self.index[name] = len(self.starts)
        self.starts.append(offsets[0])
        self.stops.append(offsets[1])
        self.dtypes.append(self.known.index(dtype))
        self.dims.extend(shape)
        self.dims_at.append(len(self.dims))

    def __len__(self) -> int:
        return len(self.index)

    def __iter__(self) -> Iterator[Entry]:
        """The entries by their offsets, which is the file's order."""
        n = len(self.starts)
        names = [""] * n
        for name, i in self.index.items():
            names[i] = name
        live = np.fromiter(self.index.values(), dtype=np.int64, count=len(self.index))
        starts = np.frombuffer(self.starts, dtype=np.int64) if n else np.empty(0, np.int64)
        stops = np.frombuffer(self.stops, dtype=np.int64) if n else np.empty(0, np.int64)
        for i in live[np.lexsort((stops[live], starts[live]))].tolist():
            shape = tuple(self.dims[self.dims_at[i]:self.dims_at[i + 1]])
            yield names[i], self.known[self.dtypes[i]], shape, self.starts[i], self.stops[i]


def parse(text: str, known: Tuple[str, ...], fail: Callable[[str], Exception]) -> Header:
    """The header's tensor table; fail(message) is raised on bad input."""
    r = _Reader(text)
    header = Header(known)
    try:
        for name in r.members("an object"):
            if name == "__metadata__":
                r.skip()
                if not r.null():
                    for _ in r.members("__metadata__ to map strings to strings"):
                        if r.skip() != '"':
                            raise _Malformed("__metadata__ must map strings to strings")
                        r.string()
            else:
                header.add(name, r)
        if r.skip():
            raise _Malformed(f"extra data at character {r.pos}")
    except _Malformed as e:
        raise fail(f"invalid JSON in header: {e}") from None
    return header
