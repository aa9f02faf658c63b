"""minitorch.utils.safetensors against the safetensors package (for torch):
files written by either load in the other bit-exact, the bytes written are
the package's, and malformed headers fail as the package's do."""
import json
import struct

import numpy as np
import pytest

import minitorch as mt
from minitorch.utils import safetensors as ms

from checkpoint_helpers import DTYPES, bits, random_bits, to_mt

torch = pytest.importorskip("torch")
st = pytest.importorskip("safetensors.torch")

SHAPES = [(), (0,), (3, 0), (5,), (2, 3, 4)]


@pytest.fixture
def pair():
    theirs, mine = {}, {}
    for i, dtype in enumerate(DTYPES):
        for j, shape in enumerate(SHAPES):
            name = f"{dtype}.{j}"
            theirs[name] = random_bits(torch, dtype, shape, 10 * i + j)
            mine[name] = to_mt(theirs[name])
    return theirs, mine


def test_files_written_by_the_package_load_bit_exact(tmp_path, pair):
    theirs, _ = pair
    path = tmp_path / "theirs.safetensors"
    st.save_file(theirs, path, metadata={"format": "pt"})
    got = ms.load_file(path)
    assert set(got) == set(theirs)
    for k, t in theirs.items():
        assert str(got[k].dtype) == str(t.dtype).replace("torch", "minitorch")
        assert tuple(got[k].shape) == tuple(t.shape) and bits(got[k]) == bits(t)
    assert ms.load(path.read_bytes()).keys() == got.keys()


def test_files_we_write_load_in_the_package_and_match_its_bytes(tmp_path, pair):
    theirs, mine = pair
    path = tmp_path / "mine.safetensors"
    ms.save_file(mine, path, metadata={"format": "pt", "note": "é"})
    got = st.load_file(path)
    for k, t in theirs.items():
        assert got[k].dtype == t.dtype and got[k].shape == t.shape and bits(got[k]) == bits(t)
    # (with one metadata key: the package writes metadata in hash-map order)
    assert ms.save(mine, {"note": "é"}) == st.save(theirs, metadata={"note": "é"})
    assert ms.save(mine) == st.save(theirs)
    assert {k: bits(v) for k, v in ms.load(ms.save(mine)).items()} == \
        {k: bits(v) for k, v in mine.items()}


