"""minitorch.save / minitorch.load: bit-exact round trips, and hostile files in
minitorch's own format (serialization/native.py, still readable) that must
fail cleanly without running code or allocating what they claim. torch's zip
format is tested in test_serialization_torch.py."""
import collections
import io
import math
import os
import pickle
import struct

import numpy as np
import pytest

import minitorch as mt
from minitorch.serialization import native

from checkpoint_helpers import Unseekable

ALL_DTYPES = [mt.bool, mt.uint8, mt.int8, mt.int16, mt.int32, mt.int64, mt.float16,
              mt.bfloat16, mt.float32, mt.float64]


def round_trip(obj):
    buf = io.BytesIO()
    mt.save(obj, buf)
    buf.seek(0)
    return mt.load(buf)


def bits(t):
    t = t.detach().contiguous()
    if t.dtype == mt.bfloat16:
        t = t.view(mt.int16)
    return t.numpy().tobytes()


def assert_identical(a, b):
    if isinstance(a, mt.Tensor):
        assert type(b) is type(a) and a.dtype == b.dtype and a.shape == b.shape
        assert bits(a) == bits(b)
        assert a.requires_grad == b.requires_grad
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b)
    elif isinstance(a, (list, tuple)):
        assert type(b) is type(a) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_identical(x, y)
    elif isinstance(a, dict):
        assert type(b) is type(a) and list(a.keys()) == list(b.keys())
        for k in a:
            assert_identical(a[k], b[k])
    else:
        assert type(b) is type(a) and a == b


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (7,), (4, 5)])
def test_every_dtype_round_trips_bit_exact(dtype, shape):
    rng = np.random.default_rng(0)
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    if dtype == mt.bool:
        raw &= 1
    # Arbitrary bit patterns, NaN payloads and signed zeros included.
    storage = {1: mt.uint8, 2: mt.int16, 4: mt.int32, 8: mt.int64}[dtype.itemsize]
    np_storage = np.dtype(str(storage).split(".")[1])
    t = mt.from_numpy(raw.view(np_storage).reshape(shape).copy()).view(dtype)
    assert_identical(t, round_trip(t))


def test_non_contiguous_and_views():
    base = mt.arange(24.0).reshape(4, 6)
    for t in [base.t(), base[::2, 1::3], base[1], base.expand(2, 4, 6)]:
        out = round_trip(t)  # torch's format keeps the strides, as torch does
        assert out.stride() == t.stride() and out.tolist() == t.tolist()
        buf = io.BytesIO()
        native.save(t, buf)
        out = mt.load(io.BytesIO(buf.getvalue()))
        assert out.is_contiguous() and out.tolist() == t.tolist()


def test_state_dict_and_nested_structures():
    sd = collections.OrderedDict()
    sd["layer.weight"] = mt.randn(3, 4)
    sd["layer.bias"] = mt.zeros(3, dtype=mt.float64)
    sd["steps"] = mt.tensor(5)
    obj = {
        "model": sd,
        "optim": {"state": {0: {"step": mt.tensor(3.0), "exp_avg": mt.ones(2)}},
                  "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "params": [0, 1],
                                    "nesterov": False, "foreach": None}]},
        "numbers": [0, -1, 2 ** 100, 1.5, -0.0, float("inf"), float("nan"), 1e-310],
        "text": ["", "héllo ✓", "\x00"],
        "misc": (None, True, False, b"\x00\xffbytes", mt.float16, mt.Size([2, 3])),
        1: "int key", (1, "a"): "tuple key", None: "none key",
    }
    assert_identical(obj, round_trip(obj))
    assert math.copysign(1, round_trip(-0.0)) == -1


def test_parameters_and_requires_grad():
    p = mt.nn.Parameter(mt.ones(2, 2))
    q = mt.nn.Parameter(mt.ones(2), requires_grad=False)
    t = mt.ones(3, requires_grad=True)
    out = round_trip([p, q, t, mt.ones(1)])
    assert type(out[0]) is mt.nn.Parameter and out[0].requires_grad
    assert type(out[1]) is mt.nn.Parameter and not out[1].requires_grad
    assert type(out[2]) is mt.Tensor and out[2].requires_grad
    assert not out[3].requires_grad


def test_path_and_loaded_tensors_are_independent(tmp_path):
    path = tmp_path / "ckpt.mt"
    t = mt.arange(6.0)
    mt.save({"t": t}, path)
    mt.save({"t": t}, str(path) + "2")
    a, b = mt.load(path)["t"], mt.load(str(path) + "2")["t"]
    a[0] = 100.0
    assert b[0].item() == 0.0 and t[0].item() == 0.0
    assert mt.load(path, map_location="cpu")["t"].tolist() == t.tolist()


