"""Ordinary torch training scripts (examples/real_programs/) run unchanged with
minitorch imported in torch's place, learn, and end at torch's loss (issue #17).

Each script runs in a child process under minitorch and, when torch is
installed, under torch; examples/real_programs/compare.py holds the checks."""
import importlib.util
import os
import subprocess
import sys

import pytest

from child_env import child_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples", "real_programs"))
import compare  # noqa: E402

sys.path.pop(0)
HAVE_TORCH = importlib.util.find_spec("torch") is not None


@pytest.mark.parametrize("script", compare.SCRIPTS)
def test_runs_unchanged_and_learns(script):
    ours = compare.run("minitorch", script, env=child_env())
    reference = compare.run("torch", script, env=child_env()) if HAVE_TORCH else None
    if reference is not None:
        assert compare.problems(reference) == [], reference.stdout[-2000:]
    assert compare.problems(ours, reference) == [], ours.stdout[-2000:]


def test_torch_imports_resolve_to_minitorch(tmp_path):
    """The runner maps `torch` and its submodules, however imported, onto
    minitorch's, and a submodule minitorch lacks fails as a missing torch module."""
    script = tmp_path / "probe.py"
    script.write_text(
        "import sys\n"
        "import torch, torch.nn.functional as F\n"
        "from torch.utils.data import DataLoader\n"
        "from torch.distributions import Categorical\n"
        "print(torch.__name__, F.__name__, DataLoader.__module__, Categorical.__module__,\n"
        "      sys.argv[1:], __name__)\n"
        "import torch.no_such_module\n")
    proc = subprocess.run([sys.executable, os.path.join(compare.HERE, "run_as.py"), "minitorch",
                           str(script), "a", "b"], capture_output=True, text=True,
                          env=child_env(), timeout=120)
    assert proc.stdout.split() == ["minitorch", "minitorch.nn.functional",
                                   "minitorch.utils.data.dataloader",
                                   "minitorch.distributions.categorical", "['a',", "'b']",
                                   "__main__"]
    assert "ModuleNotFoundError: No module named 'torch.no_such_module'" in proc.stderr
