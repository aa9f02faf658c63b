#!/usr/bin/env bash
# NumPy 1.x (issue 18): the NumPy-scalar, foreign-tensor and interop tests
# against numpy==1.26.4. The project venv keeps NumPy 2, so NumPy 1 gets a
# venv of its own; it reads the active venv's site-packages after its own
# (torch from there) and imports minitorch from this checkout's in-place
# build, which targets the NumPy 1.22 ABI and so loads under both.
set -euo pipefail

cd "$(dirname "$0")/.."
VENV=.ci-venv-numpy1
OUTER_SITE=$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

if [ ! -x "$VENV/bin/python" ]; then
    python -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q numpy==1.26.4 pytest
INNER_SITE=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$OUTER_SITE" > "$INNER_SITE/zz_outer_venv.pth"
"$VENV/bin/python" -c 'import numpy; assert numpy.__version__ == "1.26.4", numpy.__version__'

"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/test_numpy_scalars.py \
    tests/test_foreign_tensors.py tests/test_tensor_interop.py tests/test_number_operands.py
