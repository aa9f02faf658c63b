"""Floors of the package's layout: the C floors include only headers of
their own floor and the floors below it (so no file under csrc/ops includes
an autograd header), nothing below csrc/python names Python, no module-level
import cycle inside minitorch, and nn.functional a package that only gathers
its modules.

An import cycle is a strongly connected set of more than one module in the
graph of module-level imports (those at the top of a module, and those inside
a top-level if or try, TYPE_CHECKING blocks included): it makes what a module
sees depend on which one was imported first. A module importing one of its
own ancestor packages is how packages are laid out and is not counted."""
import ast
import importlib
import os
import pkgutil
import re
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "minitorch"
CSRC = ROOT / "csrc"
# Each C floor, lowest first; a file may include its own floor and those
# below. The two hosts (the binding and the plain-C one) stand on autograd.
FLOORS = {"core": 0, "kernels": 1, "ops": 2, "autograd": 3, "python": 4, "standalone": 4}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
# CPython's header and API names (Py_INCREF, PyErr_Format, PyObject, ...),
# not words such as PyTorch
PYTHON_NAMES = re.compile(r"Python\.h|\bPy_\w+|\bPy[A-Z][A-Za-z]*_\w+|\bPy\w*Object\b")


def _floor_of(path: Path, csrc: Path = CSRC):
    """The floor of a file under csrc/; None for csrc/ops.def, the table
    every floor reads."""
    rel = path.relative_to(csrc).parts
    return FLOORS[rel[0]] if len(rel) > 1 else None


def _c_files(csrc: Path = CSRC):
    return sorted(p for p in csrc.rglob("*") if p.suffix in (".c", ".h", ".def"))


def include_violations(csrc: Path = CSRC, files=None):
    """(file, included file) pairs, relative to csrc, where a file includes a
    header of a floor above its own."""
    out = []
    for path in _c_files(csrc) if files is None else files:
        own = _floor_of(path, csrc)
        for target in INCLUDE.findall(path.read_text(encoding="utf-8")):
            resolved = Path(os.path.normpath(path.parent / target))
            if own is None or csrc not in resolved.parents:
                continue
            other = _floor_of(resolved, csrc)
            if other is not None and other > own:
                out.append((str(path.relative_to(csrc)), str(resolved.relative_to(csrc))))
    return out


def test_c_floors_include_only_their_own_floor_and_those_below():
    assert include_violations() == []


def test_no_op_file_includes_an_autograd_header():
    ops = [p for p in _c_files() if p.relative_to(CSRC).parts[0] == "ops"]
    includes = [t for p in ops for t in INCLUDE.findall(p.read_text(encoding="utf-8"))]
    assert len(ops) > 50 and len(includes) > 100
    assert [t for t in includes if "autograd/" in t] == []


def test_the_floor_check_sees_an_include_from_above(tmp_path):
    for folder in ("ops/runtime", "autograd", "core"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "autograd" / "node.h").write_text("")
    (tmp_path / "core" / "tensor.h").write_text("")
    (tmp_path / "ops" / "runtime" / "run.c").write_text(
        '#include "../../core/tensor.h"\n#include "../../autograd/node.h"\n')
    (tmp_path / "autograd" / "record.c").write_text('#include "../ops/runtime/run.c"\n')
    assert include_violations(tmp_path) == [("ops/runtime/run.c", "autograd/node.h")]


def test_nothing_below_the_binding_names_python():
    below = [p for p in _c_files() if p.relative_to(CSRC).parts[0] != "python"]
    assert len(below) > 100
    assert [str(p.relative_to(ROOT)) for p in below
            if PYTHON_NAMES.search(p.read_text(encoding="utf-8"))] == []


def _module_names(package_dir: Path) -> dict:
    """{dotted name: path} of every .py file under package_dir."""
    out = {}
    for path in package_dir.rglob("*.py"):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _module_level_imports(body: list) -> list:
    """The Import and ImportFrom statements run when the module is imported:
    those of its body and of the if / try blocks in it, not those in defs."""
    out = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        elif isinstance(node, ast.If):
            out += _module_level_imports(node.body) + _module_level_imports(node.orelse)
        elif isinstance(node, ast.Try):
            blocks = [node.body, node.orelse, node.finalbody] + [h.body for h in node.handlers]
            for block in blocks:
                out += _module_level_imports(block)
    return out


