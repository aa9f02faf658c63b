"""Writes minitorch's type stubs from the op table (issue 19).

    python tools/gen_stubs.py                 rewrite the checkout's stubs
    python tools/gen_stubs.py --check         exit 1 when a stub differs
    python tools/gen_stubs.py --into DIR      the stubs of the package built in DIR

setup.py's build_ext runs it after each build, so the stubs are build output
(git-ignored), never a file to remember.

Reads the rows of the built extension (`minitorch._C._op_rows()`): each
published row's signature string becomes a typed def, rows sharing a name
become @overload defs, and an int list a call may also spell as varargs
(`x.view(2, 3)`, `zeros(2, 3)`) gets a `*size: int` overload too. Writes

    minitorch/_C.pyi                the extension: dtype, Size, Generator,
                                    TensorBase with every method row, and the
                                    Tensor methods overrides.composite adds
    minitorch/_op_functions.pyi     the rows published as minitorch.<name>
    minitorch/nn/_op_functions.pyi  the rows published as nn.functional.<name>
    minitorch/_special_functions.pyi  the rows published as special.<name>

and an __init__.pyi for each package of PACKAGES, re-exporting every name the
package holds from the module that makes it (the op table's functions from
_op_functions.pyi), as mypy --strict and pyright want re-exports spelled.
nn/functional/op_rows.py star-imports nn/_op_functions.pyi under TYPE_CHECKING,
where at run time it spreads `_C._nn_functions` into its namespace. The Python
modules are typed by their own annotations. tests/test_typing.py checks the
package's stubs equal this output.
"""
import argparse
import difflib
import inspect
import keyword
import os
import re
import sys
import types
import typing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What a row returns, where it is not a Tensor (the signature strings do not say).
RETURNS = {
    **dict.fromkeys(("dim", "ndimension", "numel", "element_size", "storage_offset", "data_ptr",
                     "__len__", "__index__", "__int__"), "_int"),
    **dict.fromkeys(("is_contiguous", "is_floating_point", "is_complex", "is_conj", "is_neg",
                     "is_inference", "__bool__", "allclose", "equal"), "_bool"),
    "__float__": "_float",
    # torch's stub leaves complex out too, so user code adding to it type-checks
    "item": "_int | _float | _bool",
    "tolist": "Any",
    "numpy": "_np.ndarray[Any, Any]",
    **dict.fromkeys(("unbind", "split", "split_with_sizes", "chunk", "unsafe_split",
                     "unsafe_split_with_sizes", "unsafe_chunk"), "tuple[Tensor, ...]"),
    **dict.fromkeys(("var_mean", "std_mean", "_layer_norm_rows", "_rms_norm_rows",
                     "_group_norm_rows", "_batch_norm_train", "_fused_attention"),
                    "tuple[Tensor, Tensor]"),
    **dict.fromkeys(("_norm_rows_backward", "_batch_norm_backward", "_fused_attention_backward"),
                    "tuple[Tensor, Tensor, Tensor]"),
    # the LAPACK rows answer their factors with LAPACK's info
    **dict.fromkeys(("_lapack_getrf", "_lapack_potrf", "_lapack_potri", "_lapack_syevd",
                     "_lapack_gesdd", "_lapack_geqrf", "_lapack_sytrf", "_lapack_gels",
                     "_lapack_geev"),
                    "tuple[Tensor, ...]"),
    "_rnn_layer": "tuple[Tensor, Tensor, Tensor, Tensor]",
    "_rnn_layer_backward": "tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]",
    "unique": "Any",  # a Tensor, or a tuple with return_inverse / return_counts
    "result_type": "_dtype",
    "__dlpack__": "Any",
    "__dlpack_device__": "tuple[_int, _int]",
    "__setitem__": "None",
    **dict.fromkeys(("_fused_sgd_step", "_fused_adam_step", "_fused_rmsprop_step",
                     "_fused_adagrad_step", "_fused_nadam_step", "_fused_radam_step",
                     "_fused_adamax_step", "_fused_rprop_step", "_fused_asgd_step"), "None"),
}
RETURNS_BY_SIGNATURE = {"where(Tensor condition)": "tuple[Tensor, ...]"}
# torch.return_types.<name>: the rows of these names with a dim parameter.
NAMED_TUPLES = {"max": ("values", "indices"), "min": ("values", "indices"),
                "median": ("values", "indices"), "nanmedian": ("values", "indices"),
                "mode": ("values", "indices"), "sort": ("values", "indices"),
                "topk": ("values", "indices"), "kthvalue": ("values", "indices"),
                "cummax": ("values", "indices"), "cummin": ("values", "indices"),
                "aminmax": ("min", "max")}
