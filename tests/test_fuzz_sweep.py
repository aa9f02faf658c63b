"""The generated fuzz sweep (tests/fuzz_sweep.py, issue 13) over every op-table
row and every public Python function, run in a child process so that a crash,
a sanitizer abort or a hang is reported with the call that caused it.

The sweep passes when every call returned or raised an Exception other than
SystemError, and covers everything: each published row was reached and each
function returned for its baseline arguments. A new row or function is swept
without a change here, and fails the coverage tests until it can be called.
Under tools/asan_run.sh the child inherits the sanitizer's environment.
"""
import json
import os
import subprocess
import sys

import pytest

from child_env import child_env

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT_S = 1800  # the normal run takes seconds; an ASan+UBSan one, minutes


@pytest.fixture(scope="module")
def summary(tmp_path_factory, request):
    work = tmp_path_factory.mktemp("fuzz")  # the cwd: save() may write files there
    env = child_env()
    out, progress = work / "summary.json", work / "progress"
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "fuzz_sweep.py"), str(out),
                             str(progress)], cwd=work, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace")
    try:
        log, _ = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        log, _ = proc.communicate()
    last = progress.read_text(errors="replace").strip() if progress.exists() else "?"
    assert proc.returncode == 0, (f"the fuzz sweep died (exit {proc.returncode}) during: "
                                  f"{last}\n{log[-4000:]}")
    s = json.loads(out.read_text())
    request.config._fuzz_sweep_line = (
        f"fuzz sweep: {s['rows_reached']}/{s['published_rows']} published op rows "
        f"({s['rows']} in the table) as {s['row_targets']} callables, "
        f"{s['functions']} public functions, {s['calls']} calls in {s['seconds']} s, "
        f"{len(s['findings'])} findings")
    return s


def test_every_call_returns_or_raises_a_clean_exception(summary):
    assert summary["findings"] == []


def test_every_published_row_is_swept(summary):
    assert summary["rows_unreached"] == []
    assert summary["rows_without_baseline"] == []
    assert summary["rows_reached"] == summary["published_rows"] > 0


def test_every_public_function_is_swept(summary):
    assert summary["functions_uncovered"] == []
    assert summary["functions"] > 0


def test_the_sweep_is_large(summary):
    # wrong values in every position of every target, not a token sample
    assert summary["calls"] > 50 * (summary["row_targets"] + summary["functions"])
