"""minitorch.save / minitorch.load against torch 2.13's torch.save / torch.load:
checkpoints written by either library load in the other with equal values,
dtypes, strides, Parameters and shared storages; whole-object pickles with
weights_only=False; the safe-globals API."""
import collections
import io
import pickle

import numpy as np
import pytest

import minitorch as mt

from checkpoint_helpers import DTYPES, Unseekable, bits, random_bits, to_mt

torch = pytest.importorskip("torch")


def mt_to_torch_file(obj):
    buf = io.BytesIO()
    mt.save(obj, buf)
    buf.seek(0)
    return buf


def torch_to_mt_file(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return buf


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (7,), (4, 5)])
def test_every_dtype_both_ways_bit_exact(dtype, shape):
    t = random_bits(torch, dtype, shape)
    got = mt.load(torch_to_mt_file({"x": t}))["x"]
    assert str(got.dtype) == f"minitorch.{dtype}" and tuple(got.shape) == shape
    assert bits(got) == bits(t)
    back = torch.load(mt_to_torch_file({"x": got}), weights_only=True)["x"]
    assert back.dtype == t.dtype and back.shape == t.shape and bits(back) == bits(t)


def test_views_share_storage_torch_to_minitorch():
    base = torch.arange(24.0).reshape(4, 6)
    obj = {"base": base, "col": base[:, 2], "t": base.t(), "rows": base[1:3],
           "step": base[::2, 1::3], "other": torch.ones(3)}
    got = mt.load(torch_to_mt_file(obj))
    for k, v in obj.items():
        assert got[k].tolist() == v.tolist() and got[k].stride() == v.stride()
        assert got[k].storage_offset() == v.storage_offset()
    got["base"][1, 2] = -1.0
    assert got["col"][1].item() == -1.0 and got["t"][2, 1].item() == -1.0
    assert got["rows"][0, 2].item() == -1.0
    assert got["other"].tolist() == [1.0, 1.0, 1.0]


def test_views_share_storage_minitorch_to_torch():
    base = mt.arange(24.0).reshape(4, 6)
    obj = [base[:, 2], base, base.t(), base[2:], base.expand(2, 4, 6), base[1:3, ::2]]
    got = torch.load(mt_to_torch_file(obj), weights_only=True)
    for a, b in zip(obj, got):
        assert a.tolist() == b.tolist() and a.stride() == b.stride()
        assert a.storage_offset() == b.storage_offset()
    ptrs = {g.untyped_storage().data_ptr() for g in got}
    assert len(ptrs) == 1
    got[1][3, 2] = 100.0
    assert got[0][3].item() == 100.0 and got[3][1, 2].item() == 100.0
    # round trip back into minitorch keeps the sharing too
    again = mt.load(mt_to_torch_file(obj))
    again[1][0, 2] = -5.0
    assert again[0][0].item() == -5.0 and again[2][2, 0].item() == -5.0


def test_a_view_saved_alone_saves_only_the_storage_it_reaches():
    base = mt.arange(1000.0)
    buf = mt_to_torch_file(base[10:20])
    assert len(buf.getvalue()) < 4000
    got = torch.load(buf, weights_only=True)
    assert got.tolist() == list(range(10, 20)) and got.storage_offset() == 10


def test_same_memory_as_two_dtypes_refused_like_torch():
    t = mt.ones(4)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        mt.save([t, t.view(mt.int32)], io.BytesIO())
    tt = torch.ones(4)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        torch.save([tt, tt.view(torch.int32)], io.BytesIO())