# Rows whose result type follows an argument's value: written out here.
BY_VALUE = {
    "size": ["def size(self, dim: None = None) -> Size: ...",
             "def size(self, dim: _int) -> _int: ..."],
    "stride": ["def stride(self, dim: None = None) -> tuple[_int, ...]: ...",
               "def stride(self, dim: _int) -> _int: ..."],
    "type": ["def type(self, dtype: None = None, non_blocking: _bool = ...) -> _str: ...",
             "def type(self, dtype: _dtype | _str, non_blocking: _bool = ...) -> Tensor: ..."],
}

TYPES = {
    "Tensor": "Tensor", "Tensor|Scalar": "Tensor | _Scalar", "Tensor|Number": "Tensor | _Scalar",
    "Tensor[]": "Sequence[Tensor]", "int[]": "Sequence[_int]", "int": "_int", "float": "_float",
    "Scalar": "_Scalar", "bool": "_bool", "dtype": "_dtype", "str": "_str",
    "Generator": "Generator", "Device": "_Device", "Layout": "Any", "MemoryFormat": "Any",
    "object": "Any",
}

HEADER = "# Generated by tools/gen_stubs.py from the op table: do not edit.\n"
IMPORTS = """\
from builtins import bool as _bool, float as _float, int as _int, str as _str
from builtins import type as _type
from typing import Any, Literal, Sequence, overload
"""
# Tensor's own `dtype` and `type` shadow these names in its class body. A
# Scalar is no complex: minitorch has no complex dtype and the parser refuses one.
ALIASES = """\
_dtype = dtype
_Scalar = _bool | _int | _float
_Device = device | _str | _int
"""


