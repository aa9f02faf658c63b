"""torch.ops.aten: the op table's rows as torch's op overloads.

``minitorch.ops.aten.<name>`` is an OpOverloadPacket and
``minitorch.ops.aten.<name>.<overload>`` an OpOverload: what a dispatch
mode's ``__torch_dispatch__`` receives as ``func`` for a row call, and a
callable that runs its row below autograd. Both are made from the op table
(``_C._op_rows()``) when first asked for, with torch's names: an operator's
forms are its in-place op (``__imul__`` is ``mul_``) or the op itself
(``__mul__``, ``__rmul__``, whose call a mode sees with the operands in
the op's order: ``2 - x`` is ``sub.Tensor(2, x)``); an overload is
``correction`` for a reduction taking one (rows taking ``unbiased`` instead
run as that overload, as torch decomposes them), the row id's suffix after
the name for a row that has one (``view_dtype`` is ``view.dtype``,
``sum_dim`` ``sum.dim``), ``Tensor`` or ``Scalar`` by an ``other`` operand
(``mul.Tensor``), else ``default``. One object per overload, so
``func is minitorch.ops.aten.sin.default`` holds.

aten ops minitorch writes in Python rather than as rows (``slice.Tensor``,
``_safe_softmax.default``: composites_aten.py registers them with
``register_composite``) are overloads too; calling one runs its function,
which records autograd through the ops it is written with, so a dispatch
mode sees those ops, as torch's modes see a composite's decomposition.
"""
import functools
import inspect

from . import _C

_FORM_SUFFIXES = ("_idunder", "_rdunder", "_dunder")


class OpOverload:
    """One overload of an aten op: callable (runs its row without recording,
    as torch's OpOverload runs below autograd)."""

    def __init__(self, packet, overload, rows):
        self.overloadpacket = packet
        self._overloadname = overload
        # a composite's overload holds its function instead of rows
        self._fn = rows if callable(rows) else None
        self._rows = () if self._fn else tuple(rows)
        self._op = self._fn if self._fn is not None else packet._op
        self.__name__ = f"{packet.__name__}.{overload}"
        self.__qualname__ = self.__name__
        self.__module__ = "minitorch.ops.aten"

    def name(self):
        base = f"aten::{self.overloadpacket.__name__}"
        return base if self._overloadname == "default" else f"{base}.{self._overloadname}"

    @property
    def _schema(self):
        if self._fn is not None:
            return f"{self.overloadpacket.__name__}{inspect.signature(self._fn)}"
        return _C._op_rows()[self._rows[0]][3]

    @property
    def namespace(self):
        return "aten"

    def __call__(self, *args, **kwargs):
        if self._fn is not None:
            return self._fn(*args, **kwargs)
        return _C._run_row(self._rows, args, kwargs)

    def __str__(self):
        return f"aten.{self.overloadpacket.__name__}.{self._overloadname}"

    def __repr__(self):
        return f"<OpOverload(op='aten.{self.overloadpacket.__name__}', " \
               f"overload='{self._overloadname}')>"

    def __reduce__(self):
        return _overload, (self.overloadpacket.__name__, self._overloadname)


class OpOverloadPacket:
    """All overloads of one aten op name; calling it runs the public op
    (through autograd), as torch's packet does."""

    def __init__(self, name, overloads):
        self.__name__ = name
        self.__qualname__ = name
        self._qualified_op_name = f"aten::{name}"
        self._overloads = {}
        for overload, rows in overloads.items():
            self._overloads[overload] = OpOverload(self, overload, rows)

    @property
    def _op(self):
        from . import Tensor
        import minitorch
        op = getattr(minitorch, self.__name__, None)
        if op is None:
            op = getattr(Tensor, self.__name__, None)
        if op is None and self._overloads:
            # an aten-only composite: its first registered overload
            op = next(iter(self._overloads.values()))._fn
        return op

    def overloads(self):
        return list(self._overloads)

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        try:
            return self._overloads[overload]
        except KeyError:
            raise AttributeError(f"The underlying op of 'aten.{self.__name__}' has no overload "
                                 f"name '{overload}'") from None

    def __call__(self, *args, **kwargs):
        op = self._op
        if op is None:
            raise NotImplementedError(f"minitorch has no implementation of aten::{self.__name__}")
        return op(*args, **kwargs)

    def __str__(self):
        return f"aten.{self.__name__}"

    def __repr__(self):
        return f"<OpOverloadPacket(op='aten.{self.__name__}')>"


def _packet_name(cid, name, ids):
    """The aten name of a row: an operator form's is its operator's (or its
    in-place op's)."""
    for suffix in _FORM_SUFFIXES:
        if cid.endswith(suffix):
            base = ids[cid[:-len(suffix)]][1]
            return base + "_" if suffix == "_idunder" else base
    return name


def _base_id(cid, ids):
    """A row's C id without MT_OP_; an operator form's is its operator's."""
    cid = cid[len("MT_OP_"):]
    for suffix in _FORM_SUFFIXES:
        if cid.endswith(suffix):
            return cid[:-len(suffix)]
    return cid


