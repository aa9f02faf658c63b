"""Builds minitorch._C from every C file under csrc/ against CPython and NumPy."""
import glob
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCES = sorted(glob.glob(os.path.join("csrc", "**", "*.c"), recursive=True))
DEPENDS = sorted(glob.glob(os.path.join("csrc", "**", "*.h"), recursive=True)
                 + glob.glob(os.path.join("csrc", "**", "*.def"), recursive=True))

# Portable build: no -march=native; hot loops get AVX2 clones at run time
# where the compiler and platform allow (csrc/core/portable.h).
EXTRA = ["-std=c11", "-O3", "-fno-strict-aliasing", "-Wall", "-Wno-unused-function",
         "-Wno-missing-field-initializers", "-fvisibility=hidden", "-pthread"]
LINK = ["-pthread"]
if os.environ.get("MINITORCH_SANITIZE"):
    # no block cache either, so ASan sees every use after free
    EXTRA += ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-O1", "-g",
              "-DMT_NO_BLOCK_CACHE"]
    LINK += ["-fsanitize=address,undefined"]
# glibc before 2.34 keeps dlopen in libdl (manylinux2014 is 2.17)
LIBRARIES = ["dl"] if sys.platform.startswith("linux") else []


def compile_in_parallel(compiler, jobs):
    """Makes the Unix compiler compile `jobs` objects at a time (distutils'
    compile() does one after another, and its -j splits extensions only, of
    which minitorch has one) and keep an object newer than its source, every
    header and the last build's command line (a .c change rebuilds one object;
    a header change, another compiler or other flags rebuild all)."""
    def compile(sources, output_dir=None, macros=None, include_dirs=None, debug=False,
                extra_preargs=None, extra_postargs=None, depends=None):
        macros, objects, extra, pp_opts, build = compiler._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs)
        cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)
        command = repr((compiler.compiler_so, cc_args, extra))
        stamp = os.path.join(output_dir or ".", "minitorch-build-command")
        same_command = os.path.exists(stamp) and open(stamp).read() == command
        newest_header = max((os.path.getmtime(d) for d in depends or ()), default=0.0)

        def stale(obj):
            return not (same_command and os.path.exists(obj) and os.path.getmtime(obj) >=
                        max(newest_header, os.path.getmtime(build[obj][0])))

        with ThreadPoolExecutor(jobs) as pool:
            for done in [pool.submit(compiler._compile, obj, *build[obj], cc_args, extra,
                                     pp_opts) for obj in objects if stale(obj)]:
                done.result()
        os.makedirs(output_dir or ".", exist_ok=True)
        with open(stamp, "w") as f:
            f.write(command)
        return objects
    compiler.compile = compile


class BuildExt(build_ext):
    """Writes the type stubs from the extension just built (tools/gen_stubs.py
    reads its op table), beside the package the build produced: in the
    checkout for an in-place or editable build, in build_lib for a wheel (pip
    install ., an sdist), whose build_py has copied the package there first.

    On Windows, compiles with clang-cl (LLVM's MSVC-compatible driver, part
    of Visual Studio's C++ Clang tools): the kernels use GNU vector extensions
    and builtins that cl.exe lacks. Untested by this project's CI."""

    def run(self):
        super().run()
        root = os.path.dirname(os.path.abspath(__file__))
        into = root if self.inplace or self.editable_mode else os.path.abspath(self.build_lib)
        if not os.path.exists(os.path.join(into, "minitorch", "__init__.py")):
            # a bare `setup.py build_ext` without build_py: no package to import yet
            print("minitorch: stubs not written, no package in " + into)
            return
        subprocess.run([sys.executable, os.path.join(root, "tools", "gen_stubs.py"),
                        "--into", into], check=True)

    def build_extensions(self):
        if self.compiler.compiler_type == "msvc":
            clang_cl = shutil.which("clang-cl")
            if not clang_cl:
                sys.exit("building minitorch on Windows needs clang-cl "
                         "(Visual Studio's 'C++ Clang tools for Windows')")
            self.compiler.initialize()
            self.compiler.cc = clang_cl
            for ext in self.extensions:
                ext.extra_compile_args = ["/std:c11", "/O2", "-Wno-unused-function"]
                ext.extra_link_args = []
        elif self.compiler.compiler_type == "unix":
            # -j N sets the jobs; without it, one per core
            jobs = self.parallel if type(self.parallel) is int else os.cpu_count() or 1
            compile_in_parallel(self.compiler, jobs)
        super().build_extensions()


setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=[
        Extension(
            "minitorch._C",
            sources=SOURCES,
            depends=DEPENDS,
            include_dirs=[numpy.get_include()],
            define_macros=[("NPY_TARGET_VERSION", "NPY_1_22_API_VERSION"),
                           ("NPY_NO_DEPRECATED_API", "NPY_1_22_API_VERSION")],
            extra_compile_args=EXTRA,
            extra_link_args=LINK,
            libraries=LIBRARIES,
        )
    ],
)
