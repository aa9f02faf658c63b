"""The layers below the binding stand alone: a C program built from them
alone and the plain-C host (tests/c/test_op_layer.c) runs ops, backward and
double backward with no interpreter. (That they name no Python is checked by
test_floors.py.)"""
import os
import pathlib
import shutil
import subprocess
import sysconfig

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
# the floors below the binding, and the plain-C host standing in for it
PLAIN_C = ("core", "kernels", "ops", "autograd", "standalone")


def plain_c_files(suffixes):
    return [p for layer in PLAIN_C for p in sorted((ROOT / "csrc" / layer).rglob("*"))
            if p.suffix in suffixes]


def compiler():
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    cc = cc.split()[0]
    return shutil.which(cc) or shutil.which("cc") or shutil.which("gcc")


@pytest.fixture(scope="module")
def c_test_program(tmp_path_factory):
    cc = compiler()
    if not cc:
        pytest.skip("no C compiler on this machine: the plain-C test cannot be built")
    sources = [str(p) for p in plain_c_files((".c",))]
    exe = tmp_path_factory.mktemp("c_layer") / "test_op_layer"
    cmd = [cc, "-std=c11", "-O1", "-pthread", "-o", str(exe),
           str(ROOT / "tests" / "c" / "test_op_layer.c"), *sources, "-lm", "-ldl"]
    built = subprocess.run(cmd, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-4000:]
    return exe


def test_op_layer_runs_without_python(c_test_program):
    run = subprocess.run([str(c_test_program)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    last = run.stdout.strip().splitlines()[-1]
    passed, failed = (int(part.split()[0]) for part in last.split(", "))
    assert failed == 0 and passed >= 15, run.stdout
