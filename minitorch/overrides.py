"""The __torch_function__ protocol from Python: which functions dispatch, dummy
signatures for testing overrides, helpers for Python-level public functions,
and TorchFunctionMode.

Dispatch itself happens in C (csrc/python/function.c); this module only reads
the op table back and exposes the helpers torch.overrides has.
"""
import functools
import inspect
import keyword
import sys
from typing import Any, Callable, Dict, Iterable, List, Optional, TypeVar

import minitorch
from . import _C
from ._C import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: F401
from ._C import _dispatch_python_level

__all__ = [
    "get_ignored_functions", "get_overridable_functions", "get_testing_overrides",
    "handle_torch_function", "has_torch_function", "has_torch_function_unary",
    "has_torch_function_variadic", "is_tensor_like", "is_tensor_method_or_property",
    "resolve_name", "wrap_torch_function", "TorchFunctionMode",
]

_F = TypeVar("_F", bound=Callable[..., Any])  # decorators keep the function's type
_OP_TYPES = (type(_C._functions["add"]), type(_C.TensorBase.__dict__["add"]))


def _op_table_callables(namespace_dict) -> List[Callable]:
    return sorted((f for f in namespace_dict.values() if isinstance(f, _OP_TYPES)),
                  key=lambda f: f.__name__)


def _python_overridable(module) -> List[Callable]:
    """Python-level public functions that dispatch (marked by wrap or by hand)."""
    return [f for f in vars(module).values() if getattr(f, "_dispatches", False)]


# What torch.overrides.get_ignored_functions() lists, for the names minitorch
# has: factories, whose arguments hold no tensor, guards, dtype helpers,
# Tensor.new_*.
_IGNORED = {
    "minitorch": (
        "arange", "as_strided", "as_tensor", "broadcast_shapes", "can_cast", "device", "dtype",
        "empty", "enable_grad", "eye", "from_numpy", "full", "get_default_dtype",
        "get_num_threads", "inference_mode", "initial_seed", "is_anomaly_check_nan_enabled",
        "is_anomaly_enabled", "is_grad_enabled", "is_inference_mode_enabled", "is_tensor",
        "is_warn_always_enabled", "set_warn_always",
        "linspace", "load", "logspace", "manual_seed", "no_grad", "normal", "ones",
        "promote_types", "rand", "rand_like", "randint", "randint_like", "randn", "randn_like",
        "randperm", "result_type", "save", "seed", "set_anomaly_enabled", "set_grad_enabled",
        "set_num_threads", "set_printoptions", "tensor", "tril_indices", "triu_indices", "vmap",
        "zeros", "sparse_coo_tensor",
        # added with the device stubs and legacy names (issue 17)
        "are_deterministic_algorithms_enabled", "bartlett_window", "blackman_window", "compile",
        "finfo", "get_default_device", "get_float32_matmul_precision", "hamming_window",
        "hann_window", "iinfo", "is_deterministic_algorithms_warn_only_enabled", "kaiser_window",
        "memory_format", "scalar_tensor", "set_default_device", "set_float32_matmul_precision",
        "use_deterministic_algorithms", "empty_strided", "empty_permuted",
        "fill",
        # autocast's state (torch.amp)
        "clear_autocast_cache", "get_autocast_dtype", "is_autocast_cache_enabled",
        "is_autocast_enabled", "set_autocast_cache_enabled", "set_autocast_dtype",
        "set_autocast_enabled",
        # tensor subclasses' dispatch (layout names)
        "layout"),
    "minitorch.Tensor": (
        "__class__", "__delattr__", "__dir__", "__getattribute__", "__hash__", "__init__",
        "__iter__", "__new__", "__setattr__", "_make_subclass", "as_subclass", "new_empty",
        "new_empty_strided", "new", "new_full", "new_ones", "new_tensor", "new_zeros", "stride",
        "unflatten", "eig", "symeig", "solve", "lstsq", "_make_wrapper_subclass"),
    "minitorch.nn.functional": ("hardsigmoid", "hardswish", "sigmoid", "tanh", "upsample",
                                "upsample_bilinear", "upsample_nearest"),
    "minitorch.nn.init": ("calculate_gain",),
}


def _namespaces() -> Dict[str, Any]:
    """The public namespaces the tables of this module name."""
    import minitorch.nn.functional as F
    import minitorch.nn.init as init
    return {"minitorch": minitorch, "minitorch.Tensor": minitorch.Tensor,
            "minitorch.nn.functional": F, "minitorch.nn.init": init}


