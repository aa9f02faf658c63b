"""Building C and C++ extensions against minitorch's C API (minitorch/minitorch.h),
with torch.utils.cpp_extension's names.

Ahead of time, in a setup.py:

    from setuptools import setup
    from minitorch.utils.cpp_extension import BuildExtension, CppExtension
    setup(name="lltm_cpp", ext_modules=[CppExtension("lltm_cpp", ["lltm.cpp"])],
          cmdclass={"build_ext": BuildExtension})

Just in time, from Python:

    my_lib = load("my_lib", ["my_lib.c"], extra_cflags=["-O2"], verbose=True)
    lltm = load_inline("lltm_cpp", cpp_sources=text, functions=["forward", "backward"])

Each source is compiled by its suffix: ``.c`` as C with the C compiler
(``load`` adds ``-std=c11``), ``.cpp``/``.cc``/``.cxx``/``.c++``/``.C`` as C++
(``-std=c++17``) with the C++ compiler (those Python was built with, through
setuptools; the ``CC``/``CXX`` variables override them), and a library with
C++ in it is linked by the C++ compiler. ``load_inline``'s ``cpp_sources``
are C++. A ``-std=`` of your own in ``extra_cflags`` replaces ours for its
language.

``load`` builds into ``build_directory`` (default: a folder per name under
``$MINITORCH_EXTENSIONS_DIR`` or ``~/.cache/minitorch_extensions``). The
library's file name carries a hash of the sources, the flags, the Python
version and minitorch's header, so an unchanged extension is loaded without
compiling and a changed one is rebuilt. A failed compile or link raises
RuntimeError "Error building extension '<name>'" followed by the compiler's
output, as torch words it.

This module builds with setuptools, a dependency of minitorch (a fresh Python
3.12 environment has none until minitorch's install brings it).
"""
import contextlib
import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from typing import Dict, List, Optional, Sequence, Union

try:
    from setuptools import Extension
    from setuptools.command.build_ext import build_ext
except ImportError as _missing:  # only an environment minitorch was not installed into
    raise ImportError(
        "minitorch.utils.cpp_extension builds extensions with setuptools, which is not "
        "installed in this Python environment: pip install 'setuptools>=77' (a dependency "
        "of minitorch-c, which its installation brings)") from _missing

__all__ = ["include_paths", "CExtension", "CppExtension", "BuildExtension", "load",
           "load_inline", "get_default_build_root", "compiler_available"]

CPP_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++", ".C")
_CUDA_SUFFIXES = (".cu", ".cuh")


def _is_cpp(path: str) -> bool:
    return os.path.splitext(path)[1] in CPP_SUFFIXES


def _std_flags(compiler, cpp: bool, user_flags: Sequence[str]) -> List[str]:
    """Our language standard for one language, unless the user's flags name a
    standard of that language."""
    if compiler.compiler_type == "msvc":
        return ["/std:c++17"] if cpp else []
    own = any(f.startswith("-std=") and _std_is_cpp(f) == cpp for f in user_flags)
    return [] if own else ["-std=c++17" if cpp else "-std=c11"]


def _optimisation(compiler) -> List[str]:
    """load()'s optimisation level, before the user's flags."""
    return ["/O2"] if compiler.compiler_type == "msvc" else ["-O2"]


def _std_is_cpp(flag: str) -> bool:
    return "++" in flag


def _flags_for(cpp: bool, user_flags: Sequence[str]) -> List[str]:
    """The user's flags for one language: a -std= of the other one left out
    (a C++ standard would make the C compiler fail, and the other way)."""
    return [f for f in user_flags if not (f.startswith("-std=") and _std_is_cpp(f) != cpp)]


def include_paths(device_type: str = "cpu") -> List[str]:
    """The folders to compile a minitorch extension with: the one holding
    minitorch/minitorch.h."""
    import minitorch
    return [minitorch.get_include()]


