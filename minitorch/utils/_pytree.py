"""Pytrees, as torch.utils._pytree: nested containers (tuple, list, dict,
namedtuple, OrderedDict, defaultdict, deque, minitorch.Size, the
minitorch.return_types and any registered type) flattened to their leaves in
order and a TreeSpec that rebuilds the same structure; maps over the leaves
of one tree or of several trees sharing a prefix; key paths naming each
leaf. The transforms (minitorch.func) use these for their inputs and outputs.

A node's type is looked up in SUPPORTED_NODES; every namedtuple class counts
as the one node type ``namedtuple`` (its class is the spec's context), and
anything not registered is a leaf. ``is_leaf`` overrides the registry for the
subtrees it accepts."""
import dataclasses
import functools
import threading
import types
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, Callable, Generic, Hashable, List, NamedTuple, Optional, TypeVar

from .. import _C

__all__ = [
    "PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext", "ToDumpableContextFn",
    "FromDumpableContextFn", "PyTreeSpec", "TreeSpec", "LeafSpec", "keystr", "key_get",
    "register_pytree_node", "tree_is_leaf", "tree_flatten", "tree_flatten_with_path",
    "tree_unflatten", "tree_iter", "tree_leaves", "tree_leaves_with_path", "tree_structure",
    "tree_map", "tree_map_with_path", "tree_map_", "tree_map_only", "tree_map_only_",
    "tree_all", "tree_any", "tree_all_only", "tree_any_only", "treespec_dumps",
    "treespec_loads", "treespec_pprint", "is_namedtuple", "is_namedtuple_class",
    "is_namedtuple_instance", "is_structseq", "is_structseq_class", "is_structseq_instance",
]

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)

Context = Any
PyTree = Any
FlattenFn = Callable[[PyTree], "tuple[List[Any], Context]"]
UnflattenFn = Callable[[Any, Context], PyTree]
DumpableContext = Any
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
FlattenWithKeysFn = Callable[[PyTree], "tuple[List[tuple[Any, Any]], Any]"]

NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"


class NodeDef(NamedTuple):
    """How one registered container type flattens and rebuilds."""
    type: Any
    flatten_fn: Any
    unflatten_fn: Any
    flatten_with_keys_fn: Any


class _SerializeNodeDef(NamedTuple):
    typ: Any
    serialized_type_name: str
    to_dumpable_context: Any
    from_dumpable_context: Any


_NODE_REGISTRY_LOCK = threading.RLock()
SUPPORTED_NODES: dict = {}
SUPPORTED_SERIALIZED_TYPES: dict = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict = {}
# namedtuple classes that are nodes of their own (the histogram return types,
# which torch makes structseqs) rather than instances of the `namedtuple` node
_OWN_NODE_NAMEDTUPLES: set = set()


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None) -> None:
    """Registers a container type as a pytree node.

    Args:
        cls: the type to register.
        flatten_fn: takes an instance and returns ``(children, context)``.
        unflatten_fn: takes the rebuilt children and the context and returns
            an instance.
        serialized_type_name: the name :func:`treespec_dumps` writes for this
            type.
        to_dumpable_context: turns a context into something ``json`` can dump
            (given together with ``from_dumpable_context``).
        from_dumpable_context: the inverse of ``to_dumpable_context``.
        flatten_with_keys_fn: like ``flatten_fn`` but returns
            ``[(key, child), ...]``; needed for the key-path functions.

    Raises ValueError if ``cls`` is already registered.
    """
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            raise ValueError(f"{cls} is already registered as pytree node.")
        _private_register_pytree_node(
            cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
            to_dumpable_context=to_dumpable_context, from_dumpable_context=from_dumpable_context,
            flatten_with_keys_fn=flatten_with_keys_fn)


