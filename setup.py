"""Builds minitorch._C from every C file under csrc/ against CPython and NumPy."""
import glob
import os

import numpy
from setuptools import Extension, setup

SOURCES = sorted(glob.glob(os.path.join("csrc", "**", "*.c"), recursive=True))
DEPENDS = sorted(glob.glob(os.path.join("csrc", "**", "*.h"), recursive=True)
                 + glob.glob(os.path.join("csrc", "**", "*.def"), recursive=True))

# Portable build: no -march=native; hot loops get AVX2 clones at run time.
EXTRA = ["-std=c11", "-O3", "-fno-strict-aliasing", "-Wall", "-Wno-unused-function",
         "-Wno-missing-field-initializers", "-fvisibility=hidden", "-pthread"]
if os.environ.get("MINITORCH_SANITIZE"):
    # no block cache either, so ASan sees every use after free
    EXTRA += ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-O1", "-g",
              "-DMT_NO_BLOCK_CACHE"]

setup(
    ext_modules=[
        Extension(
            "minitorch._C",
            sources=SOURCES,
            depends=DEPENDS,
            include_dirs=[numpy.get_include()],
            define_macros=[("NPY_TARGET_VERSION", "NPY_1_22_API_VERSION"),
                           ("NPY_NO_DEPRECATED_API", "NPY_1_22_API_VERSION")],
            extra_compile_args=EXTRA,
            extra_link_args=["-pthread"] + (["-fsanitize=address,undefined"]
                                            if os.environ.get("MINITORCH_SANITIZE") else []),
        )
    ],
)
