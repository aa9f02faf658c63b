"""pip install ./examples/c_extension: builds my_lib.c against the installed
minitorch's C API into the package minitorch_c_example (my_lib, functions,
modules)."""
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
from minitorch.utils.cpp_extension import BuildExtension, CExtension

setup(
    name="minitorch-c-example",
    version="0.1.0",
    description="minitorch's C extension example: add forward/backward and a custom op",
    package_dir={"minitorch_c_example": "."},
    py_modules=["minitorch_c_example.functions", "minitorch_c_example.modules"],
    ext_modules=[CExtension("minitorch_c_example.my_lib", ["my_lib.c"])],
    cmdclass={"build_ext": BuildExtension},
)
