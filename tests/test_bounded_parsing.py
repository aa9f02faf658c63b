"""Parsing a safetensors header, a checkpoint's zip directory or the header
of minitorch's own earlier format costs memory
bounded by a small multiple of what the file holds, however hostile its
layout (many tiny entries, long shapes, large metadata), and a header
declaring more bytes than the file holds is refused before it is read."""
import io
import json
import struct
import tracemalloc
import zipfile

import pytest

import minitorch as mt
from minitorch.serialization import native
from minitorch.serialization.zip_reader import Archive
from minitorch.utils import safetensors as ms


def _file(header) -> bytes:
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text


def _peak(fn):
    tracemalloc.start()
    try:
        fn()
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak


def _entries(n, name=str, shape=(0,)):
    return {name(i): {"dtype": "F32", "shape": list(shape), "data_offsets": [0, 0]}
            for i in range(n)}


HOSTILE = {
    "many_tiny_entries": _entries(5000),
    "long_names": _entries(500, name=lambda i: f"{i}" + "x" * 200),
    "non_ascii_names": _entries(5000, name=lambda i: f"\u00e9{i}"),
    "astral_names": _entries(5000, name=lambda i: f"\U0001F600{i}"),
    "long_shapes": _entries(2000, shape=[0] + [1] * 15),
    "many_metadata_pairs": {"__metadata__": {f"{i}": "" for i in range(10000)}},
    "both": dict(_entries(5000), __metadata__={f"m{i}": "v" for i in range(5000)}),
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_safetensors_header_memory_is_bounded(kind):
    data = _file(HOSTILE[kind])
    header = bytes(data[8:])
    ms._parse_header(header, 0)  # warm up imports and caches
    # the header bytes are the caller's; parsing decodes them (4 bytes a
    # character once one is outside the BMP) and keeps a compact table
    peak = _peak(lambda: ms._parse_header(header, 0))
    # int64 dims of 2 characters each, or 4 bytes a character
    bound = 8 if kind in ("astral_names", "long_shapes") else 4
    assert peak < bound * len(header), (peak, len(header), peak / len(header))
    loaded = ms.load(data)
    assert len(loaded) == len([k for k in HOSTILE[kind] if k != "__metadata__"])


def test_json_loads_would_cost_far_more():
    # the bound above is not loose: the plain parse costs many times it
    header = _file(HOSTILE["many_tiny_entries"])[8:]
    peak = _peak(lambda: json.loads(header))
    assert peak > 10 * len(header)


def test_loaded_entries_keep_the_files_order_and_values():
    t = {"b": mt.arange(3.0), "a": mt.ones(2, 2, dtype=mt.int64), "c": mt.zeros(0, 5)}
    data = ms.save(t)
    got = ms.load(data)
    assert list(got) == [k for k in json.loads(data[8:8 + struct.unpack("<Q", data[:8])[0]])
                         if k != "__metadata__"]
    for k, v in t.items():
        assert got[k].dtype == v.dtype and got[k].shape == v.shape
        assert got[k].tolist() == v.tolist()


@pytest.mark.parametrize("header, match", [
    ({"a": {"dtype": "F32", "shape": [0] * 65, "data_offsets": [0, 0]}}, "malformed shape"),
    ({"a": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0, 0]}}, "malformed shape"),
    ({"a": {"dtype": "F32", "shape": [0], "data_offsets": [0]}}, "malformed shape"),
    ({"a": {"dtype": "F32", "shape": [10 ** 30], "data_offsets": [0, 0]}}, "malformed shape"),
    ({"a": {"dtype": "F32", "shape": [1e2], "data_offsets": [0, 0]}}, "malformed shape"),
    ({"a": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0], "x": 1}}, "malformed entry"),
    ({"a": {"dtype": "F32", "shape": [0]}}, "malformed entry"),
    ({"a": [1, 2]}, "expected an entry"),
    ({"__metadata__": {"k": ["v"]}}, "map strings to strings"),
    ({"__metadata__": [1]}, "map strings to strings"),
])
def test_malformed_entries_are_refused_while_streaming(header, match):
    with pytest.raises(ms.SafetensorError, match=f"invalid JSON in header: .*{match}"):
        ms.load(_file(header))