def CExtension(name: str, sources: Sequence[str], *args, **kwargs) -> Extension:
    """A setuptools Extension compiled against minitorch's C API (C or C++
    sources, each compiled as its suffix says)."""
    kwargs["include_dirs"] = list(kwargs.get("include_dirs", [])) + include_paths()
    kwargs.setdefault("language", "c++" if any(map(_is_cpp, sources)) else "c")
    return Extension(name, list(sources), *args, **kwargs)


def CppExtension(name: str, sources: Sequence[str], *args, **kwargs) -> Extension:
    """A setuptools Extension of C++ sources against minitorch's C API,
    linked by the C++ compiler (torch's name)."""
    kwargs.setdefault("language", "c++")
    return CExtension(name, sources, *args, **kwargs)


class BuildExtension(build_ext):
    """setuptools' build_ext, making sure every extension sees minitorch's
    headers (an Extension not made by CExtension included) and compiles C++
    sources as C++17 (unless their flags name a standard). extra_compile_args
    may be a list, for every source, or torch's dict ({"cxx": [...]}: for
    every source too, as torch gives them to C files as well)."""

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
        """Adds minitorch's include folder to every extension and our
        language standards to each source, then builds with setuptools."""
        for ext in self.extensions:
            if isinstance(ext.extra_compile_args, dict):
                ext.extra_compile_args = list(ext.extra_compile_args.get("cxx", []))
            for path in include_paths():
                if path not in ext.include_dirs:
                    ext.include_dirs.append(path)
        compiler = self.compiler
        original = compiler._compile

        def compile_one(obj, src, ext, cc_args, extra_postargs, pp_opts):
            # C sources keep the compiler's own standard here, as torch's
            # BuildExtension leaves them
            cpp = _is_cpp(src)
            flags = _flags_for(cpp, extra_postargs)
            std = _std_flags(compiler, cpp, flags) if cpp else []
            return original(obj, src, ext, cc_args, std + flags, pp_opts)
        if compiler.compiler_type != "msvc":  # MSVC compiles through compile(), not _compile
            compiler._compile = compile_one
        super().build_extensions()


def get_default_build_root() -> str:
    """The folder under which load() builds when given no build_directory."""
    root = os.environ.get("MINITORCH_EXTENSIONS_DIR")
    if root:
        return os.path.abspath(root)
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return os.path.join(os.path.expanduser("~"), ".cache", "minitorch_extensions", tag)


class _Capture:
    """Runs the compiler's commands with their output kept, for the error
    message of a failed build (and echoed when verbose)."""

    def __init__(self, verbose: bool):
        self.verbose = verbose
        self.output: List[str] = []

    def __call__(self, cmd, **kwargs):
        cmd = [os.fspath(c) for c in cmd]
        if self.verbose:
            print(subprocess.list2cmdline(cmd), file=sys.stderr)
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env=kwargs.get("env"))
        if done.stdout:
            self.output.append(done.stdout)
            if self.verbose:
                print(done.stdout, end="", file=sys.stderr)
        if done.returncode:
            raise subprocess.CalledProcessError(done.returncode, cmd, done.stdout)


def _compiler(capture: Optional[_Capture] = None):
    """setuptools' C and C++ compiler, set up as Python's own build was; with
    capture, its commands run through it."""
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler
    compiler = new_compiler()
    customize_compiler(compiler)
    if capture is not None:
        # setuptools runs commands through call() (newer) or spawn() (older)
        compiler.call = compiler.spawn = capture
    return compiler


