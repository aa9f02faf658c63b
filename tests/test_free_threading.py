"""minitorch._C declares that it needs the GIL (csrc/python/module.c): on a
free-threaded CPython loading it turns the GIL on, and an interpreter whose
GIL was forced off refuses the import (minitorch/_gil.py)."""
import subprocess
import sys
import sysconfig

import pytest

import minitorch
from child_env import child_env

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def run_python(code, cwd, python_gil=None):
    """Runs code in a child Python, with PYTHON_GIL set to python_gil or unset,
    from cwd (not the source tree, whose minitorch/ `-c` would import first)."""
    env = child_env()
    env.pop("PYTHON_GIL", None)
    if python_gil is not None:
        env["PYTHON_GIL"] = python_gil
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env, cwd=str(cwd))


def test_the_module_records_that_it_needs_the_gil():
    assert minitorch._C._requires_gil is True


@pytest.mark.parametrize("gil_on", [True, False])
def test_an_interpreter_without_the_gil_refuses_the_import(gil_on, tmp_path):
    # what sys._is_gil_enabled() says on a free-threaded build started with
    # PYTHON_GIL=0 (False) or after _C turned the GIL on (True)
    run = run_python(f"import sys\nsys._is_gil_enabled = lambda: {gil_on}\n"
                     "import minitorch\nprint(minitorch.ones(2).sum().item())", tmp_path)
    if gil_on:
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == "2.0"
    else:
        assert run.returncode == 1
        assert ("ImportError: minitorch requires the GIL, but this free-threaded Python runs "
                "with the GIL forced off (PYTHON_GIL=0 or -X gil=0)") in run.stderr


@pytest.mark.skipif(not FREE_THREADED, reason="needs a free-threaded CPython (3.13t or later)")
def test_loading_the_module_turns_the_gil_on(tmp_path):
    run = run_python("import sys, warnings\n"
                     "assert not sys._is_gil_enabled()\n"
                     "with warnings.catch_warnings(record=True) as caught:\n"
                     "    warnings.simplefilter('always')\n"
                     "    import minitorch\n"
                     "print(sys._is_gil_enabled(), [str(w.message) for w in caught])",
                     tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("True "), run.stdout
    assert "enabled to load module 'minitorch._C'" in run.stdout


@pytest.mark.skipif(not FREE_THREADED, reason="needs a free-threaded CPython (3.13t or later)")
def test_the_gil_forced_off_refuses_the_import(tmp_path):
    run = run_python("import minitorch", tmp_path, python_gil="0")
    assert run.returncode == 1
    assert "ImportError: minitorch requires the GIL" in run.stderr
