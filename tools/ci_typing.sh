#!/usr/bin/env bash
# The typing check of CI (issue 19): installs the `typing` extra's type checkers
# (mypy, and basedpyright for pyright's checker) into the active venv and runs
# tests/test_typing.py, which fails unless both accept correct user code, flag
# every planted mistake at its line, and the committed stubs are the op table's.
set -euo pipefail

cd "$(dirname "$0")/.."
# the extra's own list, so this script and pyproject.toml cannot disagree
python - <<'PY' | xargs python -m pip install -q
import re
with open("pyproject.toml") as f:
    extra = re.search(r"^typing = \[(.*)\]$", f.read(), re.M).group(1)
print("\n".join(re.findall(r'"([^"]+)"', extra)))
PY
python -m pytest -q tests/test_typing.py
