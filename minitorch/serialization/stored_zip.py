"""The zip container of torch's checkpoint format, written directly: every
record stored (not compressed), its bytes starting at a multiple of 64 in the
file (the local header's extra field padded, as torch pads it), its CRC-32
computed once before its header is written, so nothing is written twice and
the output need not be seekable; zip64 fields where a size or an offset
needs them. zipfile's writer checksummed with zlib (a third of saving
100 MB) and rewrote each header after its data.

crc32 is the checksum the reader verifies with too: the C one where the CPU
has carry-less multiplication, zlib's otherwise.
"""
import struct
import zlib
from typing import BinaryIO, List, Tuple

from .. import _C

crc32 = _C._crc32 if _C._crc32_fast() else zlib.crc32

ALIGN = 64
# a field holding this says "see the zip64 record"
_MARK32, _MARK16 = 0xFFFFFFFF, 0xFFFF
# values from which the zip64 records carry them (module-level so tests can
# lower them)
ZIP64_FROM, ZIP64_COUNT_FROM = _MARK32, _MARK16
# 1980-01-01 00:00, the earliest DOS date (zipfile's default for a ZipInfo)
_DOS_TIME, _DOS_DATE = 0, (1 << 5) | 1
_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_END = struct.Struct("<IHHHHIIH")
_END64 = struct.Struct("<IQHHIIQQQQ")
_LOCATOR64 = struct.Struct("<IIQI")


def _field(value: int) -> int:
    """A 32-bit header field: the value, or the mark of one in the zip64 record."""
    return _MARK32 if value >= ZIP64_FROM else value


def _flags(name: str) -> int:
    """The general-purpose flags: bit 11 says the name is UTF-8 beyond ASCII."""
    return 0 if name.isascii() else 0x800


class StoredZipWriter:
    """Records added one by one with add(); close() writes the central
    directory. Offsets are counted from where the output stood at the start
    (0 for a stream that cannot tell)."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        try:
            self.pos = out.tell()
        except (AttributeError, OSError):
            self.pos = 0
        self.entries: List[Tuple[bytes, int, int, int]] = []

    def _write(self, data) -> None:
        self.out.write(data)
        self.pos += len(data)

    def add(self, name: str, data) -> None:
        data = memoryview(data).cast("B")
        size, crc, offset = len(data), crc32(data), self.pos
        encoded = name.encode("utf-8")
        zip64 = size >= ZIP64_FROM
        extra = struct.pack("<HHQQ", 1, 16, size, size) if zip64 else b""
        pad = -(offset + _LOCAL.size + len(encoded) + len(extra)) % ALIGN
        if 0 < pad < 4:  # an extra field needs 4 bytes of its own header
            pad += ALIGN
        if pad:
            extra += b"FB" + struct.pack("<H", pad - 4) + b"Z" * (pad - 4)
        shown = _MARK32 if zip64 else size
        self._write(_LOCAL.pack(0x04034B50, 45 if zip64 else 20, _flags(name), 0, _DOS_TIME,
                                _DOS_DATE, crc, shown, shown, len(encoded), len(extra)))
        self._write(encoded)
        self._write(extra)
        self._write(data)
        self.entries.append((encoded, size, crc, offset))

    def close(self) -> None:
        start = self.pos
        for encoded, size, crc, offset in self.entries:
            # zip64 fields only for the values that overflow, in this order
            fields = [v for v in (size, size, offset) if v >= ZIP64_FROM]
            extra = struct.pack("<HH%dQ" % len(fields), 1, 8 * len(fields), *fields) \
                if fields else b""
            version = 45 if fields else 20
            self._write(_CENTRAL.pack(
                0x02014B50, version, version, _flags(encoded.decode("utf-8")), 0, _DOS_TIME,
                _DOS_DATE, crc,
                _field(size), _field(size), len(encoded), len(extra), 0, 0, 0, 0, _field(offset)))
            self._write(encoded)
            self._write(extra)
        count, cd_size = len(self.entries), self.pos - start
        big = count >= ZIP64_COUNT_FROM or cd_size >= ZIP64_FROM or start >= ZIP64_FROM
        if big:
            end64 = self.pos
            self._write(_END64.pack(0x06064B50, _END64.size - 12, 45, 45, 0, 0, count, count,
                                    cd_size, start))
            self._write(_LOCATOR64.pack(0x07064B50, 0, end64, 1))
        shown = _MARK16 if big else count
        self._write(_END.pack(0x06054B50, 0, 0, shown, shown, _MARK32 if big else cd_size,
                              _MARK32 if big else start, 0))