def test_a_model_state_dict_round_trips_through_both(tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    st.save_file(model.state_dict(), tmp_path / "m.safetensors")
    mine = mt.nn.Sequential(mt.nn.Linear(4, 8), mt.nn.ReLU(), mt.nn.Linear(8, 2))
    mine.load_state_dict(ms.load_file(tmp_path / "m.safetensors"))
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    want = model(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(mine(mt.from_numpy(x)).detach().numpy(), want, rtol=1e-6)
    sd = {k: v.detach() for k, v in mine.state_dict().items()}
    ms.save_file(sd, tmp_path / "back.safetensors")
    model.load_state_dict(st.load_file(tmp_path / "back.safetensors"))
    np.testing.assert_allclose(model(torch.from_numpy(x)).detach().numpy(), want, rtol=1e-6)


def test_save_refusals_match_the_package():
    t = mt.arange(8.0)
    with pytest.raises(ValueError, match="non contiguous tensor: `a`"):
        ms.save({"a": t[::2]})
    with pytest.raises(RuntimeError, match="Some tensors share memory"):
        ms.save({"a": t, "b": t[2:4]})
    with pytest.raises(ValueError, match="Key `a` is invalid, expected torch.Tensor"):
        ms.save({"a": 3})
    with pytest.raises(ValueError, match="Expected a dict"):
        ms.save([t])
    # slices of one storage that do not overlap are fine, as in the package
    got = ms.load(ms.save({"a": t[:4], "b": t[4:]}))
    assert got["a"].tolist() == [0.0, 1.0, 2.0, 3.0] and got["b"].tolist() == [4.0, 5.0, 6.0, 7.0]
    tt = torch.arange(8.0)
    assert st.load(st.save({"a": tt[:4], "b": tt[4:]}))["b"].tolist() == [4.0, 5.0, 6.0, 7.0]


def forge(header, data=b"", n=None):
    text = json.dumps(header).encode() if not isinstance(header, bytes) else header
    return struct.pack("<Q", len(text) if n is None else n) + text + data


ENTRY = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}


@pytest.mark.parametrize("data,match", [
    (b"\x01\x02\x03", "header too small"),
    (struct.pack("<Q", 200_000_000) + b"{}", "header too large"),
    (struct.pack("<Q", 2 ** 63) + b"{}", "header too large"),
    (struct.pack("<Q", 100) + b"{}", "invalid header length"),
    (forge({"a": ENTRY}, bytes(4)), "incomplete metadata"),
    (forge({"a": ENTRY}, bytes(12)), "incomplete metadata"),
    (forge({"a": dict(ENTRY, shape=[3])}, bytes(8)), "invalid shape, data type, or offset"),
    (forge({"a": dict(ENTRY, shape=[2 ** 62, 4])}, bytes(8)), "invalid shape|overflow"),
    (forge({"a": ENTRY, "b": ENTRY}, bytes(8)), "invalid offset for tensor `b`"),
    (forge({"a": dict(ENTRY, data_offsets=[4, 12])}, bytes(12)), "invalid offset for tensor `a`"),
    (forge({"a": dict(ENTRY, data_offsets=[8, 0])}, bytes(8)), "invalid offset"),
    (forge({"a": dict(ENTRY, dtype="X32")}, bytes(8)), "invalid JSON in header"),
    (forge({"a": dict(ENTRY, shape=[-2])}, bytes(8)), "invalid JSON in header"),
    (forge({"a": dict(ENTRY, shape=[2.0])}, bytes(8)), "invalid JSON in header"),
    (forge([1]), "invalid JSON in header"),
    (forge(b"{not json"), "invalid JSON in header"),
    (forge(b"\xff\xfe\x00"), "invalid UTF-8 in header"),
    (forge({"__metadata__": {"a": 1}}), "invalid JSON in header"),
    (forge(b"[" * 100000 + b"]" * 100000), "invalid JSON in header"),
])
def test_malformed_files_fail_as_in_the_package(tmp_path, data, match):
    with pytest.raises(Exception, match="Error while deserializing"):
        st.load(data)
    with pytest.raises(ms.SafetensorError, match=f"Error while deserializing: ({match})"):
        ms.load(data)
    path = tmp_path / "bad.safetensors"
    path.write_bytes(data)
    with pytest.raises(ms.SafetensorError, match=f"Error while deserializing: ({match})"):
        ms.load_file(path)


def test_bool_bytes_dtypes_we_lack_and_truncation(tmp_path):
    with pytest.raises(ms.SafetensorError, match="bool tensor `a` holds bytes other than 0"):
        ms.load(forge({"a": {"dtype": "BOOL", "shape": [2], "data_offsets": [0, 2]}}, b"\x01\x05"))
    data = st.save({"u": torch.ones(2, dtype=torch.uint16)})
    with pytest.raises(ms.SafetensorError, match="minitorch has no dtype for the U16 tensor `u`"):
        ms.load(data)

    path = tmp_path / "t.safetensors"
    path.write_bytes(st.save({"a": torch.ones(4)}))
    assert ms.load_file(path)["a"].tolist() == [1.0] * 4
    with pytest.raises(RuntimeError, match="live on the CPU"):
        ms.load_file(path, device="cuda")
    path.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(ms.SafetensorError, match="incomplete metadata"):
        ms.load_file(path)


def test_load_file_maps_copy_on_write(tmp_path):
    path = tmp_path / "w.safetensors"
    st.save_file({"w": torch.arange(6.0).reshape(2, 3), "h": torch.ones(3, dtype=torch.bfloat16)},
                 path)
    before = path.read_bytes()
    a, b = ms.load_file(path), ms.load_file(path)
    a["w"][0, 0] = 100.0
    a["h"][1] = 2.0
    assert b["w"][0, 0].item() == 0.0 and b["h"].tolist() == [1.0, 1.0, 1.0]
    assert a["w"].tolist() == [[100.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert path.read_bytes() == before