def test_unsupported_objects_refused_by_the_native_writer():
    for bad in [object(), {1, 2}, lambda: 0, np.ones(2), collections.defaultdict(int)]:
        with pytest.raises(TypeError, match="minitorch.save: cannot save an object of type"):
            native.save(bad, io.BytesIO())
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="contains itself"):
        native.save(loop, io.BytesIO())


def test_shared_containers_are_saved_twice():
    inner = [1, 2]
    out = round_trip([inner, inner])
    assert out == [[1, 2], [1, 2]]


# ------------------------------------------------------------------ hostile files

def saved_bytes(obj=None):
    buf = io.BytesIO()
    native.save({"w": mt.arange(100.0), "n": 3} if obj is None else obj, buf)
    return buf.getvalue()


def load_bytes(data):
    return mt.load(io.BytesIO(data))


def test_truncated_files():
    data = saved_bytes()
    for n in [0, 3, 20, native._PREFIX.size, native._PREFIX.size + 5,
              len(data) - 1]:
        with pytest.raises(RuntimeError, match="minitorch.load: "):
            load_bytes(data[:n])
    with pytest.raises(RuntimeError, match="truncated"):
        load_bytes(data[:-10])
    with pytest.raises(RuntimeError, match="trailing bytes"):
        load_bytes(data + b"x")


def test_every_bit_flip_is_detected():
    data = bytearray(saved_bytes({"w": mt.arange(4.0)}))
    rng = np.random.default_rng(0)
    positions = set(range(native._PREFIX.size)) | set(rng.integers(0, len(data), 200).tolist())
    for pos in positions:
        bad = bytearray(data)
        bad[pos] ^= 1 << int(rng.integers(0, 8))
        with pytest.raises(RuntimeError, match="minitorch.load: "):
            load_bytes(bytes(bad))


def test_wrong_magic_and_version():
    data = saved_bytes()
    with pytest.raises(RuntimeError, match="bad magic"):
        load_bytes(b"GARBAGE!" + data[8:])
    with pytest.raises(RuntimeError, match="bad magic"):
        load_bytes(b"hello world, this is not a checkpoint at all.")
    bad = bytearray(data)
    bad[16:20] = struct.pack("<I", 99)
    with pytest.raises(RuntimeError, match="unsupported format version 99"):
        load_bytes(bytes(bad))


def test_pickle_files_are_refused_never_unpickled(tmp_path, monkeypatch):
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    called = []
    monkeypatch.setattr(pickle, "loads", lambda *a, **k: called.append(a))
    monkeypatch.setattr(pickle, "load", lambda *a, **k: called.append(a))
    for protocol in [0, 2, pickle.HIGHEST_PROTOCOL]:
        payload = pickle.dumps(Evil(), protocol=protocol)
        path = tmp_path / f"evil{protocol}.pt"
        path.write_bytes(payload)
        for weights_only in [True, False]:
            if protocol == 2:
                # torch's legacy format is protocol-2 pickles: its leading
                # pickles are read allow-listed, so Evil is refused
                with pytest.raises(pickle.UnpicklingError, match=f"GLOBAL {os.system.__module__}.system"):
                    mt.load(path, weights_only=weights_only)
                continue
            with pytest.raises(RuntimeError, match="pickle file; minitorch.load never unpickles"):
                mt.load(path, weights_only=weights_only)
            with pytest.raises(RuntimeError, match="never unpickles"):
                load_bytes(payload)
    assert not marker.exists() and called == []


