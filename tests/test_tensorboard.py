"""minitorch.utils.tensorboard.SummaryWriter: events written from minitorch
tensors read back with TensorBoard's EventAccumulator, and the summaries
equal to torch's for the same inputs."""
import os
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

import minitorch as mt

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from minitorch.utils.tensorboard import SummaryWriter
from minitorch.utils.tensorboard import _summary


def load(path):
    acc = EventAccumulator(str(path), size_guidance={"scalars": 0, "histograms": 0, "images": 0,
                                                     "tensors": 0})
    acc.Reload()
    return acc


def decode_png(data):
    """Pixels of an unfiltered 8-bit RGB/RGBA PNG (what the writer makes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (n,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        assert struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0] == zlib.crc32(kind + body)
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    width, height, _, color = header[:4]
    channels = 3 if color == 2 else 4
    rows = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(height, 1 + width * channels)
    assert (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(height, width, channels)


def test_scalars_histogram_image_text_round_trip(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        assert w.get_logdir() == str(tmp_path)
        for step in range(3):
            w.add_scalar("loss", mt.tensor(1.5 - step), step)
        w.add_scalar("lr", 0.25, 7)
        w.add_histogram("weights", mt.arange(100, dtype=mt.float32) / 10, 1)
        img = mt.zeros(3, 4, 5)
        img[0] = 1.0
        w.add_image("img", img, 2)
        w.add_image("gray", (mt.arange(20).reshape(4, 5) * 10).to(mt.uint8), 3, dataformats="HW")
        w.add_text("note", "hello **world**", 4)
        w.add_scalars("run", {"a": mt.tensor(1.0), "b": 2.0}, 5)
    acc = load(tmp_path)
    assert [(e.step, e.value) for e in acc.Scalars("loss")] == [(0, 1.5), (1, 0.5), (2, -0.5)]
    assert [(e.step, e.value) for e in acc.Scalars("lr")] == [(7, 0.25)]
    h = acc.Histograms("weights")[0]
    assert (h.step, h.histogram_value.num, h.histogram_value.min) == (1, 100, 0.0)
    assert h.histogram_value.max == pytest.approx(9.9)
    assert sum(h.histogram_value.bucket) == 100
    im = acc.Images("img")[0]
    assert (im.step, im.height, im.width) == (2, 4, 5)
    pixels = decode_png(im.encoded_image_string)
    assert (pixels[..., 0] == 255).all() and (pixels[..., 1:] == 0).all()
    gray = decode_png(acc.Images("gray")[0].encoded_image_string)
    np.testing.assert_array_equal(gray[..., 1], np.arange(20).reshape(4, 5) * 10)
    text = acc.Tensors("note/text_summary")[0]
    assert text.step == 4 and text.tensor_proto.string_val == [b"hello **world**"]
    a, b = load(tmp_path / "run_a"), load(tmp_path / "run_b")
    assert [(e.step, e.value) for e in a.Scalars("run")] == [(5, 1.0)]
    assert [(e.step, e.value) for e in b.Scalars("run")] == [(5, 2.0)]


def test_summaries_equal_torchs():
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import summary as ts
    values = np.random.default_rng(0).normal(size=500)
    for bins in ("auto", 10, _summary.default_bins()):
        ours = _summary.histogram("h", mt.tensor(values.tolist(), dtype=mt.float64), bins, max_bins=7)
        assert ours == ts.histogram("h", torch.tensor(values), bins, max_bins=7)
    assert _summary.scalar("s", mt.tensor([2.5])) == ts.scalar("s", torch.tensor([2.5]))
    assert (_summary.scalar("s", 3, new_style=True, double_precision=True)
            == ts.scalar("s", 3, new_style=True, double_precision=True))
    assert _summary.text("t", "x y") == ts.text("t", "x y")
    with pytest.raises(AssertionError, match="Tensor should contain one element"):
        _summary.scalar("s", mt.ones(2))


def test_purge_step_close_and_reopen(tmp_path):
    w = SummaryWriter(str(tmp_path), purge_step=3)
    w.add_scalar("x", 1.0, 4)
    w.close()
    w.close()
    w.add_scalar("x", 2.0, 5)  # a closed writer opens a new event file
    w.flush()
    w.close()
    assert len([f for f in os.listdir(tmp_path) if "tfevents" in f]) == 2
    assert sorted(e.step for e in load(tmp_path).Scalars("x")) == [4, 5]


def test_default_logdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_exp")
    w.close()
    assert w.get_logdir().startswith("runs" + os.sep) and w.get_logdir().endswith("_exp")
    assert os.path.isdir(w.get_logdir())


def test_import_error_without_tensorboard():
    code = ("import sys; sys.modules['tensorboard'] = None\n"
            "try:\n    import minitorch.utils.tensorboard\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "TensorBoard logging requires TensorBoard version 1.15 or above"