def test_parameters_requires_grad_and_plain_data():
    obj = {
        "p": torch.nn.Parameter(torch.randn(2, 3)),
        "q": torch.nn.Parameter(torch.ones(2), requires_grad=False),
        "g": torch.ones(3, requires_grad=True),
        "n": torch.zeros(2),
        "meta": [1, -2 ** 70, 1.5, float("inf"), None, True, "héllo", b"\x00\xff",
                 (1, (2, 3)), {1, 2}, 1 + 2j, bytearray(b"ab")],
        "dtype": torch.bfloat16, "size": torch.Size([2, 3]), "device": torch.device("cpu"),
        "counter": collections.Counter("aab"), 7: "int key", (1, "a"): "tuple key",
    }
    got = mt.load(torch_to_mt_file(obj))
    assert type(got["p"]) is mt.nn.Parameter and got["p"].requires_grad
    assert np.array_equal(got["p"].detach().numpy(), obj["p"].detach().numpy())
    assert type(got["q"]) is mt.nn.Parameter and not got["q"].requires_grad
    assert type(got["g"]) is mt.Tensor and got["g"].requires_grad and got["g"].is_leaf
    assert not got["n"].requires_grad
    assert got["meta"] == obj["meta"]
    assert got["dtype"] is mt.bfloat16 and got["size"] == mt.Size([2, 3])
    assert isinstance(got["size"], mt.Size) and str(got["device"]) == "cpu"
    assert got["counter"] == collections.Counter("aab")
    assert got[7] == "int key" and got[(1, "a")] == "tuple key"

    mine = {"p": mt.nn.Parameter(mt.randn(2, 3)), "q": mt.nn.Parameter(mt.ones(2), False),
            "g": mt.ones(3, requires_grad=True), "meta": obj["meta"], "dtype": mt.float16,
            "size": mt.Size([4]), "device": mt.device("cpu")}
    back = torch.load(mt_to_torch_file(mine), weights_only=True)
    assert type(back["p"]) is torch.nn.Parameter and back["p"].requires_grad
    assert np.array_equal(back["p"].detach().numpy(), mine["p"].detach().numpy())
    assert type(back["q"]) is torch.nn.Parameter and not back["q"].requires_grad
    assert back["g"].requires_grad and back["meta"] == obj["meta"]
    assert back["dtype"] is torch.float16 and back["size"] == torch.Size([4])
    assert back["device"] == torch.device("cpu")


def test_the_archive_layout_matches_torch(tmp_path):
    import zipfile

    path = tmp_path / "ckpt.pt"
    mt.save({"a": mt.ones(3), "b": mt.zeros(5, dtype=mt.float64)}, path)
    zf = zipfile.ZipFile(path)
    names = zf.namelist()
    assert names[0] == "ckpt/data.pkl" and "ckpt/version" in names
    assert {"ckpt/byteorder", "ckpt/data/0", "ckpt/data/1", "ckpt/.data/serialization_id",
            "ckpt/.format_version", "ckpt/.storage_alignment"} <= set(names)
    assert zf.read("ckpt/byteorder") == b"little" and zf.read("ckpt/version") == b"3\n"
    raw = path.read_bytes()
    for info in zf.infolist():
        assert info.compress_type == zipfile.ZIP_STORED
        if "/data/" in info.filename:
            start = raw.index(zf.read(info.filename), info.header_offset)
            assert start % 64 == 0
    # torch's own reader agrees (mmap needs the alignment)
    got = torch.load(path, mmap=True, weights_only=True)
    assert got["a"].tolist() == [1.0] * 3 and got["b"].dtype == torch.float64