@functools.lru_cache(None)
def _ignored() -> tuple:
    namespaces = _namespaces()
    return tuple(getattr(namespaces[ns], n) for ns, names in _IGNORED.items() for n in names
                 if hasattr(namespaces[ns], n))


def _listed_in_torch_namespace(f) -> bool:
    """torch lists no in-place function (torch.exp_) in its own namespace,
    nor from_dlpack and segment_reduce (it walks torch.__all__, which leaves
    them out)."""
    return not f.__name__.endswith("_") and f.__name__ not in ("from_dlpack", "segment_reduce")


@functools.lru_cache(None)
def _overridable() -> Dict[Any, List[Callable]]:
    import minitorch.nn.functional as F
    ignored = set(map(id, _ignored()))
    out = {
        minitorch: [f for f in _op_table_callables(_C._functions) + _python_overridable(minitorch)
                    if _listed_in_torch_namespace(f) and not f.__name__.startswith("special_")],
        minitorch.Tensor: (_op_table_callables(_C.TensorBase.__dict__)
                           + _python_overridable(minitorch.Tensor)),
        F: sorted(set(_op_table_callables(vars(F)) + _python_overridable(F)),
                  key=lambda f: f.__name__),
    }
    for mod_name in ("linalg", "special", "fft"):
        mod = getattr(minitorch, mod_name, None)
        if mod is not None:
            out[mod] = _op_table_callables(vars(mod)) + _python_overridable(mod)
    return {ns: [f for f in funcs if id(f) not in ignored] for ns, funcs in out.items()}


def _with_custom_ops() -> Dict[Any, List[Callable]]:
    """The built-in listing, and the custom ops registered so far under their
    minitorch.ops namespaces."""
    out = {k: list(v) for k, v in _overridable().items()}
    for namespace, funcs in minitorch.ops._namespaces().items():
        out[namespace] = sorted(funcs, key=lambda f: f.__name__)
    return out


def get_overridable_functions() -> Dict[Any, List[Callable]]:
    """List functions that are overridable via __torch_function__, keyed by namespace."""
    return _with_custom_ops()


def get_ignored_functions():
    """Public functions that cannot be overridden by __torch_function__."""
    return _ignored()


def _dummy_for(func, is_method: bool):
    """A function with func's first signature whose body returns -1."""
    params = []
    for k, (name, type_text, kwonly, default) in enumerate(func._signatures[0]):
        if is_method and k == 0:
            name = "self"
        elif keyword.iskeyword(name):  # random_(from, to): spelled from_ in Python
            name += "_"
        kind = (inspect.Parameter.KEYWORD_ONLY if kwonly
                else inspect.Parameter.POSITIONAL_OR_KEYWORD)
        if default is None:
            dflt = inspect.Parameter.empty
        else:
            try:
                dflt = eval(default, {"__builtins__": {}}, {"None": None, "True": True,
                                                             "False": False})
            except Exception:  # noqa: BLE001 - a default spelled like a C value: keep its text
                dflt = default
        params.append(inspect.Parameter(name, kind, default=dflt, annotation=type_text))

    def dummy(*args, **kwargs):
        return -1

    dummy.__name__ = func.__name__
    dummy.__signature__ = inspect.Signature(params)
    return dummy


def get_testing_overrides() -> Dict[Callable, Callable]:
    """A dummy with the same signature (annotated with the op table's types) for
    every overridable function; each returns -1."""
    out = {}
    for namespace, funcs in _with_custom_ops().items():
        for f in funcs:
            if hasattr(f, "_signatures"):
                out[f] = _dummy_for(f, namespace is minitorch.Tensor)
            else:
                sig = inspect.signature(getattr(f, "__wrapped__", f))
                params = list(sig.parameters.values())
                if namespace is minitorch.Tensor and params:
                    sig = sig.replace(parameters=[params[0].replace(name="self")] + params[1:])

                def dummy(*args, **kwargs):
                    return -1
                dummy.__signature__ = sig
                dummy.__name__ = f.__name__
                out[f] = dummy
    return out


def relevant_args(*args, **kwargs) -> tuple:
    """Where a Python-level public function looks for overloaded arguments, as
    the parser of an op row does: every argument, and the items of every
    list or tuple argument (a TensorList, a size with a Tensor-like in it)."""
    return _C._relevant_args(*args, *kwargs.values())


# Op rows whose torch function is written in Python: like it, they dispatch on
# their relevant arguments before parsing them, so a handler also sees calls
# the row would refuse (torch.split(None, [2]) under a mode).
_PYTHON_LEVEL_ROWS = {
    "minitorch": ("split", "norm", "unique"),
    "minitorch.Tensor": ("split", "norm", "unique", "unflatten"),
    "minitorch.nn.functional": ("adaptive_avg_pool2d", "max_pool2d", "leaky_relu", "log_softmax",
                                "relu", "sigmoid", "silu", "softmax", "tanh", "threshold"),
}