def _private_register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                                  to_dumpable_context=None, from_dumpable_context=None,
                                  flatten_with_keys_fn=None) -> None:
    with _NODE_REGISTRY_LOCK:
        if cls in SUPPORTED_NODES:
            warnings.warn(f"{cls} is already registered as pytree node. "
                          "Overwriting the previous registration.", stacklevel=3)
        if (to_dumpable_context is None) ^ (from_dumpable_context is None):
            raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} "
                             "must be None or registered.")
        SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
        name = NO_SERIALIZED_TYPE_NAME_FOUND if serialized_type_name is None \
            else serialized_type_name
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(cls, name, to_dumpable_context,
                                                            from_dumpable_context)
        SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls


def _deregister_pytree_node(cls) -> None:
    """Forgets a registration (for tests that register types of their own)."""
    with _NODE_REGISTRY_LOCK:
        del SUPPORTED_NODES[cls]
        entry = SUPPORTED_SERIALIZED_TYPES.pop(cls)
        SERIALIZED_TYPE_TO_PYTHON_TYPE.pop(entry.serialized_type_name, None)
        _OWN_NODE_NAMEDTUPLES.discard(cls)


def register_dataclass(cls, *, field_names=None, drop_field_names=None,
                       serialized_type_name=None) -> None:
    """Registers a dataclass (or a class built from keyword fields) as a
    node whose children are its fields; fields that are None are kept in the
    context instead of as leaves."""
    drop = set(drop_field_names or [])
    if not dataclasses.is_dataclass(cls):
        if field_names is None:
            raise ValueError("field_names must be specified with a list of all fields used to "
                             f"initialize {cls}, as it is not a dataclass.")
    elif field_names is None:
        field_names = [f.name for f in dataclasses.fields(cls) if f.init]
    else:
        init_fields = {f.name for f in dataclasses.fields(cls) if f.init} - drop
        if init_fields != set(field_names):
            msg = "field_names does not include all dataclass fields.\n"
            missing = init_fields - set(field_names)
            unexpected = set(field_names) - init_fields
            if missing:
                msg += (f"Missing fields in `field_names`: {missing}. If you want to include "
                        "these fields in the pytree, please add them to `field_names`, "
                        "otherwise please add them to `drop_field_names`.\n")
            if unexpected:
                msg += (f"Unexpected fields in `field_names`: {unexpected}. Please remove "
                        "these fields, or add them to `drop_field_names`.\n")
            raise ValueError(msg)
    names = list(field_names)

    def flatten(obj):
        present = [n for n in names if getattr(obj, n) is not None]
        absent = [n for n in names if getattr(obj, n) is None]
        return [getattr(obj, n) for n in present], [present, absent]

    def unflatten(values, context):
        present, absent = context
        return cls(**dict(zip(present, values)), **dict.fromkeys(absent))

    def flatten_with_keys(obj):
        values, (present, _) = flatten(obj)
        return [(GetAttrKey(n), v) for n, v in zip(present, values)], present

    _private_register_pytree_node(cls, flatten, unflatten,
                                  serialized_type_name=serialized_type_name,
                                  flatten_with_keys_fn=flatten_with_keys)


# ------------------------------------------------------------------ key paths

@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey(Generic[T]):
    """A key path entry: the child at an index of a sequence."""
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence):
        """The child this key names in ``sequence``."""
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True, slots=True)
class MappingKey(Generic[K, T]):
    """A key path entry: the value of a mapping at a key."""
    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping):
        """The value this key names in ``mapping``."""
        return mapping[self.key]


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
    """A key path entry: an attribute of an object (a namedtuple's field)."""
    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj):
        """The attribute this key names on ``obj``."""
        return getattr(obj, self.name)


def keystr(kp) -> str:
    """A key path printed as an access expression, e.g. ``[0]['a'].x``."""
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    """The value at key path ``kp`` inside ``obj``."""
    for k in kp:
        obj = k.get(obj)
    return obj


# -------------------------------------------------- namedtuple and structseq