def test_repeated_names_keep_the_last_entry_as_json_does():
    text = (b'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
            b'"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}')
    text += b" " * (-len(text) % 8)
    data = struct.pack("<Q", len(text)) + text + struct.pack("<2f", 1.0, 2.0)
    assert ms.load(data)["a"].tolist() == [1.0, 2.0]


def test_metadata_null_and_whitespace_are_json():
    text = b' { "__metadata__" : null ,\n "a" : { "shape" : [ ] , "dtype" : "F64" ,' \
           b' "data_offsets" : [ 0 , 8 ] } } '
    text += b" " * (-len(text) % 8)
    data = struct.pack("<Q", len(text)) + text + struct.pack("<d", 2.5)
    assert ms.load(data)["a"].item() == 2.5


def test_header_larger_than_the_file_is_refused_before_reading(tmp_path):
    data = struct.pack("<Q", 50_000_000) + b"{}      "
    path = tmp_path / "lie.safetensors"
    path.write_bytes(data)
    peak = _peak(lambda: pytest.raises(ms.SafetensorError, ms.load_file, path))
    assert peak < 100_000
    with pytest.raises(ms.SafetensorError, match="invalid header length"):
        ms.load(data)


def _zip_of_tiny_records(n):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("a/data.pkl", b"\x80\x02}q\x00.")
        for i in range(n):
            z.writestr(f"a/{i}", b"")
    return buf.getvalue()


def test_checkpoint_directory_memory_is_bounded():
    data = _zip_of_tiny_records(5000)
    Archive(io.BytesIO(data), len(data))
    peak = _peak(lambda: Archive(io.BytesIO(data), len(data)))
    assert peak < 8 * len(data), (peak, len(data), peak / len(data))
    assert mt.load(io.BytesIO(data)) == {}


NATIVE = {
    "many_ints": [0] * 5000,
    "many_nones": [None] * 5000,
    "many_small_pairs": {f"k{i}": i for i in range(3000)},
    "nested_empty_lists": [[[]]] * 2000,
    "floats_and_bools": [1.5, True] * 2500,
}


@pytest.mark.parametrize("kind", list(NATIVE))
def test_native_header_memory_is_bounded(kind):
    buf = io.BytesIO()
    native.save(NATIVE[kind], buf)
    data = buf.getvalue()
    native.load_from(io.BytesIO(data))
    # everything load_from allocates, the file's bytes and the result included
    peak = _peak(lambda: native.load_from(io.BytesIO(data)))
    assert peak < 8 * len(data), (peak, len(data), peak / len(data))
    assert native.load_from(io.BytesIO(data)) == NATIVE[kind]


def test_native_nodes_stand_only_where_the_format_puts_them():
    import hashlib

    def forged(text):
        digest = hashlib.sha256(text).digest()
        return native._PREFIX.pack(native.MAGIC, native.VERSION, len(text), 0, digest) + text

    for text in [b'{"root":{"type":"size","value":[{"type":"int","value":"3"}]}}',
                 b'{"root":{"type":"str","value":{"type":"none"}}}',
                 b'{"root":{"type":"list","items":[{"root":{"type":"none"}}]}}',
                 b'{"root":{"type":"list","items":[1]}}',
                 b'{"type":"none"}']:
        with pytest.raises(RuntimeError, match="minitorch.load: malformed"):
            native.load_from(io.BytesIO(forged(text)))
    good = b'{"root":{"type":"size","value":[2,3]}}'
    assert native.load_from(io.BytesIO(forged(good))) == mt.Size([2, 3])
