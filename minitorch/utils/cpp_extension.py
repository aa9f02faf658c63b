"""Building C extensions against minitorch's C API (minitorch/minitorch.h), with
torch.utils.cpp_extension's names.

Ahead of time, in a setup.py:

    from setuptools import setup
    from minitorch.utils.cpp_extension import BuildExtension, CExtension
    setup(name="my_lib", ext_modules=[CExtension("my_lib", ["my_lib.c"])],
          cmdclass={"build_ext": BuildExtension})

Just in time, from Python:

    my_lib = load("my_lib", ["my_lib.c"], extra_cflags=["-O2"], verbose=True)

``load`` compiles with the system C compiler (the one Python was built with,
through setuptools), into ``build_directory`` (default: a folder per name
under ``$MINITORCH_EXTENSIONS_DIR`` or ``~/.cache/minitorch_extensions``). The
library's file name carries a hash of the sources, the flags, the Python
version and minitorch's header, so an unchanged extension is loaded without
compiling and a changed one is rebuilt.
"""
import contextlib
import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import sys
import sysconfig
from typing import Dict, List, Optional, Sequence, Union

from setuptools import Extension
from setuptools.command.build_ext import build_ext

__all__ = ["include_paths", "CExtension", "CppExtension", "BuildExtension", "load",
           "load_inline", "get_default_build_root", "compiler_available"]


def _common_cflags(compiler) -> List[str]:
    return ["/O2"] if compiler.compiler_type == "msvc" else ["-std=c11", "-O2"]


def include_paths(device_type: str = "cpu") -> List[str]:
    """The folders to compile a minitorch extension with: the one holding
    minitorch/minitorch.h."""
    import minitorch
    return [minitorch.get_include()]


def CExtension(name: str, sources: Sequence[str], *args, **kwargs) -> Extension:
    """A setuptools Extension compiled against minitorch's C API."""
    kwargs["include_dirs"] = list(kwargs.get("include_dirs", [])) + include_paths()
    kwargs.setdefault("language", "c")
    return Extension(name, list(sources), *args, **kwargs)


# torch's name for it; minitorch's API is C, which C++ compilers accept too
CppExtension = CExtension


class BuildExtension(build_ext):
    """setuptools' build_ext, making sure every extension sees minitorch's
    headers (an Extension not made by CExtension included)."""

    @classmethod
    def with_options(cls, **options):
        """A subclass whose constructor takes options as defaults (torch's API)."""
        class _WithOptions(cls):
            def __init__(self, *args, **kwargs):
                kwargs = {**options, **kwargs}
                super().__init__(*args, **kwargs)
        return _WithOptions

    def __init__(self, *args, **kwargs):
        kwargs.pop("no_python_abi_suffix", None)
        kwargs.pop("use_ninja", None)
        super().__init__(*args, **kwargs)

    def build_extensions(self):
        """Adds minitorch's include folder to every extension, then builds them with setuptools."""
        for ext in self.extensions:
            for path in include_paths():
                if path not in ext.include_dirs:
                    ext.include_dirs.append(path)
        super().build_extensions()


def get_default_build_root() -> str:
    """The folder under which load() builds when given no build_directory."""
    root = os.environ.get("MINITORCH_EXTENSIONS_DIR")
    if root:
        return os.path.abspath(root)
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return os.path.join(os.path.expanduser("~"), ".cache", "minitorch_extensions", tag)


def _compiler():
    """setuptools' C compiler, set up as Python's own build was."""
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler
    compiler = new_compiler()
    customize_compiler(compiler)
    return compiler


def compiler_available() -> bool:
    """Whether the C compiler load() would use is installed."""
    try:
        compiler = _compiler()
    except Exception:  # noqa: BLE001 - any failure to set one up means no compiler
        return False
    command = getattr(compiler, "compiler_so", None) or getattr(compiler, "compiler", None)
    if not command:  # MSVC finds itself when compiling
        return True
    return shutil.which(command[0]) is not None


def _digest(name: str, sources: Sequence[str], *flag_lists) -> str:
    import minitorch
    h = hashlib.sha256()
    for part in (name, sys.version, minitorch.__version__, repr(flag_lists)):
        h.update(part.encode())
    with open(os.path.join(minitorch.get_include(), "minitorch", "minitorch.h"), "rb") as f:
        h.update(f.read())
    for path in sources:
        h.update(os.path.abspath(path).encode())
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