def compiler_available(cpp: bool = False) -> bool:
    """Whether the C compiler (with cpp=True, the C++ compiler) load() would
    use is installed."""
    try:
        compiler = _compiler()
    except Exception:  # noqa: BLE001 - any failure to set one up means no compiler
        return False
    names = ("compiler_so_cxx", "compiler_cxx") if cpp else ("compiler_so", "compiler")
    command = next((getattr(compiler, n) for n in names if getattr(compiler, n, None)), None)
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
    capture = _Capture(verbose)
    compiler = _compiler(capture)
    objects_dir = os.path.join(directory, "objects_" + os.path.basename(library).split(".")[0])
    includes = include_paths() + [sysconfig.get_paths()["include"]] + list(include_dirs)
    cpp_sources = [os.path.abspath(s) for s in sources if _is_cpp(s)]
    c_sources = [os.path.abspath(s) for s in sources if not _is_cpp(s)]
    if verbose:
        print(f"Building extension module {name}...", file=sys.stderr)
    try:
        objects = []
        for cpp, group in ((False, c_sources), (True, cpp_sources)):
            if group:
                flags = _flags_for(cpp, cflags)
                own = _optimisation(compiler) + _std_flags(compiler, cpp, flags)
                objects += compiler.compile(group, output_dir=objects_dir, include_dirs=includes,
                                            extra_postargs=own + flags)
        partial = library + ".partial"
        compiler.link_shared_object(objects, partial, extra_postargs=list(ldflags),
                                    target_lang="c++" if cpp_sources else "c")
    except Exception as e:
        output = "".join(capture.output).rstrip() or str(e)
        raise RuntimeError(f"Error building extension '{name}': {output}") from e
    os.replace(partial, library)
    shutil.rmtree(objects_dir, ignore_errors=True)


def _import_module_from_library(name: str, path: str):
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _refuse_gpu(function: str, with_cuda, with_sycl, flags) -> None:
    if with_cuda or with_sycl or any(flags):
        raise RuntimeError(f"minitorch has no CUDA or SYCL device: {function}() builds C and "
                           "C++ sources for the CPU only")


def load(name: str, sources: Union[str, Sequence[str]], extra_cflags: Optional[List[str]] = None,
         extra_cuda_cflags: Optional[List[str]] = None,
         extra_sycl_cflags: Optional[List[str]] = None,
         extra_ldflags: Optional[List[str]] = None,
         extra_include_paths: Optional[List[str]] = None, build_directory: Optional[str] = None,
         verbose: bool = False, with_cuda: Optional[bool] = None,
         with_sycl: Optional[bool] = None, is_python_module: bool = True,
         is_standalone: bool = False, keep_intermediates: bool = True):
    """Compiles sources (C and C++, by suffix) into the extension module name
    (cached: see the module's doc) and imports it. With is_python_module=False
    the library is only loaded (ctypes) and its path returned. torch's
    CUDA/SYCL options must be left unset or false."""
    _refuse_gpu("load", with_cuda, with_sycl, (extra_cuda_cflags, extra_sycl_cflags))
    if is_standalone:
        raise RuntimeError("load(is_standalone=True): minitorch builds Python extension "
                           "modules and shared libraries only, no executables")
    if not name.isidentifier():
        raise ValueError(f"load(): the module name must be a Python identifier (its init "
                         f"function is PyInit_<name>), got {name!r}")
    sources = [sources] if isinstance(sources, str) else list(sources)
    gpu = [s for s in sources if os.path.splitext(s)[1] in _CUDA_SUFFIXES]
    if gpu:
        raise RuntimeError(f"minitorch has no CUDA device: load() cannot build {gpu[0]}")
    cflags, ldflags = list(extra_cflags or []), list(extra_ldflags or [])
    include_dirs = list(extra_include_paths or [])
    directory = os.path.abspath(build_directory or os.path.join(get_default_build_root(), name))
    os.makedirs(directory, exist_ok=True)
    digest = _digest(name, sources, cflags, ldflags, include_dirs)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    library = os.path.join(directory, f"{name}_{digest}{suffix}")
    with _build_lock(directory):
        if not os.path.exists(library):
            cpp = any(map(_is_cpp, sources))
            if not compiler_available(cpp=cpp):
                raise RuntimeError(f"Error building extension '{name}': no "
                                   f"{'C++' if cpp else 'C'} compiler found (setuptools looks "
                                   "for the one Python was built with)")
            _build(name, sources, cflags, ldflags, include_dirs, directory, library, verbose)
    if verbose:
        print(f"Loading extension module {name} from {library}...", file=sys.stderr)
    if not is_python_module:
        import ctypes
        ctypes.CDLL(library)
        return library
    return _import_module_from_library(name, library)


