"""minitorch.library: custom ops written in Python, as torch.library (2.4+)
spells them.

    @minitorch.library.custom_op("mylib::myadd", mutates_args=())
    def myadd(a: Tensor, b: Tensor, alpha: float = 1.0) -> Tensor:
        return a + alpha * b

    myadd.register_autograd(backward, setup_context=setup_context)

The op becomes a row of the op table (``_C._define_custom_op``), exactly as
an op a C extension registers: ``minitorch.ops.mylib.myadd`` parses its
arguments with the built-in parser, dispatches ``__torch_function__`` and is
listed by ``minitorch.overrides``. Its implementation runs inside an
``autograd.Function`` named ``GeneratedBackwardFor_mylib_myadd_default``, as
torch's does, so the grad_fn and the backward behave as torch's.
"""
import contextlib
import inspect
import re
import types
import typing
from typing import Callable, Iterable, Optional, Sequence, Union

from . import _C
from ._opcheck import OpCheckError, opcheck
from ._ops import custom_overload

__all__ = ["custom_op", "register_autograd", "register_fake", "register_kernel",
           "infer_schema", "CustomOpDef", "opcheck", "OpCheckError", "Library", "define", "impl"]

_OPS = {}  # qualname -> CustomOpDef, for the functions taking an op by name


def _tensor_type():
    from . import Tensor
    return Tensor


def _type_text(annotation) -> Optional[str]:
    """The op table's spelling of a Python annotation, or None."""
    from . import Tensor, dtype
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is types.UnionType:  # X | None
        origin = Union
    if annotation is Tensor:
        return "Tensor"
    if origin is Union and len(args) == 2 and type(None) in args:
        inner = _type_text(args[0] if args[1] is type(None) else args[1])
        return inner + "?" if inner in ("Tensor", "int", "float", "bool", "str", "int[]") else None
    if origin is Union and set(args) <= {int, float, bool}:
        return "Scalar"
    if origin in (list, tuple, Sequence, typing.Sequence) and args:
        element = _type_text(args[0])
        return {"Tensor": "Tensor[]", "int": "int[]"}.get(element)
    return {int: "int", float: "float", bool: "bool", str: "str", dtype: "dtype"}.get(annotation)


def _return_text(annotation) -> Optional[str]:
    from . import Tensor
    if annotation is None or annotation is type(None):
        return "()"
    single = {Tensor: "Tensor", int: "int", float: "float", bool: "bool"}
    if annotation in single:
        return single[annotation]
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is tuple and args and all(a in single for a in args):
        return "(" + ", ".join(single[a] for a in args) + ")"
    if origin is list and args == (Tensor,):
        return "Tensor[]"
    return None


def _default_text(value) -> str:
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return "[" + ", ".join(map(str, value)) + "]"
    raise ValueError(f"infer_schema(func): default value {value!r} is not supported")


def infer_schema(prototype_function: Callable, /, *, mutates_args, op_name: Optional[str] = None
                 ) -> str:
    """The schema of a function from its type annotations: "(Tensor a, float b=1.0) ->
    Tensor" (with op_name, "op_name(...) -> ..."), in the grammar of the op table."""
    sig = inspect.signature(prototype_function)
    try:
        hints = typing.get_type_hints(prototype_function)
    except Exception:  # noqa: BLE001 - unresolvable string annotations: report them as missing
        hints = {}
    params, star = [], False
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ValueError(f"infer_schema(func): We do not support positional-only args, "
                             f"varargs, or varkwargs. Got func with signature {sig})")
        if p.name not in hints:
            raise ValueError(f"infer_schema(func): Parameter {p.name} must have a type "
                             f"annotation. Got func with signature {sig})")
        text = _type_text(hints[p.name])
        if text is None:
            raise ValueError(f"infer_schema(func): Parameter {p.name} has unsupported type "
                             f"{hints[p.name]}. Got func with signature {sig})")
        if p.kind == p.KEYWORD_ONLY and not star:
            params.append("*")
            star = True
        default = "" if p.default is p.empty else "=" + _default_text(p.default)
        params.append(f"{text} {p.name}{default}")
    mutated = _mutated_names(mutates_args)
    unknown = sorted(set(mutated) - set(sig.parameters)) if mutated is not None else []
    if unknown:
        raise ValueError(f"infer_schema(func): mutates_args names {unknown} that are not "
                         f"parameters of the function. Got func with signature {sig})")
    ret = _return_text(hints.get("return", inspect.Signature.empty))
    if ret is None:
        raise ValueError(f"infer_schema(func): Return has unsupported type "
                         f"{hints.get('return', 'missing')}. Got func with signature {sig})")
    return f"{op_name or ''}({', '.join(params)}) -> {ret}"