@contextlib.contextmanager
def _build_lock(directory: str):
    """One build at a time per folder, across processes (where fcntl exists)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(os.path.join(directory, ".lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _build(name, sources, cflags, ldflags, include_dirs, directory, library, verbose):
    compiler = _compiler()
    compiler.verbose = verbose
    objects_dir = os.path.join(directory, "objects_" + os.path.basename(library).split(".")[0])
    python_include = sysconfig.get_paths()["include"]
    if verbose:
        print(f"Building extension module {name}...", file=sys.stderr)
    try:
        objects = compiler.compile(
            [os.path.abspath(s) for s in sources], output_dir=objects_dir,
            include_dirs=include_paths() + [python_include] + list(include_dirs),
            extra_postargs=_common_cflags(compiler) + list(cflags))
        partial = library + ".partial"
        compiler.link_shared_object(objects, partial, extra_postargs=list(ldflags))
    except Exception as e:
        raise RuntimeError(f"Error building extension '{name}': {e}") from e
    os.replace(partial, library)
    shutil.rmtree(objects_dir, ignore_errors=True)


def _import_module_from_library(name: str, path: str):
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def load(name: str, sources: Union[str, Sequence[str]], extra_cflags: Optional[List[str]] = None,
         extra_ldflags: Optional[List[str]] = None,
         extra_include_paths: Optional[List[str]] = None, build_directory: Optional[str] = None,
         verbose: bool = False, is_python_module: bool = True, **unused_cuda_options):
    """Compiles sources into the extension module name (cached: see the module's
    doc) and imports it. With is_python_module=False the library is only
    loaded (ctypes) and its path returned."""
    if unused_cuda_options.get("with_cuda") or unused_cuda_options.get("extra_cuda_cflags"):
        raise RuntimeError("minitorch has no CUDA: load() builds C sources only")
    if not name.isidentifier():
        raise ValueError(f"load(): the module name must be a Python identifier (its init "
                         f"function is PyInit_<name>), got {name!r}")
    sources = [sources] if isinstance(sources, str) else list(sources)
    cflags, ldflags = list(extra_cflags or []), list(extra_ldflags or [])
    include_dirs = list(extra_include_paths or [])
    directory = os.path.abspath(build_directory or os.path.join(get_default_build_root(), name))
    os.makedirs(directory, exist_ok=True)
    digest = _digest(name, sources, cflags, ldflags, include_dirs)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    library = os.path.join(directory, f"{name}_{digest}{suffix}")
    with _build_lock(directory):
        if not os.path.exists(library):
            if not compiler_available():
                raise RuntimeError(f"Error building extension '{name}': no C compiler found "
                                   "(setuptools looks for the one Python was built with)")
            _build(name, sources, cflags, ldflags, include_dirs, directory, library, verbose)
    if verbose:
        print(f"Loading extension module {name} from {library}...", file=sys.stderr)
    if not is_python_module:
        import ctypes
        ctypes.CDLL(library)
        return library
    return _import_module_from_library(name, library)


def _bindings(name: str, functions: Union[Sequence[str], Dict[str, str]]) -> str:
    """The module init of load_inline: each function, `PyObject *f(PyObject *self,
    PyObject *args)`, as a METH_VARARGS method."""
    docs = functions if isinstance(functions, dict) else {f: "" for f in functions}
    defs = "".join(f'    {{"{f}", {f}, METH_VARARGS, {doc!r}}},\n'.replace("'", '"')
                   for f, doc in docs.items())
    return (f"\nstatic PyMethodDef load_inline_methods[] = {{\n{defs}    {{NULL}},\n}};\n"
            f"static struct PyModuleDef load_inline_module = {{PyModuleDef_HEAD_INIT, "
            f'"{name}", NULL, -1, load_inline_methods}};\n'
            f"PyMODINIT_FUNC PyInit_{name}(void)\n{{\n"
            f"    if (import_minitorch() < 0)\n        return NULL;\n"
            f"    return PyModule_Create(&load_inline_module);\n}}\n")


def load_inline(name: str, cpp_sources: Union[str, Sequence[str]],
                functions: Optional[Union[Sequence[str], Dict[str, str]]] = None,
                extra_cflags: Optional[List[str]] = None,
                extra_ldflags: Optional[List[str]] = None,
                extra_include_paths: Optional[List[str]] = None,
                build_directory: Optional[str] = None, verbose: bool = False,
                is_python_module: bool = True, **unused_cuda_options):
    """load() from source text. The text is compiled after `#include
    <minitorch/minitorch.h>`; with functions (names, or names to docstrings)
    the module init is generated, importing the C API and exposing each one,
    which must be `PyObject *f(PyObject *self, PyObject *args)`. Without
    functions the text defines PyInit_<name> itself."""
    if unused_cuda_options.get("cuda_sources"):
        raise RuntimeError("minitorch has no CUDA: load_inline() builds C sources only")
    text = cpp_sources if isinstance(cpp_sources, str) else "\n".join(cpp_sources)
    source = "#include <minitorch/minitorch.h>\n\n" + text + "\n"
    if functions:
        source += _bindings(name, functions)
    directory = os.path.abspath(build_directory or os.path.join(get_default_build_root(), name))
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "main.c")
    old = None
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    if old != source:
        # written whole or not at all: a concurrent load() reads either text
        partial = f"{path}.{os.getpid()}"
        with open(partial, "w") as f:
            f.write(source)
        os.replace(partial, path)
    return load(name, [path], extra_cflags=extra_cflags, extra_ldflags=extra_ldflags,
                extra_include_paths=extra_include_paths, build_directory=directory,
                verbose=verbose, is_python_module=is_python_module)