def split_params(inner):
    """The parameters of a signature, split at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch in "[("
        depth -= ch in "])"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


class Param:
    def __init__(self, text, kwonly):
        decl, _, default = text.partition("=")
        type_text, self.name = decl.rsplit(" ", 1)
        self.default = bool(default)
        self.kwonly = kwonly
        self.optional = type_text.endswith("?")
        base = type_text.rstrip("?")
        fixed = re.fullmatch(r"int\[(\d+)\]", base)
        self.int_list = base == "int[]" or bool(fixed)
        # int[N] also takes one int, repeated
        self.annotation = "_int | Sequence[_int]" if fixed else TYPES[base]
        if self.optional:
            self.annotation += " | None"

    def render(self):
        name = self.name + "_" if keyword.iskeyword(self.name) else self.name
        return f"{name}: {self.annotation}" + (" = ..." if self.default else "")


def parse(signature):
    name, _, rest = signature.partition("(")
    params, kwonly = [], False
    for text in split_params(rest[:rest.rindex(")")]):
        if text == "*":
            kwonly = True
            continue
        params.append(Param(text, kwonly))
    return name, params


def result_type(name, signature, params):
    if signature in RETURNS_BY_SIGNATURE:
        return RETURNS_BY_SIGNATURE[signature]
    if name in NAMED_TUPLES and any(p.name == "dim" for p in params):
        return f"return_types.{name}"
    return RETURNS.get(name, "Tensor")


def render_defs(name, params, returns, method):
    """One row as def lines: its own, and a varargs form for a lone int list
    that is the first positional after self."""
    if method:
        params = params[1:]
    positional = [p for p in params if not p.kwonly]
    lists = [p for p in positional if p.int_list]
    forms = [None]
    if len(lists) == 1 and positional and positional[0] is lists[0] and len(positional) == 1:
        forms.append(lists[0])
    out = []
    for varargs in forms:
        parts = ["self"] if method else []
        star = False
        for p in params:
            if p is varargs:
                parts.append(f"*{p.name}: _int")
                star = True
                continue
            if p.kwonly and not star:
                parts.append("*")
                star = True
            parts.append(p.render())
            if keyword.iskeyword(p.name):
                parts.append("/")  # a keyword cannot be passed by name
        out.append(f"def {name}({', '.join(parts)}) -> {returns}: ...")
    if name == "nonzero":  # as_tuple=True returns a tuple of index tensors
        return [line.replace("as_tuple: _bool = ...", "as_tuple: Literal[False] = ...")
                for line in out] + [
            line.replace("as_tuple: _bool = ...", "as_tuple: Literal[True]")
                .replace("-> Tensor:", "-> tuple[Tensor, ...]:") for line in out]
    return out


def declared_returns(name, signature, method):
    """The result types the stub declares for one row (several where the
    result follows an argument's value)."""
    if method and name in BY_VALUE:
        defs = BY_VALUE[name]
    else:
        _, params = parse(signature)
        defs = render_defs(name, params, result_type(name, signature, params), method)
    return sorted({d[d.rindex(") -> ") + 5:-len(": ...")] for d in defs})


def rows_for(kind):
    """{name: [signature, ...]} of the rows published with kind, in table order."""
    import minitorch
    out = {}
    for _id, name, kinds, signature, *_rest in minitorch._C._op_rows():
        if kind in kinds:
            out.setdefault(name, []).append(signature)
    return out


def render_group(rows, method, indent=""):
    """The defs of each name: its rows in table order, varargs forms last (a
    form taking no int would otherwise hide a row taking no argument)."""
    lines = []
    for name, signatures in rows.items():
        if method and name in BY_VALUE:
            defs = BY_VALUE[name]
        else:
            defs = []
            for signature in signatures:
                _, params = parse(signature)
                for d in render_defs(name, params, result_type(name, signature, params), method):
                    if d not in defs:
                        defs.append(d)
            defs.sort(key=lambda d: bool(re.search(r"\((self, )?\*\w", d)))
        # torch's __eq__ returns a Tensor where object's returns a bool: mypy
        # reports it at the first line of the name, pyright at its last def
        ignore = "  # type: ignore[override]" if name in ("__eq__", "__ne__") else ""
        pyright = "  # pyright: ignore[reportIncompatibleMethodOverride]" if ignore else ""
        for i, d in enumerate(defs):
            if len(defs) > 1:
                lines.append(indent + "@overload" + ignore)
                d += pyright if i == len(defs) - 1 else ""
            else:
                d += ignore
            lines.append(indent + d)
            ignore = ""
    return lines


# -------------------------------------------------- Python-level Tensor methods

# The classes a Python method's annotation may name, as the stub spells them.
_CLASSES = {"Tensor": "Tensor", "int": "_int", "float": "_float", "bool": "_bool", "str": "_str",
            "dtype": "_dtype", "Size": "Size", "Generator": "Generator",
            "tuple": "tuple", "list": "list", "dict": "dict", "Sequence": "Sequence"}


def annotation_text(annotation):
    """An annotation of a Python function as stub text; Any where it names
    something the stub does not import."""
    import collections.abc
    if annotation is inspect.Parameter.empty or isinstance(annotation, str):
        return "Any"
    if annotation is None or annotation is type(None):
        return "None"
    if annotation is Ellipsis:
        return "..."
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Union:
        return " | ".join(annotation_text(a) for a in args)
    if origin is not None:
        name = "Sequence" if origin is collections.abc.Sequence else getattr(origin, "__name__", "")
        if name not in _CLASSES:
            return "Any"
        return f"{_CLASSES[name]}[{', '.join(annotation_text(a) for a in args)}]"
    return _CLASSES.get(getattr(annotation, "__name__", None), "Any")


def python_def(name, fn, method):
    """A def of a Python function or method, typed by its annotations."""
    sig = inspect.signature(fn, eval_str=True)
    parts, star = [], False
    for i, p in enumerate(sig.parameters.values()):
        if i == 0 and method:
            parts.append("self")
            continue
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}: {annotation_text(p.annotation)}")
            star = True
            continue
        if p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}: {annotation_text(p.annotation)}")
            continue
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        default = "" if p.default is p.empty else " = ..."
        parts.append(f"{p.name}: {annotation_text(p.annotation)}{default}")
    return f"def {name}({', '.join(parts)}) -> {annotation_text(sig.return_annotation)}: ..."


def composite_methods():
    """The Tensor methods written in Python that overrides.composite sets on
    minitorch.Tensor at import (the class body of _tensor.py types its own)."""
    import minitorch
    own = minitorch._C.TensorBase.__dict__
    out = []
    for name, fn in sorted(vars(minitorch.Tensor).items()):
        if name in own or not callable(fn) or getattr(fn, "__qualname__", "") != f"Tensor.{name}":
            continue
        wrapped = getattr(fn, "__wrapped__", None)
        if wrapped is not None and wrapped.__module__ != "minitorch._tensor":
            out.append(python_def(name, wrapped, method=True))
    return out