def test_paths_file_objects_and_map_location(tmp_path):
    path = tmp_path / "t.pt"
    torch.save({"w": torch.arange(4.0)}, path)
    for f in [path, str(path), open(path, "rb")]:
        assert mt.load(f)["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
    for loc in ["cpu", mt.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage,
                lambda storage, loc: None]:
        assert mt.load(path, map_location=loc)["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match="map_location"):
        mt.load(path, map_location="cuda:0")
    with pytest.raises(RuntimeError, match="live on the CPU"):
        mt.load(path, map_location={"cpu": "meta"})
    # a file object that is not at its start, and one that cannot seek
    buf = io.BytesIO(b"junk" + path.read_bytes())
    buf.seek(4)
    assert mt.load(buf)["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert mt.load(Unseekable(path.read_bytes()))["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
    out = tmp_path / "m.pt"
    mt.save({"w": mt.arange(2.0)}, str(out))
    assert torch.load(str(out))["w"].tolist() == [0.0, 1.0]


def test_a_cuda_checkpoint_needs_map_location(tmp_path):
    # the location string is only a tag in the file; forge one saying cuda:0
    import zipfile

    src = torch_to_mt_file({"w": torch.ones(2)}).getvalue()
    zin = zipfile.ZipFile(io.BytesIO(src))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("data.pkl"):
                data = data.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
            zout.writestr(info.filename, data)
    data = out.getvalue()
    with pytest.raises(RuntimeError, match="torch.cuda.is_available\\(\\) is False"):
        mt.load(io.BytesIO(data))
    assert mt.load(io.BytesIO(data), map_location="cpu")["w"].tolist() == [1.0, 1.0]
    assert mt.load(io.BytesIO(data), map_location={"cuda:0": "cpu"})["w"].tolist() == [1.0, 1.0]


# ---------------------------------------------------------------- nn layers

def _inputs(shape, seed):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


LAYERS = [
    ("Linear", (5, 3), [(4, 5)]),
    ("Bilinear", (3, 4, 2), [(5, 3), (5, 4)]),
    ("Conv1d", (2, 3, 3), [(2, 2, 8)]),
    ("Conv2d", (2, 4, 3), [(2, 2, 6, 6)]),
    ("BatchNorm1d", (4,), [(6, 4)]),
    ("BatchNorm2d", (3,), [(2, 3, 4, 4)]),
    ("LayerNorm", ((4,),), [(3, 4)]),
    ("GroupNorm", (2, 4), [(3, 4, 5)]),
    ("Embedding", (10, 3), None),
    ("RNN", (3, 4), [(5, 2, 3)]),
    ("GRU", (3, 4), [(5, 2, 3)]),
    ("LSTM", (3, 4), [(5, 2, 3)]),
    ("MultiheadAttention", (4, 2), [(3, 2, 4), (3, 2, 4), (3, 2, 4)]),
    ("Sequential", None, [(4, 5)]),
]


def _build(lib, name, args):
    if name == "Sequential":
        return lib.nn.Sequential(lib.nn.Linear(5, 6), lib.nn.ReLU(), lib.nn.LayerNorm(6),
                                 lib.nn.Linear(6, 2))
    return getattr(lib.nn, name)(*args)


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flat(o)]
    return [out]


def _run_both(name, tl, ml, shapes):
    tl.eval()
    ml.eval()
    if shapes is None:
        idx = torch.tensor([[1, 2, 9], [0, 0, 3]])
        t_in, m_in = [idx], [to_mt(idx)]
    else:
        t_in = [_inputs(s, i) for i, s in enumerate(shapes)]
        m_in = [to_mt(x) for x in t_in]
    with torch.no_grad():
        want = _flat(tl(*t_in))
    got = _flat(ml(*m_in))
    assert len(want) == len(got)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g.detach().numpy(), w.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,args,shapes", LAYERS, ids=[row[0] for row in LAYERS])
def test_layer_state_dicts_both_ways(name, args, shapes):
    torch.manual_seed(0)
    tl = _build(torch, name, args)
    ml = _build(mt, name, args)
    if "BatchNorm" in name:  # non-trivial running statistics
        with torch.no_grad():
            tl.train()(_inputs(shapes[0], 9) * 3 + 1)
    sd = tl.state_dict()
    loaded = mt.load(torch_to_mt_file(sd))
    assert type(loaded) is collections.OrderedDict and list(loaded) == list(sd)
    assert loaded._metadata == sd._metadata
    ml.load_state_dict(loaded)
    _run_both(name, tl, ml, shapes)

    # and back: new minitorch weights, saved by minitorch, loaded by torch
    mt.manual_seed(1)
    ml = _build(mt, name, args)
    if "BatchNorm" in name:
        ml.train()(to_mt(_inputs(shapes[0], 8) * 2 - 1))
    back = torch.load(mt_to_torch_file(ml.state_dict()), weights_only=True)
    assert list(back) == list(ml.state_dict())
    tl.load_state_dict(back)
    _run_both(name, tl, ml, shapes)


STATELESS = ["ReLU", "Tanh", "Sigmoid", "GELU", "SiLU", "Softmax", "LogSoftmax", "Flatten",
             "Identity", "Dropout", "MSELoss", "CrossEntropyLoss"]


@pytest.mark.parametrize("name", STATELESS)
def test_stateless_layer_state_dicts_both_ways(name):
    sd = getattr(torch.nn, name)().state_dict()
    loaded = mt.load(torch_to_mt_file(sd))
    assert dict(loaded) == {} and loaded._metadata == sd._metadata
    mine = getattr(mt.nn, name)()
    mine.load_state_dict(loaded)
    back = torch.load(mt_to_torch_file(mine.state_dict()), weights_only=True)
    getattr(torch.nn, name)().load_state_dict(back)
    assert dict(back) == {}


def _mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 16), lib.nn.Tanh(), lib.nn.Linear(16, 3))