def is_namedtuple(obj) -> bool:
    """Whether obj is a namedtuple instance or class."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_class(cls) -> bool:
    """Whether cls is a namedtuple class (a tuple with _fields, _make and _asdict)."""
    fields = getattr(cls, "_fields", None)
    return (isinstance(cls, type) and issubclass(cls, tuple) and isinstance(fields, tuple)
            and all(type(f) is str for f in fields)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


def is_namedtuple_instance(obj) -> bool:
    """Whether obj is a namedtuple instance."""
    return is_namedtuple_class(type(obj))


_TPFLAGS_BASETYPE = 1 << 10


def is_structseq(obj) -> bool:
    """Whether obj is a structseq (a C named sequence like os.stat_result) or
    its class."""
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_class(cls) -> bool:
    """Whether cls is a structseq class: a direct, final tuple subclass with
    the n_fields counters."""
    return (isinstance(cls, type) and cls.__bases__ == (tuple,)
            and all(isinstance(getattr(cls, a, None), int)
                    for a in ("n_fields", "n_sequence_fields", "n_unnamed_fields"))
            and not cls.__flags__ & _TPFLAGS_BASETYPE)


def is_structseq_instance(obj) -> bool:
    """Whether obj is a structseq instance."""
    return is_structseq_class(type(obj))


# ------------------------------------------------------------- the registry

def _get_node_type(tree):
    cls = type(tree)
    if is_namedtuple_class(cls) and cls not in _OWN_NODE_NAMEDTUPLES:
        return namedtuple
    return cls


def tree_is_leaf(tree, is_leaf=None) -> bool:
    """Whether tree is a leaf: ``is_leaf`` accepts it, or its type is not a
    registered node."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _get_node_type(tree) not in SUPPORTED_NODES


# ---------------------------------------------------------------- TreeSpec

