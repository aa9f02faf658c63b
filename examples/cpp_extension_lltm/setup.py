"""pip install ./examples/cpp_extension_lltm: builds lltm.cpp (C++) against the
installed minitorch's C API into the package minitorch_lltm_example (lltm_cpp
and lltm)."""
import site
import sysconfig

from setuptools import setup

try:
    import minitorch  # noqa: F401
except ImportError:
    # pip builds in an isolated environment that hides the installed packages;
    # minitorch's headers and build helpers are those of the environment
    # being installed into (.pth files included, so editable installs count)
    site.addsitedir(sysconfig.get_paths()["purelib"])
from minitorch.utils.cpp_extension import BuildExtension, CppExtension

setup(
    name="minitorch-lltm-example",
    version="0.1.0",
    description="minitorch's C++ extension example: the LLTM cell of PyTorch's tutorial",
    package_dir={"minitorch_lltm_example": "."},
    py_modules=["minitorch_lltm_example.lltm"],
    ext_modules=[CppExtension("minitorch_lltm_example.lltm_cpp", ["lltm.cpp"])],
    cmdclass={"build_ext": BuildExtension},
)
