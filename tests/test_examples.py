"""The examples run end to end (short runs), from any working directory, with
and without the `examples` extra (matplotlib, tqdm)."""
import os
import re
import shutil
import struct
import subprocess
import sys

import pytest

from child_env import child_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "examples", "train_digits.py")
DATA = os.path.join(ROOT, "examples", "data", "digits.npz")
# Blocks imports as a missing package does: `import x` raises ModuleNotFoundError.
BLOCKING_RUNNER = ("import runpy, sys\n"
                   "for name in sys.argv[1].split(','):\n"
                   "    sys.modules[name] = None\n"
                   "sys.argv = sys.argv[2:]\n"
                   "runpy.run_path(sys.argv[0], run_name='__main__')\n")


def run_demo(script, *args, cwd, block=()):
    """Runs script as `python script args` from cwd, importing the minitorch
    this test process imported, with the packages in block made missing."""
    cmd = [sys.executable, script, *args]
    if block:
        cmd = [sys.executable, "-c", BLOCKING_RUNNER, ",".join(block), script, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, cwd=str(cwd),
                          env=child_env())


def check_training(run, out_dir):
    """The run trained both models 2 epochs, reloaded them identically, and
    returns each model's per-epoch losses as printed."""
    assert run.returncode == 0, run.stderr
    out = run.stdout
    # not a terminal: one line per epoch, no progress bar on either stream
    assert "\r" not in out and "\r" not in run.stderr
    epoch_losses = {}
    for name in ("MLP", "CNN"):
        lines = re.findall(rf"^{name} epoch +\d/2  loss (\d+\.\d+)", out, re.M)
        assert len(lines) == 2, out
        epoch_losses[name] = [float(v) for v in lines]
        line = next(s for s in out.splitlines() if s.startswith(f"{name} test accuracy: "))
        assert float(line.split(": ")[1].split("%")[0]) > 50.0
        assert f"{name} reloaded from" in out and "(identical)" in out
        assert (out_dir / f"digits_{name.lower()}.pt").stat().st_size > 0
    return epoch_losses


def test_train_digits_plots_with_matplotlib(tmp_path):
    pytest.importorskip("matplotlib")
    image = pytest.importorskip("matplotlib.image")
    run = run_demo(SCRIPT, "--quick", "--out-dir", str(tmp_path), cwd=tmp_path)
    check_training(run, tmp_path)
    path = tmp_path / "train_digits_loss.png"
    assert f"loss curves: {path}" in run.stdout
    png = path.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    assert struct.unpack(">II", png[16:24]) == (640, 400)
    pixels = (image.imread(str(path))[..., :3] * 255).round().astype(int)
    # both curves are drawn, in matplotlib's first two colours (C0, C1)
    for rgb in ((31, 119, 180), (255, 127, 14)):
        assert (abs(pixels - rgb).sum(-1) <= 6).sum() > 200, rgb


def test_train_digits_without_matplotlib_or_tqdm_prints_a_table(tmp_path):
    run = run_demo(SCRIPT, "--quick", "--out-dir", str(tmp_path), cwd=tmp_path,
                   block=("matplotlib", "tqdm"))
    epoch_losses = check_training(run, tmp_path)
    assert not (tmp_path / "train_digits_loss.png").exists()
    assert "loss curves:" not in run.stdout
    table = run.stdout.split("mean training loss per epoch")[1].splitlines()[1:4]
    assert table[0].split() == ["epoch", "MLP", "CNN"]
    for epoch, row in enumerate(table[1:]):
        cells = row.split()
        assert int(cells[0]) == epoch + 1
        assert [float(c) for c in cells[1:]] == [epoch_losses["MLP"][epoch],
                                                 epoch_losses["CNN"][epoch]]


def test_train_digits_paths_are_beside_the_script(tmp_path):
    """A copy of the example elsewhere, run from yet another folder, reads its
    data and writes its outputs beside itself, not in the working directory."""
    copy = tmp_path / "copy"
    (copy / "data").mkdir(parents=True)
    shutil.copy(SCRIPT, copy)
    shutil.copy(DATA, copy / "data")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = run_demo(str(copy / "train_digits.py"), "--quick", cwd=elsewhere, block=("matplotlib",))
    check_training(run, copy)
    assert os.listdir(elsewhere) == []


def test_train_digits_without_data_says_where_it_looked(tmp_path):
    shutil.copy(SCRIPT, tmp_path)
    run = run_demo(str(tmp_path / "train_digits.py"), "--quick", cwd=tmp_path)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert f"no digits data at {tmp_path / 'data' / 'digits.npz'}: pass --data PATH" in run.stderr
    assert os.listdir(tmp_path) == ["train_digits.py"]


def test_every_subpackage_is_packaged():
    """`pip install .` (not editable) ships every package under minitorch/."""
    import fnmatch

    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        include = tomllib.load(f)["tool"]["setuptools"]["packages"]["find"]["include"]
    for dirpath, _, files in os.walk(os.path.join(ROOT, "minitorch")):
        if "__init__.py" in files:
            name = os.path.relpath(dirpath, ROOT).replace(os.sep, ".")
            assert any(fnmatch.fnmatch(name, pattern) for pattern in include), name