def _c_string(text: str) -> str:
    """text as a C and C++ string literal."""
    out = []
    for byte in text.encode():
        char = chr(byte)
        if char in '"\\?':
            out.append("\\" + char)
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _bindings(name: str, functions: Union[Sequence[str], Dict[str, str]]) -> str:
    """The module init of load_inline, in C that is C++ too: each function,
    `PyObject *f(PyObject *self, PyObject *args)`, as a METH_VARARGS method."""
    if isinstance(functions, str):
        functions = [functions]
    docs = functions if isinstance(functions, dict) else {f: "" for f in functions}
    for f in docs:
        if not isinstance(f, str) or not f.isidentifier():
            raise ValueError(f"load_inline(): functions must name C/C++ functions, got {f!r}")
    defs = "".join(f"    {{{_c_string(f)}, {f}, METH_VARARGS, {_c_string(doc or '')}}},\n"
                   for f, doc in docs.items())
    return (f"\nstatic PyMethodDef load_inline_methods[] = {{\n{defs}"
            f"    {{NULL, NULL, 0, NULL}},\n}};\n"
            f"static struct PyModuleDef load_inline_module = {{PyModuleDef_HEAD_INIT, "
            f"{_c_string(name)}, NULL, -1, load_inline_methods, NULL, NULL, NULL, NULL}};\n"
            f"PyMODINIT_FUNC PyInit_{name}(void)\n{{\n"
            f"    if (import_minitorch() < 0)\n        return NULL;\n"
            f"    return PyModule_Create(&load_inline_module);\n}}\n")


def load_inline(name: str, cpp_sources: Union[str, Sequence[str]],
                cuda_sources: Optional[Union[str, Sequence[str]]] = None,
                sycl_sources: Optional[Union[str, Sequence[str]]] = None,
                functions: Optional[Union[str, Sequence[str], Dict[str, str]]] = None,
                extra_cflags: Optional[List[str]] = None,
                extra_cuda_cflags: Optional[List[str]] = None,
                extra_sycl_cflags: Optional[List[str]] = None,
                extra_ldflags: Optional[List[str]] = None,
                extra_include_paths: Optional[List[str]] = None,
                build_directory: Optional[str] = None, verbose: bool = False,
                with_cuda: Optional[bool] = None, with_sycl: Optional[bool] = None,
                is_python_module: bool = True, with_pytorch_error_handling: bool = True,
                keep_intermediates: bool = True, use_pch: bool = False,
                no_implicit_headers: bool = False):
    """load() from C++ source text, written to build_directory/main.cpp after
    `#include <minitorch/minitorch.h>` (left out with no_implicit_headers).
    With functions (a name, names, or names to docstrings) the module init is
    generated, importing the C API and exposing each function, which must be
    `PyObject *f(PyObject *self, PyObject *args)` (C linkage is not needed);
    without functions the text defines PyInit_<name> itself. torch's CUDA and
    SYCL options must be left unset or false; with_pytorch_error_handling,
    keep_intermediates and use_pch change nothing here."""
    _refuse_gpu("load_inline", with_cuda, with_sycl,
                (cuda_sources, sycl_sources, extra_cuda_cflags, extra_sycl_cflags))
    if not name.isidentifier():
        raise ValueError(f"load_inline(): the module name must be a Python identifier (its init "
                         f"function is PyInit_<name>), got {name!r}")
    text = cpp_sources if isinstance(cpp_sources, str) else "\n".join(cpp_sources)
    header = "" if no_implicit_headers else "#include <minitorch/minitorch.h>\n\n"
    source = header + text + "\n"
    if functions:
        source += _bindings(name, functions)
    directory = os.path.abspath(build_directory or os.path.join(get_default_build_root(), name))
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "main.cpp")
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