@dataclasses.dataclass(init=False, frozen=True, eq=False, repr=False, slots=True)
class TreeSpec:
    """The structure of a pytree: the root node's type (None for a leaf), its
    context (dict keys, a namedtuple's class, a deque's maxlen, ...) and one
    child spec per child, with the counts of nodes, leaves and children."""
    type: Any
    _context: Any
    _children: list
    num_nodes: int = dataclasses.field(init=False)
    num_leaves: int = dataclasses.field(init=False)
    num_children: int = dataclasses.field(init=False)

    def __init__(self, type, context, children_specs) -> None:
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "_context", context)
        object.__setattr__(self, "_children", children_specs)
        if type is None:
            if context is not None:
                raise AssertionError("leaf node should not have a context")
            if len(children_specs) != 0:
                raise AssertionError("leaf node should not have children")
            nodes, leaves = 1, 1
        else:
            nodes = 1 + sum(c.num_nodes for c in children_specs)
            leaves = sum(c.num_leaves for c in children_specs)
        object.__setattr__(self, "num_nodes", nodes)
        object.__setattr__(self, "num_leaves", leaves)
        object.__setattr__(self, "num_children", len(children_specs))

    def __repr__(self, indent: int = 0) -> str:
        head = f"TreeSpec({self.type.__name__}, {self._context}, ["
        if not self._children:
            return head + "])"
        inner = indent + 2
        parts = [self._children[0].__repr__(inner)]
        parts += ["\n" + " " * inner + c.__repr__(inner) for c in self._children[1:]]
        return head + ",".join(parts) + "])"

    def __eq__(self, other):
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        # types compare by name: the same namedtuple node, whatever its class
        return (str(self.type) == str(other.type) and self._context == other._context
                and self._children == other._children)

    def __hash__(self) -> int:
        kind = self.type
        if kind is defaultdict:
            factory, keys = self._context
            context = (factory, tuple(keys))
        elif kind in (dict, OrderedDict):
            context = tuple(self._context)
        elif kind is None or kind in BUILTIN_TYPES:
            context = self._context
        else:
            context = None  # a custom node's context need not be hashable
        return hash((kind, context, tuple(self._children)))

    @property
    def context(self):
        """The root node's context (what its unflatten function needs besides
        the children)."""
        return self._context

    @property
    def children_specs(self) -> list:
        """The child specs (deprecated in torch: use :meth:`children`)."""
        warnings.warn("`treespec.children_specs` is deprecated. Use `treespec.child(index)` to "
                      "access a single child, or `treespec.children()` to get all children.",
                      FutureWarning, stacklevel=2)
        return self._children

    def is_leaf(self) -> bool:
        """Whether this spec is a single leaf."""
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self) -> list:
        """A copy of the list of child specs."""
        return list(self._children)

    def child(self, index: int):
        """The child spec at index."""
        return self._children[index]

    def flatten_up_to(self, tree) -> list:
        """The subtrees of ``tree`` at this spec's leaves: ``tree`` must have this
        structure down to them (dict-like nodes may differ in type and key
        order but not in keys; a deque's maxlen may differ)."""
        out: list = []
        _flatten_up_to(self, tree, out)
        return out

    def unflatten(self, leaves):
        """The pytree of this structure holding ``leaves`` in order."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec "
                f"refers to a pytree that holds {self.num_leaves} items ({self}).")
        return _build(self, iter(leaves))


def _build(spec, it):
    # a module-level recursion: a nested function would be a reference cycle
    # keeping the leaves (often large gradients) alive until a collection
    if spec.is_leaf():
        return next(it)
    children = [_build(c, it) for c in spec._children]
    return SUPPORTED_NODES[spec.type].unflatten_fn(children, spec._context)


def _dict_keys_of(spec):
    return spec._context[1] if spec.type is defaultdict else spec._context


def _flatten_up_to(spec, node, out):
    if spec.is_leaf():
        out.append(node)
        return
    kind = _get_node_type(node)
    if spec.type not in BUILTIN_TYPES:
        if kind != spec.type:
            raise ValueError(f"Type mismatch; expected {spec.type!r}, but got {kind!r}.")
        children, context = SUPPORTED_NODES[kind].flatten_fn(node)
        if len(children) != spec.num_children:
            raise ValueError(f"Node arity mismatch; expected {spec.num_children}, "
                             f"but got {len(children)}.")
        if context != spec._context:
            raise ValueError(f"Node context mismatch for custom node type {spec.type!r}.")
    else:
        dicts = spec.type in STANDARD_DICT_TYPES and kind in STANDARD_DICT_TYPES
        if not dicts and kind != spec.type:
            raise ValueError(f"Node type mismatch; expected {spec.type!r}, but got {kind!r}.")
        if len(node) != spec.num_children:
            raise ValueError(f"Node arity mismatch; expected {spec.num_children}, "
                             f"but got {len(node)}.")
        if dicts:
            keys = _dict_keys_of(spec)
            got, want = set(node), set(keys)
            if got != want:
                message = ""
                if want - got:
                    message += f"; missing key(s): {want - got}"
                if got - want:
                    message += f"; extra key(s): {got - want}"
                raise ValueError(f"Node keys mismatch{message}.")
            children = [node[k] for k in keys]
        else:
            children, context = SUPPORTED_NODES[kind].flatten_fn(node)
            if kind is not deque and context != spec._context:
                raise ValueError(f"Node context mismatch for node type {spec.type!r}; "
                                 f"expected {spec._context!r}, but got {context!r}.")
    for child, child_spec in zip(children, spec._children):
        _flatten_up_to(child_spec, child, out)


class LeafSpec(TreeSpec):
    """The spec of a single leaf (deprecated in torch: test
    ``spec.is_leaf()`` instead)."""
    __slots__ = ()

    def __init__(self) -> None:
        warnings.warn("`isinstance(treespec, LeafSpec)` is deprecated, use "
                      "`isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.",
                      FutureWarning, stacklevel=2)
        _init_leaf(self)

    def __repr__(self, indent: int = 0) -> str:
        return "*"


def _init_leaf(spec):
    for name, value in (("type", None), ("_context", None), ("_children", []),
                        ("num_nodes", 1), ("num_leaves", 1), ("num_children", 0)):
        object.__setattr__(spec, name, value)


PyTreeSpec = TreeSpec

# every leaf has the same spec, so one object serves them all
_LEAF_SPEC = LeafSpec.__new__(LeafSpec)
_init_leaf(_LEAF_SPEC)


def treespec_leaf():
    """The spec of a leaf."""
    return _LEAF_SPEC


def treespec_tuple(iterable=(), /):
    """A tuple spec with the given child specs."""
    children = list(iterable)
    if any(not isinstance(c, TreeSpec) for c in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping=(), /, **kwargs):
    """A dict spec with the given child specs (keys in the given order)."""
    d = dict(mapping, **kwargs)
    if any(not isinstance(c, TreeSpec) for c in d.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {d!r}.")
    return TreeSpec(dict, list(d.keys()), list(d.values()))


# ---------------------------------------------------------- flatten and map

def tree_flatten(tree, is_leaf=None):
    """The leaves of tree in order and the TreeSpec that rebuilds it."""
    leaves: list = []
    return leaves, _flatten(tree, is_leaf, leaves)


def _flatten(node, is_leaf, leaves):
    if tree_is_leaf(node, is_leaf):
        leaves.append(node)
        return _LEAF_SPEC
    kind = _get_node_type(node)
    children, context = SUPPORTED_NODES[kind].flatten_fn(node)
    return TreeSpec(kind, context, [_flatten(c, is_leaf, leaves) for c in children])


def tree_unflatten(leaves, treespec):
    """The pytree of treespec's structure holding leaves (the inverse of
    :func:`tree_flatten`); the two arguments may come in either order."""
    if not isinstance(treespec, TreeSpec):
        if not isinstance(leaves, TreeSpec):
            raise TypeError("Expected `treespec` to be an instance of PyTreeSpec but got item "
                            f"of type {type(treespec)}.")
        leaves, treespec = treespec, leaves
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """An iterator over the leaves of tree, in order."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_get_node_type(tree)].flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None) -> list:
    """The leaves of tree, in order."""
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf=None):
    """The TreeSpec of tree."""
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """A new pytree of tree's structure with ``func(x, *xs)`` at each leaf x,
    where xs are the subtrees of ``rests`` at the same place (each of rests
    must have tree's structure down to tree's leaves).

    >>> tree_map(lambda x: x + 1, {"x": 7, "y": (42, 64)})
    {'x': 8, 'y': (43, 65)}
    """
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, *flat))