def _finish_registration():
    """Once every public module is in place: marks the Python-level rows, and
    names each Python-level function by where it is published, for messages."""
    namespaces = _namespaces()
    for ns, names in _PYTHON_LEVEL_ROWS.items():
        for name in names:
            getattr(namespaces[ns], name)._python_level = True
    for f in [f for funcs in _overridable().values() for f in funcs] + list(_ignored()):
        if getattr(f, "_dispatches", False) and not hasattr(f, "_public_name"):
            f._public_name = resolve_name(f)


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """True if an argument overrides __torch_function__ or a mode is active."""
    return _C._has_torch_function(relevant_args)


def has_torch_function_unary(arg) -> bool:
    """True if ``arg`` overrides ``__torch_function__`` or a mode is active."""
    return _C._has_torch_function((arg,))


def has_torch_function_variadic(*args) -> bool:
    """True if any argument overrides ``__torch_function__`` or a mode is active."""
    return _C._has_torch_function(args)


def handle_torch_function(public_api: Callable, relevant_args: Iterable[Any], *args, **kwargs):
    """Runs the __torch_function__ protocol for a Python-level public function:
    each handler gets kwargs as a dict, empty when there are none."""
    return _C._handle_torch_function(public_api, relevant_args, args, kwargs)


def is_tensor_like(inp) -> bool:
    """True for Tensors and for any object whose type defines __torch_function__."""
    return type(inp) is minitorch.Tensor or hasattr(type(inp), "__torch_function__")


def is_tensor_method_or_property(func: Callable) -> bool:
    """True if ``func`` is a Tensor method or property that ``__torch_function__`` sees."""
    return func in _overridable()[minitorch.Tensor] or func.__name__ == "__get__"


def resolve_name(f) -> str:
    """The public name of f as dispatch messages print it, e.g. 'torch.add'."""
    name = getattr(f, "_public_name", None)
    if name is not None and "::" in name:  # a custom op, as minitorch.ops publishes it
        return "torch.ops." + name.replace("::", ".")
    if name is not None:
        return name
    name = getattr(f, "__name__", "")
    for ns in ("minitorch", "minitorch.nn.functional", "minitorch.linalg", "minitorch.special"):
        if getattr(sys.modules.get(ns), name, None) is f:
            return "%s.%s" % (ns.replace("minitorch", "torch", 1), name)
    if vars(minitorch.Tensor).get(name) is f:
        return "torch.Tensor.%s" % name
    module = getattr(f, "__module__", None) or ""
    return "%s.%s" % (module.replace("minitorch", "torch", 1), f.__qualname__)


def _mark_dispatching(func):
    func._dispatches = True
    return func


def wrap_torch_function(dispatcher: Callable):
    """Makes a Python function dispatch ``__torch_function__`` on the arguments
    that ``dispatcher(*args, **kwargs)`` returns."""
    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return _mark_dispatching(wrapped)
    return inner


def _tensor_params(func: Callable) -> tuple:
    """(position, name, may be None) of the parameters func annotates as
    Tensor or Optional[Tensor]."""
    out = []
    for i, p in enumerate(inspect.signature(func).parameters.values()):
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            break
        ann = p.annotation if isinstance(p.annotation, str) else getattr(
            p.annotation, "__name__", "")
        if ann in ("Tensor", "Optional[Tensor]"):
            out.append((i, p.name, ann != "Tensor"))
    return tuple(out)


_ABSENT = object()


def _check_tensor_args(name: str, params: tuple, args: tuple, kwargs: dict) -> None:
    """The op parser's TypeError for a non-tensor in a Tensor parameter of a
    Python-level function, before its body trips over it."""
    given = len(args)
    for i, pname, optional in params:
        # the message is built only for a refused value: every call pays this loop
        value = args[i] if i < given else kwargs.get(pname, _ABSENT)
        if isinstance(value, minitorch.Tensor) or value is _ABSENT or (optional and value is None):
            continue
        # with its position also when passed by keyword: torch's Python-level
        # functions hand their arguments on to their op by position
        what = "argument '%s' (position %d)" % (pname, i + 1)
        _C._refuse_foreign(name, what, value)
        raise TypeError("%s(): %s must be Tensor, not %s" % (name, what, type(value).__name__))


