#!/usr/bin/env bash
# Portability checks (.ci/run runs this after the test suite, in its venv with
# minitorch built in place):
#  1. the built extension needs no glibc symbol newer than 2.17 (manylinux2014);
#  2. a clang build for x86-64 compiles warning-free, imports, and passes the
#     kernel, float16 and BLAS test files (clang 14 takes the software float16
#     path, so this also runs that code);
#  3. every C file compiles (to an object) for aarch64 Linux with GCC and with
#     clang, warnings as errors, against the host's CPython headers with an
#     aarch64 pyconfig.h and NumPy's headers (both LP64); the GCC objects are
#     linked only to check their glibc symbol versions as in 1;
#  4. the plain-C floors (core, kernels, ops, autograd: no Python headers)
#     compile for Windows with MinGW-w64, warnings as errors, which covers the
#     Win32 branches of core/threads.h and core/dynlib.c (never run);
#  5. with NumPy 1.26 (whose OpenBLAS is spelled libopenblas64_/cblas_sgemm64_)
#     the BLAS search finds the library, in a throwaway venv.
# Needs clang, aarch64-linux-gnu-gcc (with the aarch64 libc headers) and
# x86_64-w64-mingw32-gcc; installs them with apt-get when missing and allowed
# (Debian: clang, gcc-aarch64-linux-gnu, gcc-mingw-w64-x86-64).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON="${PYTHON:-python}"
BUILD=$ROOT/build/portability
mkdir -p "$BUILD"
WARN=(-std=c11 -O1 -fPIC -pthread -fno-strict-aliasing -Wall -Werror -Wno-unused-function
      -Wno-missing-field-initializers -DNPY_TARGET_VERSION=NPY_1_22_API_VERSION
      -DNPY_NO_DEPRECATED_API=NPY_1_22_API_VERSION)

need() {
    if ! command -v "$1" >/dev/null; then
        if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
            # a fresh machine may have no package lists yet
            apt-get install -y -q "$2" >/dev/null 2>&1 ||
                { apt-get update -q >/dev/null && apt-get install -y -q "$2" >/dev/null; }
        else
            echo "ci_portability: $1 is missing (Debian package $2)" >&2
            exit 1
        fi
    fi
}
need clang clang
need aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
need x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64

# fails when the shared object $2 (read with objdump $1) needs a glibc symbol
# version above 2.17
check_glibc() {
    local newest
    newest=$("$1" -T "$2" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)
    echo "$2: newest symbol version GLIBC_$newest"
    if [ "$(printf '%s\n2.17\n' "$newest" | sort -V | tail -1)" != "2.17" ]; then
        "$1" -T "$2" | grep -E 'GLIBC_2\.(1[89]|[2-9][0-9])' >&2
        echo "ci_portability: $2 needs glibc > 2.17 (manylinux2014's)" >&2
        exit 1
    fi
}

echo "== glibc symbol versions of minitorch._C"
check_glibc objdump "$("$PYTHON" -c "import minitorch._C as c; print(c.__file__)")"

echo "== clang x86-64 build and tests"
"$PYTHON" - "$BUILD/clang-lib" <<'PY'
import shutil, sys
shutil.copytree("minitorch", sys.argv[1] + "/minitorch", dirs_exist_ok=True,
                ignore=shutil.ignore_patterns("*.so", "__pycache__"))
PY
CC=clang CFLAGS="-Werror" "$PYTHON" setup.py -q build_ext --build-temp "$BUILD/clang-temp" \
    --build-lib "$BUILD/clang-lib" -j"$(nproc)"
(cd "$BUILD/clang-lib" && "$PYTHON" -c "import minitorch; print(minitorch.__config__.show())" &&
    "$PYTHON" -m pytest -q -p no:cacheprovider "$ROOT/tests/test_portability.py" \
        "$ROOT/tests/test_blas_discovery.py" "$ROOT"/tests/test_kernels_*.py)

echo "== aarch64 compile (GCC and clang, objects only)"
PYINC=$("$PYTHON" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
NPINC=$("$PYTHON" -c "import numpy; print(numpy.get_include())")
# Python.h includes "pyconfig.h" from its own folder, so the whole folder is
# copied; the x86-only assembler switches go, the LP64 sizes stay right.
rm -rf "$BUILD/py-aarch64" && cp -r "$PYINC" "$BUILD/py-aarch64"
sed -i '/HAVE_GCC_ASM_FOR_X64\|HAVE_GCC_ASM_FOR_X87/d' "$BUILD/py-aarch64/pyconfig.h"
rm -rf "$BUILD/aarch64" && mkdir -p "$BUILD/aarch64"
export BUILD NPINC
export WARNFLAGS="${WARN[*]}"
find csrc -name '*.c' | sort | xargs -P"$(nproc)" -I{} sh -c '
    out="$BUILD/aarch64/$(echo "$1" | tr / _)"
    aarch64-linux-gnu-gcc $WARNFLAGS -I"$BUILD/py-aarch64" -I"$NPINC" -c "$1" -o "$out.gcc.o" &&
    clang --target=aarch64-linux-gnu --sysroot=/usr/aarch64-linux-gnu \
        -isystem /usr/aarch64-linux-gnu/include $WARNFLAGS -I"$BUILD/py-aarch64" -I"$NPINC" \
        -c "$1" -o "$out.clang.o"' _ {}
echo "$(find csrc -name '*.c' | wc -l) files compiled for aarch64 with GCC and clang"
# linked (Python's symbols left undefined) only to read its glibc versions
aarch64-linux-gnu-gcc -shared -pthread -o "$BUILD/aarch64/_C.so" "$BUILD"/aarch64/*.gcc.o -ldl
check_glibc aarch64-linux-gnu-objdump "$BUILD/aarch64/_C.so"

echo "== Windows compile of the plain-C floors (MinGW-w64, objects only)"
mkdir -p "$BUILD/mingw"
find csrc/core csrc/kernels csrc/ops csrc/autograd -name '*.c' | sort |
    xargs -P"$(nproc)" -I{} sh -c '
    x86_64-w64-mingw32-gcc $WARNFLAGS -c "$1" -o "$BUILD/mingw/$(echo "$1" | tr / _).o"' _ {}

echo "== BLAS search with NumPy 1.26"
VENV=$BUILD/numpy126-venv
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q numpy==1.26.4 pytest hypothesis
"$VENV/bin/python" -c "import numpy; assert numpy.__version__ == '1.26.4'"
PYTHONPATH=$ROOT "$VENV/bin/python" -m pytest -q -p no:cacheprovider \
    "$ROOT/tests/test_blas_discovery.py" "$ROOT/tests/test_portability.py"
PYTHONPATH=$ROOT "$VENV/bin/python" -c "
import minitorch._blas as b
i = b.info()
assert i['found'] and i['symbol'] == 'cblas_sgemm64_', i
print('NumPy 1.26 OpenBLAS:', i['path'])"
