#!/usr/bin/env bash
# CI step for the checkpoint formats: installs the `interop` extra of
# pyproject.toml (the safetensors package, without which
# tests/test_safetensors.py skips) into the active venv and runs the tests that
# compare minitorch's safetensors reader and writer with it. The torch zip
# format's tests need only torch and run in the main pytest run.
set -euo pipefail

cd "$(dirname "$0")/.."
mapfile -t deps < <(python - <<'PY'
import tomllib

with open("pyproject.toml", "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["optional-dependencies"]["interop"]))
PY
)
python -m pip install -q "${deps[@]}"
python -m pytest -q tests/test_safetensors.py