def overridable(func: _F) -> _F:
    """Makes a public function written in Python dispatch __torch_function__
    on its relevant_args, as every Python-level public function does (as
    wrap_torch_function(relevant_args) would, in one call into C); when
    nothing dispatches, its Tensor-annotated parameters must be tensors."""
    return _dispatching(func, None)


def _out_refusal(func, python_method: bool) -> str:
    """How torch's Tensor method of a function refuses out= (the out= form is
    the function's): one torch writes in Python names its class, as CPython
    does; of the others, one taking no argument but self takes no keyword at
    all (CPython refuses it), the parser names the keyword for the rest."""
    name = func.__name__
    if python_method:
        return "Tensor.%s() got an unexpected keyword argument 'out'" % name
    if not [p for p in inspect.signature(func).parameters if p != "out"][1:]:
        return "TensorBase.%s() takes no keyword arguments" % name
    return "%s() got an unexpected keyword argument 'out'" % name


def _numpy_aliases(func) -> tuple:
    """(alias, parameter) of the NumPy spellings torch's parser takes for
    func's parameters, as for every op of its: axis for dim, keepdims for
    keepdim."""
    names = inspect.signature(func).parameters
    return tuple((a, p) for a, p in (("axis", "dim"), ("keepdims", "keepdim"))
                 if p in names and a not in names)


def _unalias(name: str, aliases: tuple, kwargs: dict) -> dict:
    """kwargs with the NumPy aliases given renamed to their parameters."""
    for alias, param in aliases:
        if alias in kwargs:
            if param in kwargs:
                raise TypeError(f"{name}() got multiple values for argument '{param}'")
            kwargs = dict(kwargs)
            kwargs[param] = kwargs.pop(alias)
    return kwargs


def _dispatching(func, out_refusal, deprecated=None):
    """overridable(func); with out_refusal, a Tensor method refusing out=
    with that message before it dispatches, as torch's parser refuses it;
    deprecated(args, kwargs) gives the arguments of a call in a deprecated
    overload in the current form (None for a current call)."""
    params = _tensor_params(func)
    name = func.__name__
    aliases = _numpy_aliases(func)

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        if out_refusal and "out" in kwargs:
            raise TypeError(out_refusal)
        if deprecated is not None:
            args, kwargs = deprecated(args, kwargs) or (args, kwargs)
        r = _dispatch_python_level(wrapped, args, kwargs)
        if r is not NotImplemented:
            return r
        if aliases and kwargs:
            kwargs = _unalias(name, aliases, kwargs)
        _check_tensor_args(name, params, args, kwargs)
        return func(*args, **kwargs)
    return _mark_dispatching(wrapped)


def composite(function: bool = True, method: bool = True,
              python_method: bool = False,
              deprecated: Optional[Callable[[bool], Callable]] = None) -> Callable[[_F], _F]:
    """Registers a public function written in Python over ops, as an op-table
    row is registered: minitorch.<name> (with function; the defining module
    exports it) and Tensor.<name> (with method), each overridable and each
    listed by get_overridable_functions and get_testing_overrides. The
    method takes no out=, as torch's methods take none; python_method says
    torch writes its method in Python (for the message refusing out=);
    deprecated(is_method) makes the hook taking torch's deprecated overloads
    (see _dispatching). Returns the function, or the method when there is no
    function."""
    def register(fn):
        name = fn.__name__
        made = None
        if method:
            made = _dispatching(fn, _out_refusal(fn, python_method),
                                deprecated and deprecated(True))
            made.__qualname__ = f"Tensor.{name}"
            made._public_name = f"torch.Tensor.{name}"
            setattr(minitorch.Tensor, name, made)
        if function:
            made = _dispatching(fn, None, deprecated and deprecated(False))
            made._public_name = f"torch.{name}"
        return made
    return register


class TorchFunctionMode:
    """Intercepts every minitorch function while active (``with Mode():``).

    The mode's ``__torch_function__(func, types, args=(), kwargs=None)`` runs
    before any subclass handler, with the mode popped so calls it makes reach
    the next mode or the real implementation; returning NotImplemented lets
    subclass handlers try."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError()

    def __enter__(self):
        _C._push_on_torch_function_stack(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _C._pop_torch_function_stack()

    @classmethod
    def push(cls, *args, **kwargs):
        """Returns an instance of the mode made with the given arguments; enter it with ``with``.
        """
        return cls(*args, **kwargs)


def _get_current_function_mode():
    n = _C._len_torch_function_stack()
    return _C._get_function_stack_at(n - 1) if n else None


def _get_current_function_mode_stack():
    return [_C._get_function_stack_at(i) for i in range(_C._len_torch_function_stack())]