def _data():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 4)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64) + (x[:, 2] > 1).astype(np.int64)
    return x, y


def _trained(lib, x, y):
    lib.manual_seed(0)
    model = _mlp(lib)
    opt = lib.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(30):
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(lib.from_numpy(x)), lib.from_numpy(y)).backward()
        opt.step()
    return model


@pytest.mark.parametrize("trainer", ["torch", "minitorch"])
def test_a_trained_model_gives_the_same_outputs_in_the_other_library(tmp_path, trainer):
    x, y = _data()
    libs = {"torch": torch, "minitorch": mt}
    other = libs["minitorch" if trainer == "torch" else "torch"]
    model = _trained(libs[trainer], x, y)
    libs[trainer].save(model.state_dict(), tmp_path / "model.pt")
    loaded = _mlp(other)
    loaded.load_state_dict(other.load(tmp_path / "model.pt", weights_only=True))
    want = model(libs[trainer].from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(loaded(other.from_numpy(x)).detach().numpy(), want, rtol=1e-5,
                               atol=1e-5)
    assert not np.allclose(want, _mlp(other)(other.from_numpy(x)).detach().numpy(), atol=1e-2)


def test_optimizer_state_dict_round_trips():
    model = _mlp(mt)
    opt = mt.optim.Adam(model.parameters(), lr=0.01)
    model(mt.ones(2, 4)).sum().backward()
    opt.step()
    sd = opt.state_dict()
    got = mt.load(mt_to_torch_file(sd))
    assert got["param_groups"] == sd["param_groups"]
    for k, state in sd["state"].items():
        for name, v in state.items():
            assert bits(got["state"][k][name]) == bits(v)
    theirs = torch.load(mt_to_torch_file(sd), weights_only=True)
    assert theirs["param_groups"] == sd["param_groups"]


# ------------------------------------------------ whole objects, safe globals

class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


def test_whole_model_pickles_with_weights_only_false(tmp_path):
    mt.manual_seed(0)
    model = _mlp(mt)
    path = tmp_path / "whole.pt"
    mt.save(model, path)
    with pytest.raises(pickle.UnpicklingError) as info:
        mt.load(path)
    msg = str(info.value)
    assert msg.startswith("Weights only load failed.")
    assert "Unsupported global: GLOBAL torch.nn.modules.container.Sequential was not an " \
           "allowed global by default" in msg
    again = mt.load(path, weights_only=False)
    assert type(again) is mt.nn.Sequential
    x = mt.randn(3, 4)
    assert np.array_equal(again(x).detach().numpy(), model(x).detach().numpy())
    p = list(again.parameters())
    assert all(type(q) is mt.nn.Parameter and q.requires_grad for q in p)
    again(x).sum().backward()
    assert p[0].grad is not None and p[0].grad.shape == p[0].shape


def test_torch_refuses_what_minitorch_refuses(tmp_path):
    path = tmp_path / "point.pt"
    torch.save({"p": Point(1, 2), "t": torch.ones(2)}, path)
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(path)
    with pytest.raises(pickle.UnpicklingError) as mine:
        mt.load(path)
    gist = (f"Unsupported global: GLOBAL {__name__}.Point was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{__name__}.Point])`")
    assert gist in str(theirs.value) and gist in str(mine.value)
    got = mt.load(path, weights_only=False)
    assert (got["p"].x, got["p"].y) == (1, 2) and got["t"].tolist() == [1.0, 1.0]


def test_safe_globals_api(tmp_path):
    path = tmp_path / "point.pt"
    mt.save({"p": Point(3, 4)}, path)
    assert mt.serialization.get_safe_globals() == []
    with mt.serialization.safe_globals([Point]):
        assert mt.serialization.get_safe_globals() == [Point]
        got = mt.load(path)["p"]
        assert type(got) is Point and (got.x, got.y) == (3, 4)
    assert mt.serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global"):
        mt.load(path)
    mt.serialization.add_safe_globals([(Point, f"{__name__}.Point")])
    try:
        assert type(mt.load(path)["p"]) is Point
        # torch reads the same file with the same allow list
        with torch.serialization.safe_globals([Point]):
            assert torch.load(path)["p"].y == 4
    finally:
        mt.serialization.clear_safe_globals()
    assert mt.serialization.get_safe_globals() == []


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_save_arguments():
    with pytest.raises(ValueError, match="legacy non-zip format"):
        mt.save(mt.ones(1), io.BytesIO(), _use_new_zipfile_serialization=False)
    for protocol in [2, 3, 4, 5]:
        buf = io.BytesIO()
        mt.save({"a": mt.ones(2)}, buf, pickle_protocol=protocol)
        assert mt.load(io.BytesIO(buf.getvalue()))["a"].tolist() == [1.0, 1.0]
        # torch's weights_only unpickler stops at protocol 4's FRAME opcode
        theirs = torch.load(io.BytesIO(buf.getvalue()), weights_only=protocol < 4)
        assert theirs["a"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="pickle_protocol"):
        mt.save(mt.ones(1), io.BytesIO(), pickle_protocol=1)


def test_mmap_loads_share_the_file_copy_on_write(tmp_path):
    path = tmp_path / "big.pt"
    obj = {"w": torch.arange(12.0).reshape(3, 4), "b": torch.ones(3, dtype=torch.bfloat16),
           "flags": torch.tensor([True, False]), "col": None}
    obj["col"] = obj["w"][:, 1]
    torch.save(obj, path)
    before = path.read_bytes()
    with open(path, "rb") as f:
        for src in [path, f]:
            got = mt.load(src, mmap=True)
            assert got["w"].tolist() == obj["w"].tolist() and got["col"].tolist() == [1.0, 5.0, 9.0]
            assert got["b"].dtype == mt.bfloat16 and got["b"].tolist() == [1.0] * 3
            assert got["flags"].tolist() == [True, False]
            got["w"][0, 1] = 7.0
            assert got["col"][0].item() == 7.0
    assert path.read_bytes() == before
    with pytest.raises(ValueError, match="mmap=True needs a file path"):
        mt.load(io.BytesIO(before), mmap=True)
    mine = tmp_path / "mine.pt"
    mt.save({"x": mt.arange(5.0)}, mine)
    assert mt.load(mine, mmap=True)["x"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_a_whole_torch_model_loads_as_the_minitorch_model(tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    torch.save(model, tmp_path / "whole.pt")
    mine = mt.load(tmp_path / "whole.pt", weights_only=False)
    assert type(mine) is mt.nn.Sequential and type(mine[0]) is mt.nn.Linear
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(mine(mt.from_numpy(x)).detach().numpy(),
                               model(torch.from_numpy(x)).detach().numpy(), rtol=1e-5,
                               atol=1e-6)


def legacy_file(obj):
    buf = io.BytesIO()
    torch.save(obj, buf, _use_new_zipfile_serialization=False)
    buf.seek(0)
    return buf


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_legacy_checkpoints_load_bit_exact(dtype):
    t = random_bits(torch, dtype, (4, 5), seed=5)
    obj = {"t": t, "row": t[1], "col": t[:, 2], "empty": t[:0], "n": 3}
    got = mt.load(legacy_file(obj))
    for k in ["t", "row", "col", "empty"]:
        assert bits(got[k]) == bits(obj[k]) and got[k].stride() == obj[k].stride()
    assert got["n"] == 3
    got["t"][1, 2] = got["t"][0, 0]
    assert bits(got["row"][2]) == bits(got["t"][0, 0]) and bits(got["col"][1]) == bits(got["t"][0, 0])


def test_torch_legacy_state_dicts_models_and_refusals(tmp_path):
    torch.manual_seed(0)
    model = _mlp(torch)
    sd = mt.load(legacy_file(model.state_dict()))
    mine = _mlp(mt)
    mine.load_state_dict(sd)
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    want = model(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(mine(mt.from_numpy(x)).detach().numpy(), want, rtol=1e-5,
                               atol=1e-6)
    whole = mt.load(legacy_file(model), weights_only=False)
    assert type(whole) is mt.nn.Sequential
    np.testing.assert_allclose(whole(mt.from_numpy(x)).detach().numpy(), want, rtol=1e-5,
                               atol=1e-6)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        mt.load(legacy_file(model))
    path = tmp_path / "legacy.pt"
    path.write_bytes(legacy_file({"a": torch.ones(2)}).getvalue())
    assert mt.load(path)["a"].tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="mmap can only be used"):
        mt.load(path, mmap=True)


def test_tensor_and_parameter_attributes_travel_both_ways():
    t = mt.ones(2)
    t.note = "kept"
    p = mt.nn.Parameter(mt.zeros(3))
    p.tag = 7
    theirs = torch.load(mt_to_torch_file({"t": t, "p": p, "cls": mt.Tensor}), weights_only=True)
    assert theirs["t"].note == "kept" and theirs["t"].tolist() == [1.0, 1.0]
    assert type(theirs["p"]) is torch.nn.Parameter and theirs["p"].tag == 7
    assert theirs["cls"] is torch.Tensor
    tt = torch.ones(2)
    tt.note = "back"
    pp = torch.nn.Parameter(torch.ones(1))
    pp.tag = 8
    mine = mt.load(torch_to_mt_file({"t": tt, "p": pp, "cls": torch.Tensor}))
    assert mine["t"].note == "back" and type(mine["p"]) is mt.nn.Parameter and mine["p"].tag == 8
    assert mine["cls"] is mt.Tensor


def test_get_unsafe_globals_in_checkpoint_matches_torch(tmp_path):
    path = tmp_path / "mixed.pt"
    torch.save({"p": Point(1, 2), "x": torch.ones(1), "s": {1}, "m": torch.nn.ReLU()}, path)
    theirs = torch.serialization.get_unsafe_globals_in_checkpoint(path)
    mine = mt.serialization.get_unsafe_globals_in_checkpoint(path)
    assert sorted(mine) == sorted(theirs) and f"{__name__}.Point" in mine
    with mt.serialization.safe_globals([Point]):
        assert f"{__name__}.Point" not in mt.serialization.get_unsafe_globals_in_checkpoint(
            open(path, "rb"))
    assert mt.serialization.get_unsafe_globals_in_checkpoint(
        mt_to_torch_file(mt.nn.Linear(2, 2).state_dict())) == []
    with pytest.raises(ValueError, match="Expected input to be a checkpoint returned by torch.save"):
        mt.serialization.get_unsafe_globals_in_checkpoint(legacy_file({"a": torch.ones(1)}))