def _mutated_names(mutates_args):
    if mutates_args == "unknown":
        return None
    if isinstance(mutates_args, str):
        raise ValueError("mutates_args must be a tuple of names or the string 'unknown'")
    return tuple(mutates_args)


def _split_name(qualname: str):
    if not isinstance(qualname, str) or qualname.count("::") != 1:
        raise ValueError(f"Expected name to be of form 'namespace::opname', got {qualname!r}")
    namespace, name = qualname.split("::")
    return namespace, name


class CustomOpDef:
    """A custom op defined in Python: call it as the function it decorated, or
    as minitorch.ops.<namespace>.<name>."""

    def __init__(self, namespace: str, name: str, schema: str, fn: Callable,
                 mutated: Optional[Sequence[str]] = ()):
        self._namespace, self._name = namespace, name
        self._mutated = mutated  # the names in mutates_args, None for "unknown"
        self._init_fn = fn
        self._backward_fn = None
        self._setup_context_fn = None
        self._fake_fn = None
        params = [p for p in schema[1:schema.index(")")].split(", ") if p]
        star = params.index("*") if "*" in params else len(params)
        self._npositional = star
        self._kwonly = [p.split("=")[0].split(" ")[-1] for p in params[star + 1:]]
        self._autograd_function = self._make_autograd_function()
        self._op = _C._define_custom_op(f"{namespace}::{name}{schema}", self._dispatch)
        self._overload = custom_overload(self._op, self._kernel)
        self.__name__ = name
        self.__doc__ = fn.__doc__
        _OPS[f"{namespace}::{name}"] = self

    def __repr__(self):
        return f"<CustomOpDef({self._namespace}::{self._name})>"

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def _dispatch(self, *args, **kwargs):
        """The row's implementation: every argument, in schema order, to the
        op's autograd.Function."""
        return self._autograd_function.apply(*args, *(kwargs[k] for k in self._kwonly))

    def _run(self, *args):
        """The op below its autograd: seen by the dispatch modes as its
        ``.default`` overload, whose call runs the kernel."""
        from .utils._python_dispatch import _dispatch_custom
        positional, keywords = args[:self._npositional], args[self._npositional:]
        return _dispatch_custom(self._overload, self._kernel, positional,
                                dict(zip(self._kwonly, keywords)))

    def _kernel(self, *args, **kwargs):
        out = self._init_fn(*args, **kwargs)
        args = args + tuple(kwargs.values())
        Tensor = _tensor_type()
        outs = out if isinstance(out, (tuple, list)) else (out,)
        inputs = [a for a in args if isinstance(a, Tensor)]
        for o in outs:
            if isinstance(o, Tensor) and any(o is a or o.data_ptr() == a.data_ptr() and o.numel()
                                             for a in inputs):
                raise RuntimeError(
                    f"{self._name} (with implementation in {self._init_fn.__module__!r}): The "
                    "output of this custom operator (1) must not also be an input to this "
                    "custom operator and (2) may not alias any inputs to this custom operator "
                    "or other returns. The most common way to trigger this error is if we have "
                    "y = custom_op(x) and y and x are the same Tensor. Please instead return a "
                    "clone of the offending output tensor(s) (e.g. return x.clone()) or "
                    "refactor the custom operator to not return y.")
        return out

    def _make_autograd_function(self):
        from .autograd import Function
        opdef = self

        def forward(*args):
            return opdef._run(*args)

        def setup_context(ctx, inputs, output):
            if opdef._setup_context_fn is not None:
                opdef._setup_context_fn(ctx, inputs, output)

        def backward(ctx, *grads):
            if opdef._backward_fn is None:
                raise RuntimeError(
                    f"Trying to backward through {opdef._namespace}.{opdef._name}.default but "
                    "no autograd formula was registered. Please use register_autograd to add "
                    "one.")
            result = opdef._backward_fn(ctx, *grads)
            return result if isinstance(result, tuple) else (result,)

        name = f"GeneratedBackwardFor_{self._namespace}_{self._name}_default"
        return type(name, (Function,), {
            "forward": staticmethod(forward), "setup_context": staticmethod(setup_context),
            "backward": staticmethod(backward), "__module__": __name__})

    def register_autograd(self, backward: Callable, /, *,
                          setup_context: Optional[Callable] = None) -> None:
        """``backward(ctx, *grads)`` returns one gradient (or None) per input;
        ``setup_context(ctx, inputs, output)`` saves what it needs on ctx."""
        if not callable(backward):
            raise TypeError(f"Expected backward to be callable, got {type(backward).__name__}")
        self._backward_fn = backward
        self._setup_context_fn = setup_context

    def register_fake(self, fn: Callable, /) -> Callable:
        """Stores the fake (meta) implementation. minitorch runs eagerly on the
        CPU and has no fake tensors or tracing: only opcheck calls it, on
        copies of real arguments, to compare its outputs' shapes and dtypes
        with the real ones'."""
        self._fake_fn = fn
        return fn

    def register_kernel(self, device_types, fn: Optional[Callable] = None, /):
        """Replaces the implementation for "cpu" (the only device)."""
        def register(fn):
            types = (device_types,) if isinstance(device_types, str) or device_types is None \
                else tuple(device_types)
            if any(t not in (None, "cpu") for t in types):
                raise ValueError(f"minitorch only has the cpu device, got {device_types!r}")
            self._init_fn = fn
            return fn
        return register if fn is None else register(fn)


