#!/usr/bin/env bash
# Builds the documentation site (docs/, Sphinx) with warnings as errors into a
# temporary folder, as CI's docs step: installs the `docs` extra's packages
# into the active environment (minitorch itself must already be built and
# importable from the repository root: the API pages are generated from the
# built package's docstrings). Exits non-zero on any warning.
#
#   tools/ci_docs.sh            # build and discard
#   tools/ci_docs.sh OUT_DIR    # build into OUT_DIR and keep it
set -euo pipefail

cd "$(dirname "$0")/.."

python - <<'PY' | xargs python -m pip install -q
import tomllib
with open("pyproject.toml", "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["optional-dependencies"]["docs"]))
PY

if [ $# -ge 1 ]; then
    out=$1
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
python -m sphinx -E -W --keep-going -q -b html docs "$out"
