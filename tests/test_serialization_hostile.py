"""Hostile zip checkpoints: minitorch.load (weights_only=True, the default)
must raise a clean exception without running code from the file and without
allocating more than about the file's size, whatever the pickle declares."""
import io
import os
import pickle
import struct
import tracemalloc
import zipfile

import pytest

import minitorch as mt


def enc(obj):
    """The protocol-2 opcodes that push obj (no PROTO, no STOP)."""
    return pickle.dumps(obj, 2)[2:-1]


def storage_ref(numel, key="0", storage="FloatStorage", location="cpu"):
    return (b"((X\x07\x00\x00\x00storage" + b"ctorch\n" + storage.encode() + b"\n"
            + enc(key) + enc(location) + enc(numel) + b"tQ")


def tensor_pkl(numel, size, stride, offset=0, **ref):
    return (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n" + storage_ref(numel, **ref)
            + enc(offset) + enc(tuple(size)) + enc(tuple(stride))
            + b"\x89ccollections\nOrderedDict\n)RtR.")


def archive(pkl, records=None, compression=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        zf.writestr("archive/data.pkl", pkl)
        for name, data in (records or {}).items():
            zf.writestr(f"archive/data/{name}", data)
        zf.writestr("archive/version", b"3\n")
    return buf.getvalue()


def load(data, **kw):
    return mt.load(io.BytesIO(data), **kw)


def failure_and_peak(data):
    """The RuntimeError loading data raises, and the peak of Python memory
    allocated meanwhile."""
    tracemalloc.start()
    try:
        with pytest.raises(RuntimeError) as info:
            load(data)
        return info.value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_forging_helpers_make_a_valid_checkpoint():
    data = archive(tensor_pkl(4, (2, 2), (2, 1)), {"0": struct.pack("<4f", 1, 2, 3, 4)})
    assert load(data).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    torch = pytest.importorskip("torch")
    assert torch.load(io.BytesIO(data)).tolist() == [[1.0, 2.0], [3.0, 4.0]]


class Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_code_in_a_checkpoint_never_runs(tmp_path):
    torch = pytest.importorskip("torch")
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pt"
    torch.save({"w": torch.ones(2), "x": Evil(marker)}, path)
    for kwargs in [{}, {"weights_only": True}, {"weights_only": None}]:
        with pytest.raises(pickle.UnpicklingError) as info:
            mt.load(path, **kwargs)
        assert f"Unsupported global: GLOBAL {os.system.__module__}.system was not an allowed " \
               "global by default" in str(info.value)
    assert not marker.exists()
    # a pickle that is no torch checkpoint is refused even with weights_only=False
    for protocol in [0, 2, 5]:
        path.write_bytes(pickle.dumps(Evil(marker), protocol))
        with pytest.raises((RuntimeError, pickle.UnpicklingError),
                           match="never unpickles|Unsupported global"):
            mt.load(path, weights_only=False)
    assert not marker.exists()


@pytest.mark.parametrize("pkl,match", [
    # GLOBAL of anything off the allow list
    (b"\x80\x02cbuiltins\neval\nX\x01\x00\x00\x001\x85R.", "Unsupported global: GLOBAL eval"),
    (b"\x80\x02c__builtin__\ngetattr\n.", "Unsupported global: GLOBAL getattr"),
    (b"\x80\x04\x8c\x02os\x8c\x06system\x93.", "Unsupported global: GLOBAL os.system"),
    (b"\x80\x02ctorch._utils\n_rebuild_sparse_tensor\n.", "cannot load this kind of tensor"),
    (b"\x80\x02ctorch\nComplexHalfStorage\n.", "cannot load storages"),
    # INST and OBJ call what they name; extensions look names up elsewhere
    (b"(S'touch /tmp/x'\nios\nsystem\n.", "Unsupported operand"),
    (b"\x80\x02(cos\nsystem\nX\x01\x00\x00\x00xo.", "Unsupported global"),
    (b"\x80\x02\x82\x01.", "Unsupported operand"),
    (b"\x80\x02X\x01\x00\x00\x00aP.", "Unsupported operand"),
    # REDUCE/NEWOBJ/BUILD on what the allow list did not give
    (b"\x80\x02]X\x01\x00\x00\x00a\x85R.", "reduce for unrecognized function"),
    (b"\x80\x02ccollections\nOrderedDict\n}X\x01\x00\x00\x00a\x88sb.", "Can only build"),
    (b"\x80\x02cbuiltins\nset\n)R}X\x01\x00\x00\x00a\x88sb.", "Can only build"),
    (b"\x80\x02ccollections\nOrderedDict\n}X\x09\x00\x00\x00__class__K\x01sb.", "Can only build"),
    (b"\x80\x02ccollections\nOrderedDict\n)R}X\x08\x00\x00\x00__dict__K\x01sb.", "Invalid state"),
    (b"\x80\x02ctorch\nfloat32\n)\x81.", "Can only create new object"),
    (b"\x80\x02c_codecs\nencode\nX\x01\x00\x00\x00aX\x04\x00\x00\x00zlib\x86R.",
     "only allowed for latin1"),
    # allowed names that would allocate what the file never held
    (b"\x80\x02ctorch\nTensor\nJ\x00\xca\x9a;\x85R.", "reduce for unrecognized function"),
    (b"\x80\x02ctorch\nTensor\nJ\x00\xca\x9a;\x85\x81.", "Can only create new object"),
    (b"\x80\x02ctorch.nn.parameter\nParameter\nJ\x00\xca\x9a;\x85\x81.", "malformed pickle"),
    (b"\x80\x02cbuiltins\nbytearray\nJ\x00\xca\x9a;\x85R.", "only allowed from bytes"),
    # malformed streams
    (b"\x80\x02h\x07.", "Memo value not found"),
    (b"\x80\x02\xff.", "malformed pickle"),
    (b"\x80\x02(t", "malformed pickle"),
    (b"\x80\x02X\xff\xff\xff\x7fabc.", "malformed pickle"),
    (b"\x80\x02(X\x03\x00\x00\x00abctQ.", "persistent id"),
])
def test_forbidden_and_malformed_pickles(pkl, match):
    with pytest.raises((pickle.UnpicklingError, RuntimeError), match=match) as info:
        load(archive(pkl))
    if isinstance(info.value, pickle.UnpicklingError):
        assert str(info.value).startswith("Weights only load failed.")


def test_build_cannot_change_allowed_classes():
    from collections import OrderedDict

    pkl = b"\x80\x02ccollections\nOrderedDict\n}X\x04\x00\x00\x00keysK\x01s\x86b."
    with pytest.raises(pickle.UnpicklingError):
        load(archive(pkl))
    assert callable(OrderedDict.keys)


@pytest.mark.parametrize("numel", [10 ** 12, 2 ** 62, 3, 1])
def test_declared_storage_sizes_are_checked_against_the_record(numel):
    data = archive(tensor_pkl(numel, (numel,), (1,)), {"0": bytes(8)})
    error, peak = failure_and_peak(data)
    assert "holds 8 bytes, but the checkpoint declares" in str(error)
    assert peak < 1 << 20


@pytest.mark.parametrize("size,stride,offset", [
    ((3,), (1,), 0), ((2,), (1,), 1), ((2, 2), (1, 1 << 40), 0), ((1 << 40,), (0,), 2),
    ((2,), (-1,), 1), ((-1,), (1,), 0), ((2,), (1,), -1), ((2, 1), (1,), 0),
    ((2.0,), (1,), 0), ((1,) * 65, (1,) * 65, 0),
])
def test_views_must_fit_their_storage(size, stride, offset):
    data = archive(tensor_pkl(2, size, stride, offset), {"0": bytes(8)})
    with pytest.raises((RuntimeError, pickle.UnpicklingError), match="tensor|offset"):
        load(data)


def test_views_may_fill_their_storage_exactly():
    data = archive(tensor_pkl(4, (2,), (2,), 1), {"0": struct.pack("<4f", 1, 2, 3, 4)})
    assert load(data).tolist() == [2.0, 4.0]
    data = archive(tensor_pkl(0, (0, 5), (5, 1), 0), {"0": b""})
    assert load(data).shape == (0, 5)


def test_missing_records_bad_storage_types_and_bool_bytes():
    with pytest.raises(RuntimeError, match="failed locating file data/7"):
        load(archive(tensor_pkl(2, (2,), (1,), key="7"), {"0": bytes(8)}))
    with pytest.raises(RuntimeError, match="failed locating file data.pkl"):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("archive/other", b"x")
        load(buf.getvalue())
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global"):
        load(archive(tensor_pkl(2, (2,), (1,), storage="Evil"), {"0": bytes(8)}))
    with pytest.raises(RuntimeError, match="bool storage data/0 holds bytes other than 0 and 1"):
        load(archive(tensor_pkl(2, (2,), (1,), storage="BoolStorage"), {"0": b"\x01\x02"}))
    with pytest.raises(pickle.UnpicklingError, match="malformed storage reference"):
        load(archive(tensor_pkl(-1, (0,), (1,)), {"0": b""}))
    with pytest.raises(RuntimeError, match="does not refer to a storage record"):
        load(archive(b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(K\x00K\x00)))\x89NtR."))


def test_truncated_archives():
    data = archive(tensor_pkl(4, (4,), (1,)), {"0": bytes(16)})
    assert load(data).tolist() == [0.0] * 4
    for n in list(range(4, len(data), 7)) + [len(data) - 1]:
        with pytest.raises(RuntimeError, match="PytorchStreamReader failed reading zip archive"):
            load(data[:n])


def test_corrupted_record_bytes_fail_the_crc():
    data = bytearray(archive(tensor_pkl(4, (4,), (1,)), {"0": b"\x11" * 16}))
    pos = bytes(data).index(b"\x11" * 16)
    data[pos + 3] ^= 0xFF
    with pytest.raises(RuntimeError, match="record archive/data/0 is corrupted"):
        load(bytes(data))


def central_entries(data):
    """Where each record's central directory entry starts, by name."""
    out = {}
    cd = bytes(data).find(b"PK\x01\x02")
    while cd >= 0:
        name_len = struct.unpack_from("<H", data, cd + 28)[0]
        out[bytes(data[cd + 46:cd + 46 + name_len])] = cd
        cd = bytes(data).find(b"PK\x01\x02", cd + 4)
    return out


def test_records_reaching_past_the_end_are_refused():
    data = bytearray(archive(tensor_pkl(4, (4,), (1,)), {"0": bytes(16)}))
    # the central directory says data/0 holds 1 GiB
    struct.pack_into("<II", data, central_entries(data)[b"archive/data/0"] + 20, 1 << 30, 1 << 30)
    with pytest.raises(RuntimeError, match="minitorch.load: file is truncated: record"):
        load(bytes(data))


@pytest.mark.parametrize("record", ["archive/data/0", "archive/data.pkl"])
def test_a_record_cannot_claim_more_bytes_than_it_stores(record):
    data = bytearray(archive(tensor_pkl(4, (4,), (1,)), {"0": bytes(16)}))
    # uncompressed size: 2 GiB
    struct.pack_into("<I", data, central_entries(data)[record.encode()] + 24, 1 << 31)
    error, peak = failure_and_peak(bytes(data))
    assert "declares 2147483648 bytes but stores" in str(error) and peak < 1 << 20


def test_a_compressed_zip_bomb_is_refused_without_inflating():
    big = 64 << 20
    data = archive(tensor_pkl(big // 4, (big // 4,), (1,)), {"0": bytes(big)},
                   compression=zipfile.ZIP_DEFLATED)
    assert len(data) < big // 100
    error, peak = failure_and_peak(data)
    assert "compressed" in str(error)
    assert peak < 4 * len(data) + (1 << 20)


def test_overlapping_records_are_refused():
    # two directory entries naming the same bytes: every storage would be a
    # new copy of them, so a small file could allocate without bound
    payload = bytes(1 << 16)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", tensor_pkl(len(payload) // 4, (1,), (1,)))
        zf.writestr("archive/data/0", payload)
        zf.writestr("archive/data/1", b"")
    data = bytearray(buf.getvalue())
    offsets = central_entries(data)
    zero = struct.unpack_from("<I", data, offsets[b"archive/data/0"] + 42)[0]
    struct.pack_into("<I", data, offsets[b"archive/data/1"] + 42, zero)
    struct.pack_into("<II", data, offsets[b"archive/data/1"] + 20, len(payload), len(payload))
    with pytest.raises(RuntimeError, match="records overlap"):
        load(bytes(data))


def test_weights_only_false_still_checks_the_archive():
    data = archive(tensor_pkl(10 ** 12, (1,), (1,)), {"0": bytes(8)})
    with pytest.raises(RuntimeError, match="declares"):
        load(data, weights_only=False)
    with pytest.raises(RuntimeError, match="does not fit its storage"):
        load(archive(tensor_pkl(2, (3,), (1,)), {"0": bytes(8)}), weights_only=False)


# ------------------------------------------------- torch's legacy non-zip format

LEGACY_HEAD = (pickle.dumps(0x1950a86a20f9469cfc6c, 2) + pickle.dumps(1001, 2)
               + pickle.dumps({"protocol_version": 1001, "little_endian": True}, 2))


def legacy_tensor(numel, size, key="k", storage="FloatStorage"):
    ref = (b"((X\x07\x00\x00\x00storage" + b"ctorch\n" + storage.encode() + b"\n"
           + enc(key) + enc("cpu") + enc(numel) + b"NtQ")
    return (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n" + ref + enc(0) + enc(tuple(size))
            + enc((1,) * len(size)) + b"\x89ccollections\nOrderedDict\n)RtR.")


def legacy(pkl, keys=("k",), data=b""):
    return LEGACY_HEAD + pkl + pickle.dumps(list(keys), 2) + data


def test_the_legacy_forging_helpers_make_a_valid_checkpoint():
    data = legacy(legacy_tensor(2, (2,)), data=struct.pack("<q2f", 2, 1.5, 2.5))
    assert load(data).tolist() == [1.5, 2.5]
    torch = pytest.importorskip("torch")
    assert torch.load(io.BytesIO(data)).tolist() == [1.5, 2.5]


@pytest.mark.parametrize("data,match", [
    (legacy(legacy_tensor(10 ** 12, (1,)), data=bytes(16)), "more than the rest of the file"),
    (legacy(legacy_tensor(2, (2,)), data=struct.pack("<q", 2) + bytes(4)), "truncated inside"),
    (legacy(legacy_tensor(2, (2,)), data=bytes(3)), "truncated before storage"),
    (legacy(legacy_tensor(2, (2,)), data=struct.pack("<q2f", 3, 0, 0)), "wrong size"),
    (legacy(legacy_tensor(2, (2,)), keys=("z",), data=bytes(16)), "not found"),
    (legacy(legacy_tensor(2, (3,)), data=struct.pack("<q2f", 2, 0, 0)), "does not fit"),
    (legacy(legacy_tensor(2, (2,), storage="BoolStorage"), data=struct.pack("<q", 2) + b"\x03\x00"),
     "bool storage"),
    (pickle.dumps(12345, 2) + LEGACY_HEAD[20:], "Invalid magic number"),
    (LEGACY_HEAD[:20] + pickle.dumps(7, 2), "Invalid protocol version"),
    (LEGACY_HEAD[:5], "pickle data was truncated|malformed"),
    (LEGACY_HEAD + b"\x80\x02cos\nsystem\nX\x02\x00\x00\x00idtR.", "Unsupported global"),
])
def test_hostile_legacy_files(data, match):
    with pytest.raises((RuntimeError, pickle.UnpicklingError), match=match):
        load(data)


def test_a_huge_legacy_storage_is_refused_before_allocating():
    data = legacy(legacy_tensor(10 ** 12, (1,)), data=bytes(16))
    error, peak = failure_and_peak(data)
    assert "more than the rest of the file" in str(error) and peak < 1 << 20
    # many storages that each fit the file but not together
    many = b"\x80\x02(" + b"".join(legacy_tensor(4, (4,), key=str(i))[2:-1] for i in range(50))
    data = legacy(many + b"l.", keys=[str(i) for i in range(50)], data=bytes(24 * 3))
    with pytest.raises(RuntimeError, match="more than the rest of the file"):
        load(data)


def test_listing_unsafe_globals_runs_nothing(tmp_path):
    marker = tmp_path / "ran"
    data = archive(b"\x80\x02cos\nsystem\nX\x05\x00\x00\x00touch\x85R."
                   .replace(b"X\x05\x00\x00\x00touch", enc(f"touch {marker}")))
    assert mt.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)) == ["os.system"]
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError, match="malformed pickle"):
        mt.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(archive(b"\x80\x02cos\n")))
