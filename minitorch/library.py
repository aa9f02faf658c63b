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
import inspect
import types
import typing
from typing import Callable, Iterable, Optional, Sequence, Union

from . import _C
from ._opcheck import OpCheckError, opcheck

__all__ = ["custom_op", "register_autograd", "register_fake", "register_kernel",
           "infer_schema", "CustomOpDef", "opcheck", "OpCheckError"]

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
    if annotation is Tensor:
        return "Tensor"
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is tuple and args and all(a is Tensor for a in args):
        return "(" + ", ".join("Tensor" for _ in args) + ")"
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
        positional, keywords = args[:self._npositional], args[self._npositional:]
        out = self._init_fn(*positional, **dict(zip(self._kwonly, keywords)))
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
