"""minitorch.ops: custom ops by namespace, as torch.ops.

``minitorch.ops.mylib.myadd`` is the op registered as "mylib::myadd", from C
(``MT->register_op``) or Python (``minitorch.library.custom_op``): a row of
the op table, published by the C side in ``_C._custom_ops``.
``minitorch.ops.aten`` holds the built-in rows as torch's op overloads
(``_aten.py``). A custom op has one overload, ``.default``
(``CustomOpOverload``): what a dispatch mode receives as ``func`` for a
call of the op, and a callable that runs the op's kernel below autograd.
"""
import types

from . import _C
from ._aten import OpOverload, OpOverloadPacket, aten  # noqa: F401 (torch._ops names them)


class CustomOpOverload(OpOverload):
    """``minitorch.ops.<ns>.<name>.default``: calling it calls the op (the
    function ``minitorch.ops.<ns>.<name>``, its packet), but from a dispatch
    mode's or a subclass's ``__torch_dispatch__``, where it runs the op's
    kernel (through the modes under the one handling the call)."""

    def __init__(self, function, kernel=None):
        namespace, name = function.__name__.split("::")
        self.overloadpacket = function
        self._overloadname = "default"
        self._qualname = function.__name__
        self._kernel = kernel if kernel is not None else function
        self.__name__ = f"{name}.default"
        self.__qualname__ = self.__name__
        self.__module__ = f"minitorch.ops.{namespace}"

    def name(self):
        return self._qualname

    @property
    def _schema(self):
        """The op's schema, "ns::name(Tensor x) -> Tensor"."""
        doc = self.overloadpacket.__doc__ or ""
        return self._qualname + doc[doc.index("("):].split("\n")[0] if "(" in doc \
            else self._qualname

    @property
    def namespace(self):
        return self._qualname.split("::")[0]

    def __call__(self, *args, **kwargs):
        from .utils._python_dispatch import _dispatch_custom, _in_handler
        if not _in_handler():
            return self.overloadpacket(*args, **kwargs)
        return _dispatch_custom(self, self._kernel, args, kwargs)

    def __str__(self):
        return self._qualname.replace("::", ".") + ".default"

    def __repr__(self):
        return f"<OpOverload(op='{self._qualname.replace('::', '.')}', overload='default')>"

    def __reduce__(self):
        namespace, name = self._qualname.split("::")
        return _custom_overload, (namespace, name)


def _custom_overload(namespace, name):
    return getattr(getattr(ops, namespace), name).default


def custom_overload(function, kernel=None) -> CustomOpOverload:
    """The ``.default`` overload of custom op ``function`` (made once; a
    Python op gives its kernel when it defines the op)."""
    overload = getattr(function, "default", None)
    if overload is None or (kernel is not None and overload._kernel != kernel):
        overload = function.default = CustomOpOverload(function, kernel)
        function.overloads = _default_only
    return overload


def _default_only():
    return ["default"]


class _OpNamespace(types.ModuleType):
    """The ops of one namespace, looked up when read (an op registered later
    is found too)."""

    def __init__(self, name: str):
        super().__init__("minitorch.ops." + name)
        self.name = name

    def __getattr__(self, op_name: str):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        try:
            function = _C._custom_ops[f"{self.name}::{op_name}"]
        except KeyError:
            raise AttributeError(
                f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'") from None
        custom_overload(function)
        return function

    def __iter__(self):
        prefix = self.name + "::"
        return iter(sorted(k[len(prefix):] for k in _C._custom_ops if k.startswith(prefix)))


class _Ops(types.ModuleType):
    """``minitorch.ops``: any attribute is a namespace (empty until an op is
    registered in it)."""

    __file__ = "_ops.py"

    def __init__(self):
        super().__init__("minitorch.ops")

    def __getattr__(self, name: str) -> _OpNamespace:
        # private names are probes (getattr(f, "_dispatches", False)), not namespaces
        if name.startswith("_"):
            raise AttributeError(name)
        if name == "aten":
            return aten
        namespace = _OpNamespace(name)
        setattr(self, name, namespace)
        return namespace

    def _namespaces(self):
        """The namespaces that hold ops, with their ops."""
        out = {}
        for qualname, f in _C._custom_ops.items():
            out.setdefault(getattr(self, qualname.split("::")[0]), []).append(f)
        return out


ops = _Ops()