def custom_op(name: str, fn: Optional[Callable] = None, /, *,
              mutates_args: Union[str, Iterable[str]], device_types=None,
              schema: Optional[str] = None, tags=None):
    """Wraps a function into a custom operator: a row of the op table, callable
    as the returned CustomOpDef and as minitorch.ops.<namespace>.<name>."""
    namespace, opname = _split_name(name)

    def inner(fn):
        text = schema.replace("SymInt", "int") if schema is not None else \
            infer_schema(fn, mutates_args=mutates_args)
        opdef = CustomOpDef(namespace, opname, text, fn, _mutated_names(mutates_args))
        if device_types is not None:
            opdef.register_kernel(device_types, fn)
        return opdef

    return inner if fn is None else inner(fn)


def _opdef(op) -> CustomOpDef:
    if isinstance(op, CustomOpDef):
        return op
    qualname = op if isinstance(op, str) else getattr(op, "__name__", None)
    if qualname not in _OPS:
        raise ValueError(f"register_autograd(op): expected a custom op defined with "
                         f"minitorch.library.custom_op, got {op!r}")
    return _OPS[qualname]


def register_autograd(op, backward: Callable, /, *, setup_context: Optional[Callable] = None,
                      lib=None) -> None:
    """torch.library.register_autograd: op is a CustomOpDef, its name
    ("mylib::myadd") or minitorch.ops.mylib.myadd."""
    _opdef(op).register_autograd(backward, setup_context=setup_context)


def register_fake(op, func: Optional[Callable] = None, /, *, lib=None, _stacklevel: int = 1,
                  allow_override: bool = True):
    """Stores a fake implementation, which opcheck checks (see CustomOpDef.register_fake)."""
    def register(func):
        return _opdef(op).register_fake(func)
    return register if func is None else register(func)


def register_kernel(op, device_types, func: Optional[Callable] = None, /, *, lib=None):
    """Replaces the implementation of a custom op for "cpu"."""
    return _opdef(op).register_kernel(device_types, func)


# ---------------------------------------------------------------- Library

_KINDS = ("IMPL", "DEF", "FRAGMENT")
_RESERVED_NAMESPACES = ("prim",)
_KERNEL_KEYS = ("Autograd", "AutogradCPU", "CompositeImplicitAutograd", "CPU",
                "CompositeExplicitAutograd")
_def_libraries = {"aten": None}  # namespace -> the DEF Library that owns it
_library_ops = {}  # qualname -> _LibraryOp, ops defined through a Library
_kernels = {}  # qualname -> {dispatch key: (fn, Library)}, also before the op is defined


