"""The README's editable install, as a user makes it, exposes the stubs:
`pip install -e .` into a fresh venv, then mypy and pyright on a user
script flag a planted type error and accept correct code, including a
Module subclass's `def forward(self, x)` (issue #35).

The install compiles the extension (minutes on 2 cores), so the test is
marked slow. The project is copied first so the checkout's own build is
left alone, and the venv reaches the running environment's packages
(setuptools, numpy, mypy, basedpyright) through a .pth line, so nothing is
downloaded (pip --no-build-isolation --no-deps)."""
import json
import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CORRECT = '''\
import minitorch as torch
from minitorch import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x).relu()


class Typed(nn.Module):
    def forward(self, x: torch.Tensor, scale: float = 2.0) -> torch.Tensor:
        return x * scale


y: torch.Tensor = Net()(torch.zeros(3, 4))
z = Typed()(y)
n: int = torch.zeros(3).numel()
'''

MISTAKE = '''\
import minitorch as torch

n: str = torch.zeros(3).numel()  # mistake
'''

pytestmark = pytest.mark.slow


def _copy_project(into):
    skip = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__",
                                  ".venv", ".ci-venv", "*.so", "*.o", "*.pyi", ".hypothesis")
    shutil.copytree(ROOT, into, ignore=skip)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    pytest.importorskip("mypy", reason="mypy is one of the two checkers")
    pytest.importorskip("basedpyright", reason="basedpyright runs pyright's checker")
    work = tmp_path_factory.mktemp("editable")
    project = work / "project"
    _copy_project(project)
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], check=True, capture_output=True, text=True)
    with open(os.path.join(site.stdout.strip(), "_outer_environment.pth"), "w") as f:
        f.write(sysconfig.get_paths()["purelib"] + "\n")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--no-build-isolation",
         "--no-deps", "--no-index", "-e", str(project)],
        capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    user = work / "user"
    user.mkdir()
    (user / "correct.py").write_text(CORRECT)
    (user / "mistake.py").write_text(MISTAKE)
    return python, project, user


def test_the_install_is_a_path_entry_to_the_checkout(installed):
    python, project, _ = installed
    where = subprocess.run([python, "-c", "import minitorch; print(minitorch.__file__)"],
                           capture_output=True, text=True, check=True, cwd="/")
    assert where.stdout.strip() == str(project / "minitorch" / "__init__.py")
    assert (project / "minitorch" / "__init__.pyi").exists()
    assert (project / "minitorch" / "py.typed").exists()


def test_mypy_finds_the_stubs(installed):
    python, _, user = installed
    proc = subprocess.run([python, "-m", "mypy", "--no-error-summary", "--cache-dir",
                           str(user / ".mypy_cache"), "correct.py", "mistake.py"],
                          cwd=user, capture_output=True, text=True, timeout=600)
    lines = proc.stdout.splitlines()
    assert lines == ['mistake.py:3: error: Incompatible types in assignment (expression has '
                     'type "int", variable has type "str")  [assignment]'], proc.stdout
    assert proc.returncode == 1


def test_pyright_finds_the_stubs(installed):
    python, _, user = installed
    (user / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "standard"}))
    proc = subprocess.run([sys.executable, "-m", "basedpyright", "--pythonpath", python,
                           "--outputjson", "correct.py", "mistake.py"],
                          cwd=user, capture_output=True, text=True, timeout=600)
    report = json.loads(proc.stdout)
    errors = [(os.path.basename(d["file"]), d["range"]["start"]["line"] + 1, d["rule"])
              for d in report["generalDiagnostics"] if d["severity"] == "error"]
    assert errors == [("mistake.py", 3, "reportAssignmentType")], report["generalDiagnostics"]