def tree_map_(func, tree, *rests, is_leaf=None):
    """Calls ``func(x, *xs)`` at each leaf as :func:`tree_map` does, for its
    side effects, and returns tree itself."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    deque(map(func, *flat), maxlen=0)
    return tree


def map_only(type_or_types_or_pred, /):
    """A decorator making func apply only to leaves of the given type(s) or
    accepted by the given predicate; other leaves pass through unchanged."""
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        def pred(x):
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        @functools.wraps(func)
        def wrapped(x):
            return func(x) if pred(x) else x
        return wrapped
    return wrapper


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """:func:`tree_map` applying func only to the leaves of the given type(s)
    (or that a predicate accepts); the others are kept."""
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """:func:`tree_map_` calling func only on the leaves of the given type(s)
    (or that a predicate accepts)."""
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None) -> bool:
    """Whether pred holds for every leaf."""
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None) -> bool:
    """Whether pred holds for some leaf."""
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, /, pred, tree, is_leaf=None) -> bool:
    """Whether pred holds for every leaf of the given type(s)."""
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, /, pred, tree, is_leaf=None) -> bool:
    """Whether pred holds for some leaf of the given type(s)."""
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def _broadcast_to_and_flatten(tree, treespec, is_leaf=None) -> Optional[list]:
    """tree's leaves, each repeated over the leaves below it in treespec's
    structure (tree is a prefix of it: vmap's in_dims), or None if tree is
    not a prefix of that structure."""
    full = treespec.unflatten([0] * treespec.num_leaves)
    out: list = []
    try:
        tree_map_(lambda x, sub: out.extend([x] * tree_structure(sub, is_leaf).num_leaves),
                  tree, full, is_leaf=is_leaf)
    except ValueError:
        return None
    return out


# --------------------------------------------------------------- key paths

def tree_flatten_with_path(tree, is_leaf=None):
    """As :func:`tree_flatten`, each leaf paired with its key path."""
    return list(_key_paths((), tree, is_leaf)), tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None) -> list:
    """``[(key_path, leaf), ...]`` in leaf order."""
    return list(_key_paths((), tree, is_leaf))


def _key_paths(path, tree, is_leaf):
    if is_leaf is not None and is_leaf(tree):
        yield path, tree
        return
    kind = _get_node_type(tree)
    node = SUPPORTED_NODES.get(kind)
    if node is None:
        yield path, tree
        return
    if node.flatten_with_keys_fn is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {kind}. "
                         "Please pass a flatten_with_keys_fn argument to register_pytree_node.")
    keyed, _ = node.flatten_with_keys_fn(tree)
    for key, child in keyed:
        yield from _key_paths((*path, key), child, is_leaf)


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """As :func:`tree_map`, with each leaf's key path as func's first argument."""
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    columns = [[p for p, _ in pairs], [x for _, x in pairs]]
    columns += [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(*xs) for xs in zip(*columns))


# -------------------------------------------------------------- printing

class _Asterisk(str):
    __slots__ = ()

    def __repr__(self) -> str:
        return "*"


_ASTERISK = _Asterisk("*")


def treespec_pprint(treespec) -> str:
    """The structure printed as the container it describes with ``*`` for
    each leaf, e.g. ``(*, {'a': *})``."""
    return repr(treespec.unflatten([_ASTERISK] * treespec.num_leaves))


# ------------------------------------------------------ the built-in nodes

def _sequence_keys(values):
    return [(SequenceKey(i), v) for i, v in enumerate(values)]


def _register_sequence(cls, flatten, unflatten, name):
    def with_keys(node):
        values, context = flatten(node)
        return _sequence_keys(values), context
    _private_register_pytree_node(cls, flatten, unflatten, serialized_type_name=name,
                                  flatten_with_keys_fn=with_keys)


def _dict_items(node, context):
    return [(MappingKey(k), node[k]) for k in context]


_register_sequence(tuple, lambda t: (list(t), None), lambda v, c: tuple(v), "builtins.tuple")
_register_sequence(list, lambda t: (t, None), lambda v, c: list(v), "builtins.list")
_private_register_pytree_node(
    dict, lambda d: (list(d.values()), list(d.keys())), lambda v, c: dict(zip(c, v)),
    serialized_type_name="builtins.dict",
    flatten_with_keys_fn=lambda d: (_dict_items(d, list(d.keys())), list(d.keys())))


def _namedtuple_serialize(context):
    entry = SUPPORTED_SERIALIZED_TYPES.get(context)
    if entry is None:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we didn't "
            "register a serializated_type_name. Please register using `_register_namedtuple`.")
    if entry.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we couldn't find "
            "a serializated_type_name. Please register using `_register_namedtuple`.")
    return entry.serialized_type_name


def _namedtuple_deserialize(name):
    if name not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Can't deserialize TreeSpec of namedtuple class {name} "
                                  "because we couldn't find a serializated name.")
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[name]


def _namedtuple_flatten(t):
    return list(t), type(t)


def _namedtuple_unflatten(values, cls):
    return cls(*values)


def _namedtuple_flatten_with_keys(t):
    return [(GetAttrKey(f), v) for f, v in zip(type(t)._fields, t)], type(t)


_private_register_pytree_node(
    namedtuple, _namedtuple_flatten, _namedtuple_unflatten,
    serialized_type_name="collections.namedtuple", to_dumpable_context=_namedtuple_serialize,
    from_dumpable_context=_namedtuple_deserialize,
    flatten_with_keys_fn=_namedtuple_flatten_with_keys)


def _register_namedtuple(cls, *, serialized_type_name):
    """Gives a namedtuple class a serialized name so that specs holding it can
    be dumped with :func:`treespec_dumps`."""
    _private_register_pytree_node(
        cls, _namedtuple_flatten, _namedtuple_unflatten,
        serialized_type_name=serialized_type_name, to_dumpable_context=_namedtuple_serialize,
        from_dumpable_context=_namedtuple_deserialize,
        flatten_with_keys_fn=_namedtuple_flatten_with_keys)


_private_register_pytree_node(
    OrderedDict, lambda d: (list(d.values()), list(d.keys())),
    lambda v, c: OrderedDict(zip(c, v)), serialized_type_name="collections.OrderedDict",
    flatten_with_keys_fn=lambda d: (_dict_items(d, list(d.keys())), list(d.keys())))


def _defaultdict_serialize(context):
    factory, keys = context
    return {"default_factory_module": factory.__module__,
            "default_factory_name": factory.__qualname__, "dict_context": keys}


def _defaultdict_deserialize(dumped):
    import importlib
    if not isinstance(dumped, dict):
        raise AssertionError("dumpable_context must be a dict")
    expected = {"default_factory_module", "default_factory_name", "dict_context"}
    if set(dumped) != expected:
        raise AssertionError(f"dumpable_context keys must be {expected}, got {set(dumped)}")
    module, name = dumped["default_factory_module"], dumped["default_factory_name"]
    if not isinstance(module, str):
        raise AssertionError("default_factory_module must be a string")
    if not isinstance(name, str):
        raise AssertionError("default_factory_name must be a string")
    return [getattr(importlib.import_module(module), name), dumped["dict_context"]]


_private_register_pytree_node(
    defaultdict, lambda d: (list(d.values()), [d.default_factory, list(d.keys())]),
    lambda v, c: defaultdict(c[0], zip(c[1], v)),
    serialized_type_name="collections.defaultdict",
    to_dumpable_context=_defaultdict_serialize, from_dumpable_context=_defaultdict_deserialize,
    flatten_with_keys_fn=lambda d: (_dict_items(d, list(d.keys())),
                                    [d.default_factory, list(d.keys())]))
_register_sequence(deque, lambda d: (list(d), d.maxlen), lambda v, c: deque(v, maxlen=c),
                   "collections.deque")

STANDARD_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})
BUILTIN_TYPES = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque})

# as torch: a Size flattens to its ints and comes back as a plain tuple (the
# mapped values need not be ints)
_register_sequence(_C.Size, lambda s: (list(s), None), lambda v, c: tuple(v), "minitorch.Size")


def _register_return_types():
    """Every minitorch.return_types class is a node of its own, as torch
    registers its structseqs: children in field order, no context."""
    for name in dir(_C.return_types):
        cls = getattr(_C.return_types, name)
        if name.startswith("__") or not (isinstance(cls, type) and issubclass(cls, tuple)):
            continue
        if is_namedtuple_class(cls):
            _OWN_NODE_NAMEDTUPLES.add(cls)
        _register_sequence(cls, lambda t: (list(t), None),
                           functools.partial(_rebuild_return_type, cls), None)


def _rebuild_return_type(cls, values, context):
    return cls(*values) if is_namedtuple_class(cls) else cls(values)


_register_return_types()


# the JSON form lives in _pytree_serialize, which reads this module's
# registries: imported when first used, so the two do not import each other
def treespec_dumps(treespec: "TreeSpec", protocol: Optional[int] = None) -> str:
    """The spec as JSON text (types by their serialized names), which
    :func:`treespec_loads` reads back."""
    from . import _pytree_serialize
    return _pytree_serialize.treespec_dumps(treespec, protocol)


def treespec_loads(serialized: str) -> "TreeSpec":
    """The TreeSpec that :func:`treespec_dumps` wrote as ``serialized``."""
    from . import _pytree_serialize
    return _pytree_serialize.treespec_loads(serialized)