class _LibraryOp:
    """The implementation of an op a Library defined: picks its kernel by
    dispatch key as torch's dispatcher does for CPU tensors (an Autograd
    kernel, else a CompositeImplicitAutograd one when no backend kernel is
    registered, else the CPU / CompositeExplicitAutograd kernel, run below
    the op's autograd where dispatch modes see it as its ``.default``)."""

    def __init__(self, qualname: str):
        self.qualname = qualname
        self.function = None

    def _kernel_for(self, *keys):
        table = _kernels.get(self.qualname, {})
        for key in keys:
            if key in table:
                return table[key][0]
        return None

    def __call__(self, *args, **kwargs):
        fn = self._kernel_for("AutogradCPU", "Autograd")
        backend = self._kernel_for("CPU", "CompositeExplicitAutograd")
        if fn is None and backend is None:
            fn = self._kernel_for("CompositeImplicitAutograd")
        if fn is not None:
            return fn(*args, **kwargs)
        if backend is None:
            raise NotImplementedError(
                f"Could not run '{self.qualname}' with arguments from the 'CPU' backend. This "
                "could be because the operator doesn't exist for this backend, or was omitted "
                "during the selective/custom build process (if using custom build).")
        from .utils._python_dispatch import _dispatch_custom
        return _dispatch_custom(self.function.default, self._backend, args, kwargs)

    def _backend(self, *args, **kwargs):
        fn = self._kernel_for("CPU", "CompositeExplicitAutograd")
        return fn(*args, **kwargs)


_ALIAS_ANNOTATION = re.compile(r"\(\s*[a-z]\s*!?\s*\)")