# -------------------------------------------------------------------- _C.pyi

C_CLASSES = '''\
class dtype:
    @property
    def is_floating_point(self) -> _bool: ...
    @property
    def is_complex(self) -> _bool: ...
    @property
    def is_signed(self) -> _bool: ...
    @property
    def itemsize(self) -> _int: ...
    def to_real(self) -> dtype: ...

class Size(tuple[_int, ...]):
    def __new__(cls, sizes: Sequence[_int] = ...) -> Size: ...
    @overload
    def __getitem__(self, key: SupportsIndex, /) -> _int: ...
    @overload
    def __getitem__(self, key: slice, /) -> Size: ...
    def numel(self) -> _int: ...

class Generator:
    def __new__(cls, device: _Device = ...) -> Generator: ...
    @property
    def device(self) -> device: ...
    def get_state(self) -> Tensor: ...
    def set_state(self, new_state: Tensor, /) -> Generator: ...
    def initial_seed(self) -> _int: ...
    def manual_seed(self, seed: _int, /) -> Generator: ...
    def seed(self) -> _int: ...

class _RemovableHandle:
    id: _int
    def remove(self) -> None: ...
    def __enter__(self) -> _RemovableHandle: ...
    def __exit__(self, *args: Any) -> None: ...

class _Node:
    @property
    def next_functions(self) -> tuple[tuple[_Node | None, _int], ...]: ...
    @property
    def metadata(self) -> dict[Any, Any]: ...
    @property
    def variable(self) -> Tensor: ...
    def name(self) -> _str: ...
    def register_hook(self, fn: Callable[..., Any], /) -> _RemovableHandle: ...
    def register_prehook(self, fn: Callable[..., Any], /) -> _RemovableHandle: ...
    def __getattr__(self, name: _str) -> Any: ...

class _FunctionBase:
    @property
    def saved_tensors(self) -> tuple[Tensor, ...]: ...
    @property
    def saved_variables(self) -> tuple[Tensor, ...]: ...

class DisableTorchFunction:
    def __enter__(self) -> None: ...
    def __exit__(self, *args: Any) -> None: ...

class DisableTorchFunctionSubclass:
    def __enter__(self) -> None: ...
    def __exit__(self, *args: Any) -> None: ...
'''

# TensorBase's attributes that are no op row: the binding's getsets and
# autograd methods.
TENSOR_ATTRIBUTES = '''\
    def __new__(cls, *args: Any, **kwargs: Any) -> Self: ...
    def __hash__(self) -> _int: ...
    @classmethod
    def __torch_function__(cls, func: Callable[..., Any], types: Any, args: Any = ...,
                           kwargs: Any = ...) -> Any: ...
    @property
    def shape(self) -> Size: ...
    @property
    def dtype(self) -> _dtype: ...
    @property
    def ndim(self) -> _int: ...
    @property
    def itemsize(self) -> _int: ...
    @property
    def nbytes(self) -> _int: ...
    @property
    def requires_grad(self) -> _bool: ...
    @requires_grad.setter
    def requires_grad(self, value: _bool) -> None: ...
    @property
    def grad(self) -> Tensor | None: ...
    @grad.setter
    def grad(self, value: Tensor | None) -> None: ...
    @property
    def data(self) -> Tensor: ...
    @data.setter
    def data(self, value: Tensor) -> None: ...
    @property
    def grad_fn(self) -> _Node | None: ...
    @property
    def is_leaf(self) -> _bool: ...
    @property
    def retains_grad(self) -> _bool: ...
    @property
    def output_nr(self) -> _int: ...
    @property
    def _base(self) -> Tensor | None: ...
    @property
    def _version(self) -> _int: ...
    def backward(self, gradient: Tensor | None = ..., retain_graph: _bool | None = ...,
                 create_graph: _bool = ...,
                 inputs: Tensor | Sequence[Tensor] | None = ...) -> None: ...
    def requires_grad_(self, requires_grad: _bool = ...) -> Self: ...
    def retain_grad(self) -> None: ...
    def detach_(self) -> Self: ...
    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> _RemovableHandle: ...
    def register_post_accumulate_grad_hook(
            self, hook: Callable[[Tensor], None]) -> _RemovableHandle: ...
    def as_subclass(self, cls: _type[_T]) -> _T: ...
    @staticmethod
    def _make_subclass(cls: _type[_T], data: Tensor, require_grad: _bool = ...) -> _T: ...
    def _is_view(self) -> _bool: ...
'''