@functools.lru_cache(maxsize=None)
def _table():
    """(packets by name, (packet name, overload) per row)."""
    rows = _C._op_rows()
    ids = {r[0]: r for r in rows}
    by_name = {}
    for i, r in enumerate(rows):
        by_name.setdefault(_packet_name(r[0], r[1], ids), []).append(i)
    per_row = [None] * len(rows)
    packets = {}
    for name, members in by_name.items():
        has_correction = any("correction" in rows[i][3] for i in members)
        overloads = {}
        for i in members:
            cid, sig = _base_id(rows[i][0], ids), rows[i][3]
            params = sig[sig.index("(") + 1:sig.rindex(")")]
            stem = name.rstrip("_")
            if "correction" in params or (has_correction and "unbiased" in params):
                overload = "correction"
            elif cid.startswith(stem + "_") and cid[len(stem) + 1:] and cid != name:
                overload = cid[len(stem) + 1:]
            elif " other" in params:
                overload = "Tensor" if "Tensor" in params.split(" other")[0].split(",")[-1] \
                    else "Scalar"
            else:
                overload = "default"
            # a call of the overload runs whichever of its rows its arguments
            # fit, trying the one taking torch's parameters first
            rows_of = overloads.setdefault(overload, [])
            rows_of.insert(0 if overload == "correction" and "correction" in params else
                           len(rows_of), i)
            per_row[i] = (name, overload)
        packets[name] = overloads
    return packets, per_row


class _MetadataOverload(OpOverload):
    """An overload of a metadata op (``sym_size``, ``sym_stride``,
    ``sym_numel``, ``sym_storage_offset``): minitorch reads sizes and strides
    without a row, so no mode ever receives one; they exist to be named (a
    checkpoint policy compares ops with them) and called."""

    def __init__(self, packet, overload, schema, read):
        self.overloadpacket = packet
        self._overloadname = overload
        self._schema_text = schema
        self._read = read
        self.__name__ = f"{packet.__name__}.{overload}"
        self.__qualname__ = self.__name__
        self.__module__ = "minitorch.ops.aten"

    @property
    def _schema(self):
        return self._schema_text

    def __call__(self, *args, **kwargs):
        return self._read(*args, **kwargs)


class _MetadataPacket(OpOverloadPacket):
    def __init__(self, name, overloads):
        self.__name__ = name
        self.__qualname__ = name
        self._qualified_op_name = f"aten::{name}"
        self._overloads = {o: _MetadataOverload(self, o, schema, read)
                           for o, (schema, read) in overloads.items()}

    @property
    def _op(self):
        return self._overloads["default"]


def _list_of(read):
    return lambda self: list(read(self))


_METADATA_OPS = {
    "sym_size": {"int": ("aten::sym_size.int(Tensor self, int dim) -> SymInt",
                         lambda self, dim: self.size(dim)),
                 "default": ("aten::sym_size(Tensor self) -> SymInt[]",
                             _list_of(lambda t: t.size()))},
    "sym_stride": {"int": ("aten::sym_stride.int(Tensor self, int dim) -> SymInt",
                           lambda self, dim: self.stride(dim)),
                   "default": ("aten::sym_stride(Tensor self) -> SymInt[]",
                               _list_of(lambda t: t.stride()))},
    "sym_numel": {"default": ("aten::sym_numel(Tensor self) -> SymInt",
                              lambda self: self.numel())},
    "sym_storage_offset": {"default": ("aten::sym_storage_offset(Tensor self) -> SymInt",
                                       lambda self: self.storage_offset())},
}


# aten ops written in Python: name -> {overload: function}
_COMPOSITES = {}


def register_composite(name, overload="default"):
    """Makes the decorated function ``ops.aten.<name>.<overload>``."""
    def register(fn):
        _COMPOSITES.setdefault(name, {})[overload] = fn
        _packet.cache_clear()
        return fn
    return register


@functools.lru_cache(maxsize=None)
def _packet(name):
    packets, _ = _table()
    if name in _METADATA_OPS and name not in packets:
        return _MetadataPacket(name, _METADATA_OPS[name])
    if name not in packets and name not in _COMPOSITES:
        return None
    return OpOverloadPacket(name, {**packets.get(name, {}), **_COMPOSITES.get(name, {})})


def _overload(name, overload):
    return getattr(_packet(name), overload)


def overload_of_row(row):
    """The OpOverload a call of row ``row`` is, for dispatch modes."""
    name, overload = _table()[1][row]
    return getattr(_packet(name), overload)


@functools.lru_cache(maxsize=None)
def is_reflected(row):
    """Whether row ``row`` is an operator's reflected form (``__rsub__``):
    its first two arguments are the op's in the other order."""
    return _C._op_rows()[row][0].endswith("_rdunder")


class AtenNamespace:
    """``minitorch.ops.aten``."""

    name = "aten"

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        packet = _packet(name)
        if packet is None:
            raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{name}'")
        return packet

    def __iter__(self):
        return iter(sorted(set(_table()[0]) | set(_METADATA_OPS) | set(_COMPOSITES)))


aten = AtenNamespace()
