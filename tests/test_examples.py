"""The examples run end to end (short runs)."""
import os
import struct
import subprocess
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_train_digits_quick(tmp_path):
    script = os.path.join(ROOT, "examples", "train_digits.py")
    run = subprocess.run([sys.executable, script, "--quick", "--out-dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "\r" not in out  # not a terminal: one line per epoch, no progress bar
    assert out.count("MLP epoch") == 2 and out.count("CNN epoch") == 2
    for name in ("MLP", "CNN"):
        line = next(s for s in out.splitlines() if s.startswith(f"{name} test accuracy: "))
        assert float(line.split(": ")[1].split("%")[0]) > 50.0
        assert f"{name} reloaded from" in out and "(identical)" in out
        assert (tmp_path / f"digits_{name.lower()}.pt").stat().st_size > 0
    png = (tmp_path / "train_digits_loss.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    idat_len = struct.unpack(">I", png[33:37])[0]
    assert png[37:41] == b"IDAT"
    raw = zlib.decompress(png[41:41 + idat_len])
    assert len(raw) == height * (1 + 3 * width)


def test_every_subpackage_is_packaged():
    """`pip install .` (not editable) ships every package under minitorch/."""
    import fnmatch

    import pytest
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        include = tomllib.load(f)["tool"]["setuptools"]["packages"]["find"]["include"]
    for dirpath, _, files in os.walk(os.path.join(ROOT, "minitorch")):
        if "__init__.py" in files:
            name = os.path.relpath(dirpath, ROOT).replace(os.sep, ".")
            assert any(fnmatch.fnmatch(name, pattern) for pattern in include), name