# _C's public functions; its other private names are typed Any below.
C_FUNCTIONS = '''\
def get_default_dtype() -> dtype: ...
def set_default_dtype(d: dtype, /) -> None: ...
def promote_types(type1: dtype, type2: dtype, /) -> dtype: ...
def can_cast(from_: dtype, to: dtype, /) -> _bool: ...
def set_num_threads(n: _int, /) -> None: ...
def get_num_threads() -> _int: ...
def is_grad_enabled() -> _bool: ...
def is_inference_mode_enabled() -> _bool: ...
def is_anomaly_enabled() -> _bool: ...
def is_anomaly_check_nan_enabled() -> _bool: ...
'''


def render_return_types():
    lines = ["class return_types:"]
    for name, (a, b) in sorted(NAMED_TUPLES.items()):
        lines += [f"    class {name}(NamedTuple):", f"        {a}: Tensor", f"        {b}: Tensor"]
    return lines


def render_c():
    import minitorch
    C = minitorch._C
    lines = [HEADER.rstrip("\n"), '"""minitorch._C, the extension module."""',
             "import numpy as _np", IMPORTS.rstrip("\n"),
             "from typing import Callable, NamedTuple, SupportsIndex, TypeVar",
             "from typing_extensions import Self", "",
             "from minitorch._tensor import Tensor, device", "",
             C_CLASSES.rstrip("\n"), "", ALIASES.rstrip("\n"), '_T = TypeVar("_T")', ""]
    lines += render_return_types() + [""]
    lines.append("class TensorBase:")
    lines += TENSOR_ATTRIBUTES.rstrip("\n").split("\n")
    lines += render_group(rows_for("m"), method=True, indent="    ")
    lines.append("    # added to minitorch.Tensor by minitorch.overrides.composite")
    lines += ["    " + d for d in composite_methods()]
    lines.append("")
    described = set(re.findall(r"^(?:class|def) (\w+)", "\n".join(lines + [C_FUNCTIONS]), re.M))
    dtypes = sorted(n for n, v in vars(C).items() if isinstance(v, C.dtype))
    lines += [f"{n}: dtype" for n in dtypes] + ["default_generator: Generator", ""]
    lines += C_FUNCTIONS.rstrip("\n").split("\n")
    described |= set(dtypes) | {"default_generator", "return_types"}
    for n in sorted(vars(C)):
        if n in described or n.startswith("__"):
            continue
        v = getattr(C, n)
        lines.append(f"def {n}(*args: Any, **kwargs: Any) -> Any: ..." if callable(v)
                     and not isinstance(v, type) else f"{n}: Any")
    return "\n".join(lines) + "\n"


def render_functions(kind, doc, prefix=""):
    """The stub of one kind's rows; with prefix, only the rows named
    prefix<name>, under their short names (torch.special's)."""
    rows = rows_for(kind)
    if prefix:
        rows = {n[len(prefix):]: s for n, s in rows.items() if n.startswith(prefix)}
    # nn.functional's names whose rows are all minitorch's too are typed there
    shared = ({n for n, sigs in rows.items() if rows_for("f").get(n) == sigs}
              if kind == "n" else set())
    lines = [HEADER.rstrip("\n"), f'"""{doc}"""', "import numpy as _np",
             IMPORTS.rstrip("\n"), "",
             "from minitorch._C import Generator, Size, dtype, return_types",
             "from minitorch._tensor import Tensor, device"]
    lines += [f"from minitorch._op_functions import {n} as {n}" for n in sorted(shared)]
    lines += ["", ALIASES.rstrip("\n"), "",
              "__all__ = [" + ", ".join(f'"{n}"' for n in rows) + "]", ""]
    lines += render_group({n: s for n, s in rows.items() if n not in shared}, method=False)
    return "\n".join(lines) + "\n"


# ------------------------------------------------------ package __init__.pyi

