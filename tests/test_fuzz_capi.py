"""The generated fuzz sweep of the C API (tests/capi_fuzz.py): every entry of
the function table, and MT->call over every published op, with hostile
arguments through a C++ test extension, run in a child process so that a
crash, a sanitizer abort or a hang is reported with the call that caused it.

It passes when every call returned a result or failed with an exception
other than SystemError and the documented error value, every certain failure
(bad dtype code, NULL where None is not allowed, unknown format letter, ...)
raised the header's exception and wording, and every entry the header
declares was swept. Under tools/asan_run.sh the child inherits the
sanitizer's environment."""
import json
import os
import platform
import subprocess
import sys

import pytest

from child_env import child_env
from minitorch.utils import cpp_extension

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT_S = 1800

pytestmark = [
    pytest.mark.skipif(not cpp_extension.compiler_available(cpp=True),
                       reason="no C++ compiler: cannot build the C API's fuzz driver"),
    # the driver passes MT->call's varargs in integer and floating slots, as
    # these conventions lay them out (tests/c/capi_fuzz_driver.cpp)
    pytest.mark.skipif(sys.platform != "linux" or platform.machine() not in ("x86_64", "aarch64"),
                       reason="the fuzz driver's variadic calls need System V x86-64 or AAPCS64"),
]


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    work = tmp_path_factory.mktemp("capi_fuzz")
    out, progress = work / "summary.json", work / "progress"
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "capi_fuzz.py"), str(out),
                             str(progress), str(work / "build")], cwd=work, env=child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace")
    try:
        log, _ = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        log, _ = proc.communicate()
    last = progress.read_text(errors="replace").strip() if progress.exists() else "?"
    assert proc.returncode == 0, (f"the C API fuzz sweep died (exit {proc.returncode}) during: "
                                  f"{last}\n{log[-4000:]}")
    return json.loads(out.read_text())


def test_every_hostile_call_fails_cleanly(summary):
    assert summary["findings"] == []


def test_every_entry_of_the_table_is_swept(summary):
    assert summary["entries_unswept"] == []
    assert len(summary["entries"]) >= 36 and "call" in summary["entries"]


def test_the_sweep_is_large(summary):
    # every published op name, each with hostile values in every position
    assert summary["ops"] > 400
    assert summary["calls"] > 10 * summary["ops"]
    assert summary["expected"] > summary["calls"] // 2


def test_the_issues_examples_raise_instead_of_crashing(tmp_path):
    """MT->call("to", "TD", t, 77) read past the dtype table; these now raise,
    in this process, with the header's wording."""
    import minitorch as mt
    with open(os.path.join(HERE, "c", "capi_fuzz_driver.cpp")) as f:
        source = f.read()
    sys.path.insert(0, HERE)
    try:
        from capi_fuzz import DRIVER_FUNCTIONS
    finally:
        sys.path.remove(HERE)
    ext = cpp_extension.load_inline("capi_fuzz_driver", source, functions=DRIVER_FUNCTIONS,
                                    build_directory=str(tmp_path))
    t = mt.ones(2)
    assert ext.call("to", "TD", [t, 77], False) == (
        "raised", "ValueError", "to(): argument 'dtype' (position 2): invalid dtype 77")
    assert ext.call("to", "TD", [t, 9], False)[1].dtype == mt.float64
    assert ext.call("add", "TT", [t, None], False) == (
        "raised", "TypeError", "add(): argument 'other' (position 2) must be Tensor, not NULL")
    assert ext.call("add", "TTq", [t, t], False) == (
        "raised", "ValueError", "add(): unknown format character 'q' at position 2 of \"TTq\" "
        "(one of T N i f b D s L, each optionally after k)")
    assert ext.call(None, "T", [t], False) == (
        "raised", "ValueError", "op_id(): the op name must be a string, got NULL")
    assert ext.metadata(None)[0] == ("ndim", "", (
        "raised", "RuntimeError",
        "ndim(): expected a proper Tensor but got NULL (an undefined Tensor in C++)"))
    assert ext.create(1, [-3], 8, None)[0][2] == (
        "raised", "RuntimeError", "Trying to create tensor with negative dimension -3: [-3]")
    assert ext.element_size(77)[0][2] == ("raised", "ValueError", "minitorch: invalid dtype 77")
