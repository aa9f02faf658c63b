"""minitorch.ops: custom ops by namespace, as torch.ops.

``minitorch.ops.mylib.myadd`` is the op registered as "mylib::myadd", from C
(``MT->register_op``) or Python (``minitorch.library.custom_op``): a row of
the op table, published by the C side in ``_C._custom_ops``.
``minitorch.ops.aten`` holds the built-in rows as torch's op overloads
(``_aten.py``).
"""
import types

from . import _C
from ._aten import OpOverload, OpOverloadPacket, aten  # noqa: F401 (torch._ops names them)


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
            return _C._custom_ops[f"{self.name}::{op_name}"]
        except KeyError:
            raise AttributeError(
                f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'") from None

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
