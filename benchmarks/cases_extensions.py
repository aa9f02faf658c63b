"""C extensions: what a custom op costs per call beside a built-in op, in minitorch
(the example's C op, a Python custom_op) and in PyTorch (torch.library.custom_op)."""
import os
import tempfile

from harness import Case, Ratio, Variant

GROUP = "extensions"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_made = {}


def _my_lib(lib):
    """examples/c_extension/my_lib.c, built once (cached by load())."""
    if "my_lib" not in _made:
        from minitorch.utils import cpp_extension
        build = os.path.join(tempfile.gettempdir(), "minitorch_bench_extensions")
        _made["my_lib"] = cpp_extension.load(
            "my_lib", [os.path.join(ROOT, "examples", "c_extension", "my_lib.c")],
            build_directory=build)
    return _made["my_lib"]


def _python_op(lib):
    """The same add as a custom op written in Python, in lib's own library module."""
    key = ("py", lib.__name__)
    if key not in _made:
        @lib.library.custom_op("bench_ext::pyadd", mutates_args=())
        def pyadd(a: lib.Tensor, b: lib.Tensor) -> lib.Tensor:
            return a + b
        _made[key] = pyadd
    return _made[key]


def _args(lib):
    return {"x": lib.ones(1), "y": lib.ones(1)}


def _c_op(lib):
    return "op(x, y)", {"op": _my_lib(lib).add, **_args(lib)}


def _builtin(lib):
    return "add(x, y)", {"add": lib.add, **_args(lib)}


def _py_op(lib):
    return "op(x, y)", {"op": _python_op(lib), **_args(lib)}


def cases():
    return [Case(
        GROUP, "custom op vs built-in add, 1-element tensors",
        [Variant("minitorch C custom op", "minitorch", _c_op),
         Variant("minitorch add", "minitorch", _builtin),
         Variant("minitorch Python custom_op", "minitorch", _py_op),
         Variant("torch custom_op", "torch", _py_op),
         Variant("torch add", "torch", _builtin)],
        [Ratio("minitorch C custom op / minitorch add", "minitorch C custom op", "minitorch add",
               1.5),
         Ratio("minitorch Python custom_op / minitorch add", "minitorch Python custom_op",
               "minitorch add"),
         Ratio("torch custom_op / torch add", "torch custom_op", "torch add"),
         Ratio("minitorch Python custom_op / torch custom_op", "minitorch Python custom_op",
               "torch custom_op")],
        notes=["C custom op: examples/c_extension/my_lib.c's my_lib::add (parser, runner, "
               "kernel through the public C API), JIT-built with minitorch.utils.cpp_extension; "
               "custom_op: @library.custom_op returning a + b, in minitorch and in torch"])]