# Packages whose __init__.py imports names without re-exporting them in a type
# checker's sense (no __all__, no `import x as x`), or spreads the op table's
# functions at run time: each gets an __init__.pyi listing every name it holds.
PACKAGES = ("minitorch", "minitorch.nn", "minitorch.nn.modules", "minitorch.optim",
            "minitorch.utils", "minitorch.utils.data")


def _defines(module, name):
    """Whether module's source defines name (a def, a class or an assignment)."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return False
    return re.search(rf"^(def|class) {name}\b|^{name}\s*[:=]", source, re.M) is not None


def _home(package, name, obj):
    """The module a type checker should import name from: where it is made."""
    import minitorch
    owner = getattr(obj, "__module__", None)
    if (owner and owner != package.__name__ and owner in sys.modules
            and vars(sys.modules[owner]).get(name) is obj):
        return owner
    if vars(minitorch._C).get(name) is obj:
        return "minitorch._C"
    others = sorted(m for m in sys.modules if m.startswith("minitorch."))
    for modname in [package.__name__] + others:
        module = sys.modules[modname]
        if (module is not None
                and vars(module).get(name) is obj and _defines(module, name)):
            return modname
    raise LookupError(f"cannot tell where {package.__name__}.{name} is defined")


def render_package(modname):
    import importlib
    import minitorch
    package = importlib.import_module(modname)
    functions = set(rows_for("f")) if modname == "minitorch" else set()
    imports, own = {}, []
    for name in sorted(vars(package)):
        if name.startswith("__"):
            continue
        obj = getattr(package, name)
        if isinstance(obj, types.ModuleType) and obj.__spec__ is not None:
            # a submodule; another module it merely imported is no API
            if obj.__name__ == f"{modname}.{name}":
                imports.setdefault(modname, []).append(name)
            continue
        if name.startswith("_"):
            continue
        if name in functions and obj is minitorch._C._functions.get(name):
            imports.setdefault("minitorch._op_functions", []).append(name)
            continue
        home = _home(package, name, obj)
        if home == modname:
            if not callable(obj):
                raise LookupError(f"{modname}.{name}: give it a type in gen_stubs.py")
            own.append(python_def(name, obj, method=False))
        else:
            imports.setdefault(home, []).append(name)
    lines = [HEADER.rstrip("\n"),
             f'"""{modname}: every name the package holds, re-exported for type checkers."""']
    if own:
        # the package may rebind bool, int, ... (minitorch's dtypes); the
        # classes its defs name are among its re-exports
        lines += ["from builtins import bool as _bool, float as _float, int as _int, str as _str",
                  "from typing import Any"]
    lines.append("")
    for home, names in sorted(imports.items()):
        lines += [f"from {home} import {n} as {n}" for n in names]
    if modname == "minitorch":
        lines.append("__version__: str")
    if own:
        lines += [""] + own
    return "\n".join(lines) + "\n"


def render():
    """{path relative to the repository: text} of every generated stub."""
    stubs = {
        "minitorch/_C.pyi": render_c(),
        "minitorch/_op_functions.pyi": render_functions(
            "f", "The op table's rows published as minitorch.<name> (at run time "
                 "minitorch._C._functions)."),
        "minitorch/nn/_op_functions.pyi": render_functions(
            "n", "The op table's rows published as minitorch.nn.functional.<name> (at run "
                 "time minitorch._C._nn_functions)."),
        "minitorch/_special_functions.pyi": render_functions(
            "f", "The op table's rows published as minitorch.special.<name> (at run time "
                 "the rows special_<name> of minitorch._C._functions).", prefix="special_"),
    }
    for modname in PACKAGES:
        stubs[modname.replace(".", "/") + "/__init__.pyi"] = render_package(modname)
    return stubs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="fail when a stub differs")
    ap.add_argument("--into", default=ROOT,
                    help="the folder holding the built minitorch package (default: the checkout)")
    args = ap.parse_args(argv)
    sys.path.insert(0, args.into)
    stale = 0
    for rel, text in render().items():
        path = os.path.join(args.into, rel)
        old = open(path).read() if os.path.exists(path) else ""
        if old == text:
            continue
        stale += 1
        if args.check:
            print(f"{rel} is stale: run python tools/gen_stubs.py")
            print("".join(difflib.unified_diff(old.splitlines(True), text.splitlines(True), rel,
                                               "generated", n=1))[:3000])
        else:
            with open(path, "w") as f:
                f.write(text)
            print("wrote " + rel)
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
