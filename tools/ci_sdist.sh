#!/usr/bin/env bash
# The source distribution stands alone: builds the sdist, checks that it holds
# every file git tracks (but the CI and git settings) and no build output,
# installs it (not editable) into a fresh virtualenv, imports minitorch from
# outside any source tree and checks the installed metadata, then runs the
# sdist's own tests, unpacked, against the installed package: the whole tests/
# folder must collect, and the files below must pass (those that need no torch).
# Run by .ci/run from the active venv; installs `build` there. Takes about 70 s of
# CPU, most of it compiling the extension once.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

python -m pip install -q build
python -m build -q --sdist --outdir "$WORK/dist" "$ROOT" >/dev/null
SDIST=$(echo "$WORK"/dist/*.tar.gz)

python - "$SDIST" <<'PY'
import subprocess, sys, tarfile
with tarfile.open(sys.argv[1]) as tar:
    names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
tracked = set(subprocess.run(["git", "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split())
missing = sorted(f for f in tracked if not f.startswith((".ci/", ".gitignore")) and f not in names)
built = sorted(n for n in names if n.endswith((".so", ".o", ".pyc", ".pt", ".png")))
if missing or built:
    sys.exit(f"sdist: missing {missing}; build output {built}")
print(f"sdist: {len(names)} entries, every tracked file")
PY

python -m venv "$WORK/venv"
VPY=$WORK/venv/bin/python
"$VPY" -m pip install -q "$SDIST[test,examples]"

cd "$WORK"
"$VPY" - <<'PY'
import importlib.metadata as md
import sysconfig

import minitorch

site = sysconfig.get_paths()["purelib"]
assert minitorch.__file__.startswith(site), minitorch.__file__
dist = md.distribution("minitorch-c")
assert dist.metadata["Name"] == "minitorch-c", dist.metadata["Name"]
assert dist.metadata["License-Expression"] == "BSD-3-Clause", dist.metadata["License-Expression"]
assert any(p.name == "LICENSE" for p in dist.files), "no LICENSE in the installed metadata"
x = minitorch.arange(6.0).reshape(2, 3)
assert (x @ x.T).tolist() == [[5.0, 14.0], [14.0, 50.0]]
print(f"installed {dist.metadata['Name']} {dist.version}; minitorch from {minitorch.__file__}")
PY

tar -xzf "$SDIST" -C "$WORK"
cd "$WORK"/minitorch_c-*/
# The venv's pytest script, not `python -m pytest`: the unpacked tree's minitorch/
# (sources, no _C) must not shadow the installed package.
"$WORK/venv/bin/pytest" -q -p no:cacheprovider --collect-only tests | tail -1
"$WORK/venv/bin/pytest" -q -p no:cacheprovider tests/test_examples.py tests/test_c_layer.py \
    tests/test_free_threading.py tests/test_torch_function.py
