"""The code blocks of the documentation's pages run as written: each page's
```python blocks, in order, in one namespace, from the repository root."""
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks(page):
    with open(os.path.join(ROOT, "docs", page)) as f:
        return BLOCK.findall(f.read())


def _run(page, monkeypatch):
    monkeypatch.chdir(ROOT)
    namespace = {"__name__": "docs_example"}
    blocks = _blocks(page)
    for k, block in enumerate(blocks):
        exec(compile(block, f"docs/{page} block {k + 1}", "exec"), namespace)
    return blocks


def test_quickstart_runs(monkeypatch, capsys):
    assert len(_run("quickstart.md", monkeypatch)) >= 6
    assert "minitorch.Size([2, 2]) minitorch.float32" in capsys.readouterr().out


def test_profiling_runs(monkeypatch, capsys):
    assert len(_run("profiling.md", monkeypatch)) == 1
    out = capsys.readouterr().out
    assert "Self CPU time total: " in out and "aten::linear" in out


def test_extending_runs(monkeypatch):
    from minitorch.utils.cpp_extension import compiler_available
    if not compiler_available() or not compiler_available(cpp=True):
        pytest.skip("the C and C++ extension examples need a C and a C++ compiler")
    assert len(_run("extending.md", monkeypatch)) >= 7


def test_a_failing_block_fails(tmp_path, monkeypatch):
    page = tmp_path / "docs" / "bad.md"
    page.parent.mkdir()
    page.write_text("text\n\n```python\nassert 1 == 2\n```\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", str(tmp_path))
    with pytest.raises(AssertionError):
        _run("bad.md", monkeypatch)


@pytest.mark.parametrize("page", ["training.md", "custom_function.md", "torch_checkpoint.md"])
def test_gallery_runs(page, monkeypatch):
    assert len(_run("gallery/" + page, monkeypatch)) >= 1


def test_gallery_ddp_runs(monkeypatch, capsys):
    pytest.importorskip("mpi4py")
    assert len(_run("gallery/ddp.md", monkeypatch)) == 1
    assert "[" in capsys.readouterr().out


def test_gallery_c_op_runs(monkeypatch):
    from minitorch.utils.cpp_extension import compiler_available
    if not compiler_available():
        pytest.skip("the C extension example needs a C compiler")
    assert len(_run("gallery/custom_c_op.md", monkeypatch)) == 1