def _targets(node, module: str, is_package: bool) -> set:
    """The dotted names an import statement may load: the module it names and,
    for `from X import a`, X.a (a submodule when one exists)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    return {source} | {f"{source}.{alias.name}" for alias in node.names}


def import_graph(package_dir: Path) -> dict:
    """{module: the package's modules it imports at module level}, without
    edges to itself or to its ancestor packages."""
    modules = _module_names(package_dir)
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        found = set()
        for node in _module_level_imports(tree.body):
            found |= _targets(node, name, is_package)
        graph[name] = {t for t in found if t in modules and t != name
                       and not name.startswith(t + ".")}
    return graph


def import_cycles(graph: dict) -> list:
    """The strongly connected sets of more than one module, each sorted: the
    modules each of which reaches every other."""
    reach = {}
    for start in graph:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        reach[start] = seen
    cycles = set()
    for m in graph:
        component = frozenset(n for n in reach[m] if m in reach[n]) | {m}
        if len(component) > 1:
            cycles.add(tuple(sorted(component)))
    return sorted(list(c) for c in cycles)


def _write(root: Path, files: dict) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_finder_reports_a_two_module_cycle_and_nothing_else(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "from . import parent_user\n",
        # the cycle: a relative from-import one way, an absolute import in a try the other
        "pkg/a.py": "from .b import value\n",
        "pkg/b.py": "try:\n    import pkg.a\nexcept ImportError:\n    pass\nvalue = 1\n",
        # importing the package a module sits in is no cycle
        "pkg/parent_user.py": "import pkg\nfrom . import helpers\n",
        "pkg/helpers.py": "",
        # an import inside a function runs later: no edge
        "pkg/late.py": "from .early import f\n",
        "pkg/early.py": "def f():\n    from . import late\n    return late\n",
        # a TYPE_CHECKING block is still module level
        "pkg/sub/__init__.py": "",
        "pkg/sub/x.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .y import Y\n",
        "pkg/sub/y.py": "from ..sub import x\nY = int\n",
    })
    graph = import_graph(tmp_path / "pkg")
    assert graph["pkg.a"] == {"pkg.b"}
    assert graph["pkg.b"] == {"pkg.a"}
    assert graph["pkg.parent_user"] == {"pkg.helpers"}
    assert graph["pkg.early"] == set()
    assert graph["pkg.sub.x"] == {"pkg.sub.y"}
    assert graph["pkg.sub.y"] == {"pkg.sub.x"}
    assert import_cycles(graph) == [["pkg.a", "pkg.b"], ["pkg.sub.x", "pkg.sub.y"]]


def test_finder_passes_an_acyclic_package(tmp_path):
    _write(tmp_path, {"pkg/__init__.py": "from .a import *\n", "pkg/a.py": "from .b import v\n",
                      "pkg/b.py": "import pkg\nv = 1\n"})
    graph = import_graph(tmp_path / "pkg")
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": set()}
    assert import_cycles(graph) == []


def test_minitorch_has_no_import_cycles():
    graph = import_graph(PACKAGE)
    assert len(graph) > 100 and "minitorch.nn.functional.losses" in graph
    assert import_cycles(graph) == []


def test_nn_functional_init_only_gathers():
    tree = ast.parse((PACKAGE / "nn" / "functional" / "__init__.py").read_text())
    docstring, *body = tree.body
    assert isinstance(docstring, ast.Expr) and isinstance(docstring.value.value, str)
    assert body and all(isinstance(node, ast.ImportFrom) for node in body)


def test_nn_functional_submodules_shadow_no_function():
    """A submodule named as one of the functions (dropout.py beside
    F.dropout) would make F.<name> the module or the function depending on
    import order; every submodule stays reachable as itself."""
    F = importlib.import_module("minitorch.nn.functional")
    names = [m.name for m in pkgutil.iter_modules(F.__path__)]
    assert "losses" in names and "op_rows" in names
    for name in names:
        assert isinstance(getattr(F, name), types.ModuleType), name


def test_the_python_check_knows_cpython_names_from_words():
    found = [w for w in ("PyObject", "Py_INCREF", "PyErr_Format", "PyTypeObject",
                         "#include <Python.h>", "PyTorch", "a Python number", "numpy")
             if PYTHON_NAMES.search(w)]
    assert found == ["PyObject", "Py_INCREF", "PyErr_Format", "PyTypeObject",
                     "#include <Python.h>"]