class Library:
    """torch.library.Library: defines ops of namespace ``ns`` ("DEF" owns the
    namespace, "FRAGMENT" adds to it) and registers their kernels ("IMPL"
    or either other kind), callable as ``minitorch.ops.<ns>.<name>``. Its
    registrations last until ``_destroy()`` (``_scoped_library`` calls it on
    leaving its ``with`` block)."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = ""):
        if kind not in _KINDS:
            raise ValueError("Unsupported kind: ", kind)
        if ns in _RESERVED_NAMESPACES and kind in ("DEF", "FRAGMENT"):
            raise ValueError(ns, " is a reserved namespace. Please try creating a library with "
                                 "another name.")
        if kind == "DEF" and ns in _def_libraries:
            raise RuntimeError(
                f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please "
                "put all of your definitions in a single TORCH_LIBRARY block.  If you were trying "
                "to specify implementations, consider using TORCH_LIBRARY_IMPL (which can be "
                "duplicated).  If you really intended to define operators for a single namespace "
                "in a distributed way, you can use TORCH_LIBRARY_FRAGMENT to explicitly indicate "
                "this.")
        if kind == "DEF":
            _def_libraries[ns] = self
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._op_defs = []
        self._op_impls = []  # (qualname, dispatch key)
        self._destroyed = False

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema: str, alias_analysis: str = "", *, tags=()) -> str:
        """Defines the op ``schema`` spells ("name(Tensor x) -> Tensor") and
        returns its name."""
        if self.kind == "IMPL":
            raise RuntimeError(f"define() may not be used in a Library of kind IMPL "
                               f"(namespace {self.ns}): use kind DEF or FRAGMENT")
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        name, sep, rest = schema.strip().partition("(")
        if "::" in name:
            namespace, name = name.split("::")
            if namespace != self.ns:
                raise ValueError(f"Explicitly provided namespace ({namespace}) in schema "
                                 f"string does not match namespace of enclosing TORCH_LIBRARY "
                                 f"block ({self.ns}).")
        if not sep or not name.isidentifier():
            if "." in name:
                raise NotImplementedError(f"minitorch ops have one overload: define "
                                          f"{name.split('.')[0]} without the overload name")
            raise RuntimeError(f"Expected an operator schema such as 'name(Tensor x) -> Tensor', "
                               f"got {schema!r}")
        qualname = f"{self.ns}::{name}"
        if qualname in _library_ops or qualname in _OPS:
            raise RuntimeError(
                f"Tried to register an operator ({qualname}({rest}) with the same name and "
                "overload name multiple times. Each overload's schema should only be registered "
                "with a single call to def(). Duplicate registration: registered by a Library")
        text = _ALIAS_ANNOTATION.sub("", "(" + rest).replace("SymInt", "int")
        op = _LibraryOp(qualname)
        op.function = _C._define_custom_op(qualname + text, op)
        custom_overload(op.function, op._backend)
        _library_ops[qualname] = op
        self._op_defs.append(qualname)
        return name

    def impl(self, op_name, fn: Callable, dispatch_key: str = "", *, with_keyset: bool = False,
             allow_override: bool = False) -> None:
        """Registers fn as op_name's kernel for dispatch_key ("" takes the
        library's; the default is CompositeImplicitAutograd)."""
        from ._aten import OpOverload
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type "
                            f"{type(fn)}")
        if isinstance(op_name, OpOverload):
            op_name = op_name.name()
        elif not isinstance(op_name, str):
            raise RuntimeError("impl should be passed either a name or an OpOverload object as "
                               "the first argument")
        if with_keyset:
            raise NotImplementedError("minitorch has no dispatch key sets: with_keyset=True is "
                                      "not supported")
        name = op_name.split("::")[-1]
        qualname = f"{self.ns}::{name}"
        if self.ns == "aten":
            raise NotImplementedError(f"minitorch cannot replace the kernel of a built-in op "
                                      f"({qualname})")
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        table = _kernels.setdefault(qualname, {})
        if key == "Meta" and qualname in _OPS:
            _OPS[qualname].register_fake(fn)
        table[key] = (fn, self)
        self._op_impls.append((qualname, key))

    def fallback(self, fn, dispatch_key: str = "", *, with_keyset: bool = False):
        """Refused: a fallback kernel serves a dispatch key for every op, and
        minitorch dispatches by op, not by key."""
        raise NotImplementedError("minitorch has no dispatch keys to register a fallback for")

    def _destroy(self):
        """Undoes this library's registrations: its ops leave minitorch.ops."""
        if self._destroyed:
            return
        self._destroyed = True
        for qualname, key in self._op_impls:
            table = _kernels.get(qualname, {})
            if key in table and table[key][1] is self:
                del table[key]
        for qualname in self._op_defs:
            _library_ops.pop(qualname, None)
            _kernels.pop(qualname, None)
            _C._custom_ops.pop(qualname, None)
        if _def_libraries.get(self.ns) is self:
            del _def_libraries[self.ns]


@contextlib.contextmanager
def _scoped_library(*args, **kwargs):
    """A Library for the ``with`` block, destroyed on leaving it."""
    lib = Library(*args, **kwargs)
    try:
        yield lib
    finally:
        lib._destroy()


_kept_libraries = []  # libraries define() and impl() made without a lib=


def define(qualname: str, schema: str, *, lib: Optional[Library] = None, tags=()) -> None:
    """Defines op ``qualname`` ("ns::name") with ``schema`` ("(Tensor x) ->
    Tensor") in ``lib``, or in a FRAGMENT library kept for the process."""
    namespace, name = _split_name(qualname)
    if lib is None:
        lib = Library(namespace, "FRAGMENT")
        _kept_libraries.append(lib)
    lib.define(name + schema, tags=tags)


def impl(qualname, types, func: Optional[Callable] = None, *, lib: Optional[Library] = None):
    """Registers ``func`` as the kernel of op ``qualname`` for ``types`` ("cpu",
    "default" or dispatch keys), in ``lib`` or a FRAGMENT library kept for
    the process; a decorator when ``func`` is not given."""
    from ._aten import OpOverload
    if isinstance(qualname, OpOverload):
        qualname = qualname.name()
    namespace, name = _split_name(qualname)
    keys = (types,) if isinstance(types, str) else tuple(types)
    keys = tuple({"cpu": "CPU", "default": "CompositeExplicitAutograd"}.get(k, k) for k in keys)

    def register(func):
        target = lib
        if target is None:
            target = Library(namespace, "FRAGMENT")
            _kept_libraries.append(target)
        for key in keys:
            target.impl(name, func, key)
        return func
    return register if func is None else register(func)
