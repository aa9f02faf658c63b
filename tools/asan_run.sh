#!/usr/bin/env bash
# Builds minitorch._C with AddressSanitizer + UBSan into build/asan-lib (the in-place
# build is left alone) and runs tests against it. Any sanitizer report fails the run.
#
#   tools/asan_run.sh                      # the fuzz sweeps, hostile-input, overlap, core,
#                                          # kernel, autograd, func, nn, resize and
#                                          # memory-format test files
#                                          # (what .ci/run runs)
#   tools/asan_run.sh tests/test_foo.py -k bar
#
# max_allocation_size_mb: a size the sweep asks for by mistake fails as MemoryError instead
# of filling the shared machine's memory.
# Leak detection is off: CPython's own arenas and interned objects look like leaks;
# tests/test_memory.py checks our leaks through RSS instead.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON="${PYTHON:-python3}"
LIB=$ROOT/build/asan-lib
LOGS=$ROOT/build/asan-logs

"$PYTHON" - "$LIB" <<'PY'
import shutil, sys
shutil.copytree("minitorch", sys.argv[1] + "/minitorch", dirs_exist_ok=True,
                ignore=shutil.ignore_patterns("*.so", "__pycache__"))
PY
MINITORCH_SANITIZE=1 "$PYTHON" setup.py -q build_ext --build-temp build/asan-temp \
    --build-lib "$LIB" -j"$(nproc)" 2>&1 | grep -E "error|warning:" || true

if [ "$#" -eq 0 ]; then
    set -- tests/test_fuzz_sweep.py tests/test_fuzz_capi.py tests/test_fuzz_findings.py \
        tests/test_hostile_input.py tests/test_overlap.py tests/test_unlocked_lifetime.py \
        tests/test_serialization.py \
        tests/test_tensor_*.py tests/test_parser.py tests/test_torch_function*.py \
        tests/test_overrides_*.py tests/test_kernels_*.py tests/test_autograd_*.py \
        tests/test_gradcheck*.py tests/test_checkpoint.py tests/test_func_*.py \
        tests/test_library.py tests/test_nn_*.py tests/test_optim.py \
        tests/test_resize.py tests/test_memory_format.py tests/test_amp.py
fi
ARGS=()
for a in "$@"; do
    if [ -e "$a" ]; then ARGS+=("$ROOT/$a"); else ARGS+=("$a"); fi
done

rm -rf "$LOGS" && mkdir -p "$LOGS"
status=0
# The interpreter is not instrumented, so the ASan runtime must be loaded first;
# libstdc++ too, or ASan cannot intercept the C++ exceptions torch (the reference) throws.
# Running from $LIB puts the sanitized package first on sys.path.
(cd "$LIB" && \
    LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)" \
    ASAN_OPTIONS="detect_leaks=0:log_path=$LOGS/asan:allocator_may_return_null=1:max_allocation_size_mb=8192" \
    UBSAN_OPTIONS="print_stacktrace=1:log_path=$LOGS/ubsan" \
    PYTHONMALLOC=malloc \
    "$PYTHON" -m pytest -q -p no:cacheprovider -n "$(nproc)" "${ARGS[@]}") || status=$?

# Huge allocations that return NULL (tests of MemoryError) only log a warning.
if grep -lE "ERROR: AddressSanitizer|runtime error:|CHECK failed" "$LOGS"/* 2>/dev/null; then
    echo "=== sanitizer reports ($LOGS) ==="
    cat "$LOGS"/*
    status=1
else
    echo "no sanitizer reports"
fi
exit "$status"
