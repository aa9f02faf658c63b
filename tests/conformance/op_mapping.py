"""Which minitorch callables stand for an OpInfo of torch's op_db: found by
name, never by a hand list. An OpInfo's torch callable is located by
identity in torch's public namespaces and the same name is looked up in
minitorch's; an OpInfo whose op is a Python function written over torch
(a lambda such as `x.T` or `x.new_zeros(...)`) runs with the torch names it
uses bound to minitorch's."""
import functools
import types

import torch
import torch.nn.functional

import minitorch as mt

# checked in this order when locating a torch callable; the first holding
# it names the OpInfo's namespace in the report
NAMESPACES = ("torch", "nn.functional", "linalg", "special", "fft", "masked",
              "signal.windows", "sparse", "Tensor")

# the dtypes the harness runs (the half types are out of scope); an OpInfo
# is applicable when it lists one of DTYPES, and is checked at each of
# COMPLEX_DTYPES it lists too, as checks of their own
DTYPES = (torch.float32, torch.float64, torch.int64, torch.bool)
COMPLEX_DTYPES = (torch.complex64, torch.complex128)


def _resolve(root, path):
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def torch_namespace(ns):
    return torch.Tensor if ns == "Tensor" else _resolve(torch, ns) if ns != "torch" else torch


def mt_namespace(ns):
    return mt.Tensor if ns == "Tensor" else _resolve(mt, ns) if ns != "torch" else mt


@functools.lru_cache(maxsize=None)
def _torch_index():
    """id of each public torch callable -> (namespace, attribute), the
    first namespace holding it winning (aliases keep their own names)."""
    index = {}
    for ns in NAMESPACES:
        space = torch_namespace(ns)
        for attr in dir(space) if space is not None else ():
            try:
                value = getattr(space, attr)
            except Exception:  # noqa: BLE001 - a lazy attribute that fails is no op
                continue
            if callable(value) and not isinstance(value, type):
                index.setdefault(id(value), (ns, attr))
    return index


def _locate(obj):
    """(namespace, attribute) under which torch exposes obj, or None."""
    name = getattr(obj, "__name__", None)
    for ns in NAMESPACES:
        space = torch_namespace(ns)
        if space is not None and name and getattr(space, name, None) is obj:
            return ns, name
    return _torch_index().get(id(obj))


def namespace_of(op):
    """The torch namespace the OpInfo belongs to, for the report."""
    for ns in NAMESPACES[1:-1]:
        if op.name.startswith(ns + "."):
            return ns
    if op.name.startswith("torch.ops.") or op.name.startswith("_") and \
            not op.name.startswith("__"):
        return "aten"
    if op.name.startswith("jiterator"):
        return "cuda.jiterator"
    if hasattr(torch, op.name) and not op.name.startswith("__"):
        return "torch"
    return "Tensor"


def mt_counterpart(obj):
    """minitorch's object of the same name as torch's obj (a module, a
    public function or a Tensor method), or None."""
    if isinstance(obj, types.ModuleType):
        if obj is torch:
            return mt
        if obj.__name__.startswith("torch."):
            return _resolve(mt, obj.__name__[len("torch."):])
        return None
    found = _locate(obj)
    if found is None:
        return None
    space = mt_namespace(found[0])
    return None if space is None else getattr(space, found[1], None)


def _is_torch_thing(value):
    if isinstance(value, types.ModuleType):
        return value.__name__ == "torch" or value.__name__.startswith("torch.") \
            and not value.__name__.startswith("torch.testing")
    return _locate(value) is not None if callable(value) else False


def _names(code):
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


