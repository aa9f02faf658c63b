#!/usr/bin/env bash
# The C sources are laid out as .clang-format says (run by .ci/run): fails,
# naming each file and line, where clang-format would change anything. The
# row tables (*.def) are laid out by hand, one row a line, and are not
# checked. `tools/check_c_format.sh --fix` rewrites the files instead.
set -euo pipefail

cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files 'csrc/*.c' 'csrc/*.h' 'tests/c/*.c' 'minitorch/include/*.h')
if [ "${1:-}" = "--fix" ]; then
    clang-format -i "${files[@]}"
else
    clang-format --dry-run -Werror "${files[@]}"
fi
