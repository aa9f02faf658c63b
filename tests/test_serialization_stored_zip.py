"""The zip container minitorch.save writes itself (serialization/stored_zip.py)
and the CRC-32 it checksums records with (_C._crc32): zlib's values at every
length around the folding widths, from any starting value, with and without
the carry-less multiply, on 128-bit and (where the CPU has VPCLMULQDQ)
512-bit registers; archives that zipfile verifies, every record's
bytes at a multiple of 64; zip64 records (thresholds lowered so a test can
reach them) that zipfile, minitorch.load and torch.load all read; output to
a stream that cannot seek or tell."""
import io
import os
import subprocess
import sys
import zipfile
import zlib

import numpy as np
import pytest

import minitorch as mt
from minitorch import _C
from minitorch.serialization import stored_zip

LENGTHS = (list(range(0, 140)) + list(range(250, 330)) +
           [511, 512, 513, 1000, 4096, 65535, 65536 + 7, (1 << 20) + 3])


@pytest.mark.parametrize("start", [0, 1, 0xFFFFFFFF, 0x12345678])
def test_crc32_matches_zlib(start):
    rng = np.random.default_rng(start & 0xFFFF)
    for n in LENGTHS:
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert _C._crc32(data, start) == zlib.crc32(data, start), n
        # a buffer that starts off any alignment, and a running value
        view = memoryview(data)[n // 3:]
        assert _C._crc32(view, start) == zlib.crc32(view, start), n
        half = _C._crc32(data[:n // 2], start)
        assert _C._crc32(data[n // 2:], half) == zlib.crc32(data, start), n


@pytest.mark.parametrize("knob", ["MINITORCH_NO_CLMUL", "MINITORCH_NO_AVX512"])
def test_crc32_on_the_narrower_paths_matches_zlib(knob):
    # MINITORCH_NO_AVX512 keeps the 128-bit folding, MINITORCH_NO_CLMUL the bitwise loop
    fast = knob == "MINITORCH_NO_AVX512" and _C._crc32_fast()
    code = ("import zlib, numpy as np\n"
            "from minitorch import _C\n"
            f"assert _C._crc32_fast() is {fast}\n"
            "d = np.random.default_rng(1).integers(0, 256, 5000, dtype=np.uint8).tobytes()\n"
            "for n in (0, 1, 63, 64, 65, 255, 256, 257, 1000, 5000):\n"
            "    assert _C._crc32(d[:n], 7) == zlib.crc32(d[:n], 7), n\n"
            "print('ok')\n")
    env = dict(os.environ, **{knob: "1"})
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_crc32_refuses_what_is_no_contiguous_buffer():
    with pytest.raises(TypeError):
        _C._crc32("text")
    with pytest.raises((TypeError, BufferError, ValueError)):
        _C._crc32(np.arange(10, dtype=np.uint8)[::2])


def _records(names_sizes, seed=0):
    rng = np.random.default_rng(seed)
    return [(name, rng.integers(0, 256, size, dtype=np.uint8).tobytes())
            for name, size in names_sizes]


def _write(records, out=None):
    out = out if out is not None else io.BytesIO()
    w = stored_zip.StoredZipWriter(out)
    for name, data in records:
        w.add(name, data)
    w.close()
    return out


def _check_archive(raw, records):
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        assert zf.testzip() is None  # every CRC verified
        assert [i.filename for i in zf.infolist()] == [n for n, _ in records]
        for (name, data), info in zip(records, zf.infolist()):
            assert info.compress_type == zipfile.ZIP_STORED
            assert zf.read(name) == data
            # the record's bytes start at a multiple of 64
            name_len, extra_len = np.frombuffer(raw, "<u2", 2, info.header_offset + 26)
            start = info.header_offset + 30 + int(name_len) + int(extra_len)
            assert start % stored_zip.ALIGN == 0
            assert raw[start:start + len(data)] == data


def test_archive_read_back_by_zipfile():
    records = _records([("a/data.pkl", 10), ("a/x", 0), ("a/data/0", 4097), ("a/é", 3),
                        ("a/data/1", 61), ("a/data/2", 1 << 16)])
    _check_archive(_write(records).getvalue(), records)


def test_zip64_records_read_by_zipfile_minitorch_and_torch(monkeypatch, tmp_path):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(stored_zip, "ZIP64_FROM", 100)
    monkeypatch.setattr(stored_zip, "ZIP64_COUNT_FROM", 3)
    records = _records([("z/a", 10), ("z/b", 500), ("z/c", 99), ("z/d", 100), ("z/e", 3000)])
    raw = _write(records).getvalue()
    assert b"PK\x06\x06" in raw and b"PK\x06\x07" in raw  # zip64 end record and locator
    _check_archive(raw, records)

    sd = {"w": mt.arange(300, dtype=mt.float32).reshape(30, 10), "b": mt.ones(5),
          "i": mt.tensor([1, 2, 3])}
    path = tmp_path / "sd.pt"
    mt.save(sd, path)
    back = mt.load(path)
    theirs = torch.load(path)
    for k, v in sd.items():
        assert mt.equal(back[k], v)
        np.testing.assert_array_equal(theirs[k].numpy(), v.numpy())


class _Unseekable(io.RawIOBase):
    def __init__(self):
        self.chunks = []

    def writable(self):
        return True

    def write(self, b):
        self.chunks.append(bytes(b))
        return len(b)

    def tell(self):
        raise OSError("unseekable")


def test_save_to_a_stream_that_cannot_tell():
    torch = pytest.importorskip("torch")
    out = _Unseekable()
    sd = {"w": mt.randn(7, 3), "s": mt.tensor(2.5, dtype=mt.float64)}
    mt.save(sd, out)
    raw = b"".join(out.chunks)
    theirs = torch.load(io.BytesIO(raw))
    back = mt.load(io.BytesIO(raw))
    for k, v in sd.items():
        np.testing.assert_array_equal(theirs[k].numpy(), v.numpy())
        assert mt.equal(back[k], v)


def test_corrupted_record_refused_by_its_crc(tmp_path):
    path = tmp_path / "sd.pt"
    mt.save({"w": mt.arange(1000, dtype=mt.float32)}, path)
    raw = bytearray(path.read_bytes())
    at = raw.index(np.arange(1000, dtype=np.float32).tobytes()) + 100
    raw[at] ^= 0xFF
    bad = io.BytesIO(bytes(raw))
    with pytest.raises(RuntimeError, match="CRC"):
        mt.load(bad)