def test_torch_zip_checkpoints_are_read(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "torch.pt"
    torch.save({"w": torch.arange(3.0)}, path)
    assert mt.load(path)["w"].tolist() == [0.0, 1.0, 2.0]


def forge(header_obj, payload=b"", hlen=None, plen=None, digest=None):
    """A file with a valid layout around an arbitrary header/payload."""
    import hashlib
    import json

    header = json.dumps(header_obj).encode() if not isinstance(header_obj, bytes) else header_obj
    if digest is None:
        digest = hashlib.sha256(header + payload).digest()
    prefix = native._PREFIX.pack(native.MAGIC, 1,
                                        len(header) if hlen is None else hlen,
                                        len(payload) if plen is None else plen, digest)
    return prefix + header + payload


def test_huge_declared_sizes_fail_before_allocating(tmp_path):
    small = forge({"root": {"type": "none"}})
    assert load_bytes(small) is None
    for hlen, plen in [(2 ** 62, 0), (10, 2 ** 63), (2 ** 29, 2 ** 40)]:
        data = forge({"root": {"type": "none"}}, hlen=hlen, plen=plen)
        with pytest.raises(RuntimeError, match="minitorch.load: "):
            load_bytes(data)
        path = tmp_path / "huge.mt"
        path.write_bytes(data)
        with pytest.raises(RuntimeError, match="minitorch.load: "):
            mt.load(path)

    with pytest.raises(RuntimeError, match="truncated"):
        mt.load(Unseekable(forge({"root": {"type": "none"}}, plen=2 ** 40)))
    assert mt.load(Unseekable(saved_bytes([1, mt.ones(2)])))[1].tolist() == [1.0, 1.0]


@pytest.mark.parametrize("node", [
    {"type": "tensor", "dtype": "float32", "shape": [2 ** 40], "offset": 0, "nbytes": 2 ** 42},
    {"type": "tensor", "dtype": "float32", "shape": [4], "offset": 0, "nbytes": 8},
    {"type": "tensor", "dtype": "float32", "shape": [2], "offset": 4, "nbytes": 8},
    {"type": "tensor", "dtype": "float32", "shape": [-2], "offset": 0, "nbytes": 8},
    {"type": "tensor", "dtype": "float32", "shape": [1.5], "offset": 0, "nbytes": 8},
    {"type": "tensor", "dtype": "float32", "shape": [1] * 40, "offset": 0, "nbytes": 4},
    {"type": "tensor", "dtype": "object", "shape": [1], "offset": 0, "nbytes": 8},
    {"type": "tensor", "dtype": "bool", "shape": [8], "offset": 0, "nbytes": 8},
    {"type": "tensor", "dtype": "float32", "shape": [2], "offset": -1, "nbytes": 8},
    {"type": "pickle", "value": "gASV"},
    {"type": "int", "value": "1" * 10000},
    {"type": "float", "value": "not a float"},
    {"type": "dict", "items": [[{"type": "list", "items": []}, {"type": "none"}]]},
    {"type": "dict", "items": [[{"type": "none"}]]},
    {"type": "list", "items": "abc"},
    [1, 2],
    "root",
])
def test_malformed_headers_with_valid_checksum(node):
    with pytest.raises(RuntimeError, match="minitorch.load: "):
        load_bytes(forge({"root": node}, payload=b"\x02" * 8))


def nested_list(depth):
    out = None
    for _ in range(depth):
        out = [out]
    return out


def test_deep_nesting_and_bad_json():
    def nested(depth):
        return (b'{"root":' + b'{"type":"list","items":[' * depth + b'{"type":"none"}'
                + b"]}" * depth + b"}")

    assert load_bytes(forge(nested(50))) == nested_list(50)
    with pytest.raises(ValueError, match="nests containers more than 100 deep"):
        native.save(nested_list(150), io.BytesIO())
    with pytest.raises(RuntimeError, match="nests containers too deeply"):
        load_bytes(forge(nested(150)))
    with pytest.raises(RuntimeError, match="minitorch.load: "):
        load_bytes(forge(nested(5000)))
    with pytest.raises(RuntimeError, match="malformed header"):
        load_bytes(forge(b"{not json"))
    with pytest.raises(RuntimeError, match="malformed header"):
        load_bytes(forge(b"\xff\xfe"))
    with pytest.raises(RuntimeError, match="checksum mismatch"):
        load_bytes(forge({"root": {"type": "none"}}, digest=b"\x00" * 32))


def test_overlapping_entries_are_refused_so_load_stays_bounded_by_the_file():
    entry = {"type": "tensor", "dtype": "float32", "shape": [4], "offset": 0, "nbytes": 16}
    payload = bytes(16)
    one = forge({"root": entry}, payload=payload)
    assert load_bytes(one).tolist() == [0.0] * 4
    # 10,000 entries naming the same 16 bytes: each would be its own copy
    many = forge({"root": {"type": "list", "items": [entry] * 10000}}, payload=payload)
    with pytest.raises(RuntimeError, match="tensor entries overlap in the payload"):
        load_bytes(many)
    # two entries sharing 4 bytes: within the payload's size, still refused
    a = dict(entry, shape=[2], nbytes=8)
    b = dict(entry, shape=[2], offset=4, nbytes=8)
    with pytest.raises(RuntimeError, match="tensor entries overlap in the payload"):
        load_bytes(forge({"root": {"type": "list", "items": [a, b]}}, payload=payload))
    # adjacent runs and empty tensors anywhere are fine
    c = dict(entry, shape=[2], offset=8, nbytes=8)
    empty = dict(entry, shape=[0], offset=8, nbytes=0)
    got = load_bytes(forge({"root": {"type": "list", "items": [a, c, empty, empty]}},
                           payload=payload))
    assert [t.tolist() for t in got] == [[0.0, 0.0], [0.0, 0.0], [], []]


def test_header_size_limit():
    with pytest.raises(RuntimeError, match="implausibly large"):
        load_bytes(forge({"root": {"type": "none"}}, hlen=native._MAX_HEADER + 1))
    assert native._MAX_HEADER <= 1 << 26