def rebind(fn):
    """fn, a Python function written over torch, with the torch modules and
    callables it names (globals, closure cells, defaults) replaced by
    minitorch's; None when one has no minitorch counterpart."""
    glb = dict(fn.__globals__)
    for name in _names(fn.__code__):
        value = glb.get(name)
        if value is not None and _is_torch_thing(value):
            glb[name] = mt_counterpart(value)
            if glb[name] is None:
                return None

    def swap(value):
        if _is_torch_thing(value):
            return mt_counterpart(value)
        return value

    closure = None
    if fn.__closure__:
        closure = tuple(types.CellType(swap(c.cell_contents)) for c in fn.__closure__)
        if any(c.cell_contents is None for c, o in zip(closure, fn.__closure__)
               if o.cell_contents is not None):
            return None
    defaults = tuple(swap(v) for v in fn.__defaults__) if fn.__defaults__ else None
    out = types.FunctionType(fn.__code__, glb, fn.__name__, defaults, closure)
    out.__kwdefaults__ = fn.__kwdefaults__
    return out


def _aten_counterpart(torch_fn):
    """minitorch's ops.aten packet or overload of the same names as torch's
    (aten.slice -> ops.aten.slice, aten.slice.Tensor -> ops.aten.slice.Tensor)."""
    packet = torch_fn.overloadpacket if isinstance(torch_fn, torch._ops.OpOverload) else torch_fn
    if not packet._qualified_op_name.startswith("aten::"):
        return None
    found = getattr(mt.ops.aten, packet.__name__, None)
    if found is None or packet is torch_fn:
        return found
    return getattr(found, torch_fn._overloadname, None)


def _variant(torch_fn, hint=None):
    """The minitorch callable for one of an OpInfo's torch callables; hint,
    the (namespace, attribute) the OpInfo's name gives, wins when torch
    exposes the callable there too (torch.nn.functional.hardshrink is
    torch.hardshrink; F.threshold's function is named _threshold)."""
    if torch_fn is None:
        return None
    if isinstance(torch_fn, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return _aten_counterpart(torch_fn)
    if hint is not None and getattr(torch_namespace(hint[0]), hint[1], None) is torch_fn:
        space = mt_namespace(hint[0])
        found = None if space is None else getattr(space, hint[1], None)
        if found is not None:
            return found
    if isinstance(torch_fn, functools.partial):
        inner = _variant(torch_fn.func, hint)
        return None if inner is None else functools.partial(inner, *torch_fn.args,
                                                            **torch_fn.keywords)
    if isinstance(torch_fn, types.FunctionType) and _locate(torch_fn) is None:
        return rebind(torch_fn)
    found = _locate(torch_fn)
    if found is None:
        return None
    space = mt_namespace(found[0])
    return None if space is None else getattr(space, found[1], None)


class Mapped:
    """An OpInfo with its minitorch function, method and in-place callables
    (None where torch has the variant and minitorch not, or torch has none)."""

    def __init__(self, op):
        self.op = op
        self.namespace = namespace_of(op)
        self.id = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
        ns = self.namespace if self.namespace not in ("aten", "cuda.jiterator") else "torch"
        self.function = _variant(op.op, (ns, op.name.split(".")[-1]))
        self.method = _variant(op.method_variant)
        self.inplace = _variant(op.inplace_variant)
        self.dtypes = [d for d in DTYPES if d in op.supported_dtypes("cpu")]
        self.complex_dtypes = [d for d in COMPLEX_DTYPES if d in op.supported_dtypes("cpu")]
        if self.function is not None and isinstance(op.op, types.FunctionType) \
                and _locate(op.op) is None and not self._named_in_mt():
            # a lambda over torch runs on minitorch only when the op it
            # exercises exists there by name
            self.function = None

    def _named_in_mt(self):
        last = self.op.name.split(".")[-1]
        space = mt_namespace(self.namespace) if self.namespace != "aten" else None
        return any(getattr(s, n, None) is not None
                   for s in (space, mt, mt.Tensor, mt.ops.aten) if s is not None
                   for n in (last, last + "_"))

    @property
    def applicable(self):
        # jiterator OpInfos list CPU dtypes but compile CUDA kernels only
        return bool(self.dtypes) and self.namespace != "cuda.jiterator"

    @property
    def present(self):
        return self.applicable and self.function is not None


def mapped_op_db():
    from torch.testing._internal.common_methods_invocations import op_db
    return [Mapped(op) for op in op_db]
