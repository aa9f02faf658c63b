"""minitorch.utils._pytree against torch.utils._pytree: the same nested
structures (plain Python values, so both libraries see the very same
objects) give the same leaves, specs (repr, counts, equality, hash, pprint,
serialized text), key paths, maps, and errors with torch's messages."""
import re
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest

import minitorch
from minitorch.utils import _pytree as mp

torch = pytest.importorskip("torch")
tp = pytest.importorskip("torch.utils._pytree")

Point = namedtuple("Point", "x y")
Triple = namedtuple("Triple", ["a", "b", "c"])

TREES = [
    1,
    None,
    "leaf",
    [],
    (),
    {},
    [1, 2, 3],
    (1,),
    (1, (2, (3, (4,)))),
    {"b": 1, "a": 2},
    {"a": [1, {"c": 3, "b": (4, 5)}], "z": None},
    {3: "x", 1: "y", (2, 2): "z"},
    [None, [None], (None, {})],
    Point(1, 2),
    Point([1, 2], {"k": Point(3, 4)}),
    Triple(a=(), b=[7], c={"q": 8}),
    OrderedDict([("z", 1), ("a", [2, 3])]),
    defaultdict(list, {"y": 1, "x": (2,)}),
    defaultdict(int, {}),
    deque([1, [2, 3]]),
    deque([1, 2], maxlen=4),
    [1, (2, {"b": 3, "a": Point(4, [5])}), OrderedDict(z=6), defaultdict(list, {1: 7}),
     deque([8, 9], maxlen=3), None],
    ([[[[]]]], {"e": {"f": {"g": [1]}}}),
]
IDS = [f"tree{i}" for i in range(len(TREES))]


@pytest.mark.parametrize("tree", TREES, ids=IDS)
def test_flatten_matches_torch(tree):
    leaves, spec = mp.tree_flatten(tree)
    t_leaves, t_spec = tp.tree_flatten(tree)
    assert leaves == t_leaves
    assert repr(spec) == repr(t_spec)
    assert str(spec) == str(t_spec)
    assert (spec.num_leaves, spec.num_nodes, spec.num_children, spec.is_leaf()) == \
        (t_spec.num_leaves, t_spec.num_nodes, t_spec.num_children, t_spec.is_leaf())
    assert spec.type is t_spec.type or spec.type.__name__ == t_spec.type.__name__
    assert spec.context == t_spec.context
    assert [repr(c) for c in spec.children()] == [repr(c) for c in t_spec.children()]
    assert mp.treespec_pprint(spec) == tp.treespec_pprint(t_spec)
    assert mp.tree_leaves(tree) == tp.tree_leaves(tree) == list(mp.tree_iter(tree))
    assert repr(mp.tree_structure(tree)) == repr(t_spec)


@pytest.mark.parametrize("tree", TREES, ids=IDS)
def test_round_trip_rebuilds_the_same_types(tree):
    leaves, spec = mp.tree_flatten(tree)
    back = mp.tree_unflatten(leaves, spec)
    assert back == tree and type(back) is type(tree)
    if isinstance(tree, deque):
        assert back.maxlen == tree.maxlen
    if isinstance(tree, defaultdict):
        assert back.default_factory is tree.default_factory
    if isinstance(tree, dict):
        assert list(back) == list(tree)  # insertion order kept, not sorted
    # either argument order, as torch allows
    assert mp.tree_unflatten(spec, leaves) == tree
    assert spec.unflatten(iter(leaves)) == tree


@pytest.mark.parametrize("tree", TREES, ids=IDS)
def test_key_paths_match_torch(tree):
    ours = mp.tree_leaves_with_path(tree)
    theirs = tp.tree_leaves_with_path(tree)
    assert [(mp.keystr(k), v) for k, v in ours] == [(tp.keystr(k), v) for k, v in theirs]
    assert [repr(k) for k, _ in ours] == [repr(k) for k, _ in theirs]
    for path, leaf in ours:
        assert mp.key_get(tree, path) is leaf
    pairs, spec = mp.tree_flatten_with_path(tree)
    assert pairs == ours and spec == mp.tree_structure(tree)
    mapped = mp.tree_map_with_path(lambda kp, x: (mp.keystr(kp), x), tree)
    t_mapped = tp.tree_map_with_path(lambda kp, x: (tp.keystr(kp), x), tree)
    assert mapped == t_mapped


def _serializable(tree):
    return not any(isinstance(n, Point) or isinstance(n, Triple) for n in _nodes(tree))


def _nodes(tree):
    yield tree
    if not mp.tree_is_leaf(tree):
        children, _ = mp.SUPPORTED_NODES[mp._get_node_type(tree)].flatten_fn(tree)
        for c in children:
            yield from _nodes(c)


@pytest.mark.parametrize("tree", [t for t in TREES if _serializable(t)])
def test_dumps_loads_match_torch(tree):
    spec, t_spec = mp.tree_structure(tree), tp.tree_structure(tree)
    text = mp.treespec_dumps(spec)
    assert text == tp.treespec_dumps(t_spec)
    back = mp.treespec_loads(text)
    assert repr(back) == repr(tp.treespec_loads(text))
    if tree != {3: "x", 1: "y", (2, 2): "z"}:  # JSON turns a tuple key into a list
        assert back == spec
        assert back.unflatten(mp.tree_leaves(tree)) == tree


def _both(fn_ours, fn_theirs):
    """Runs both; returns their (type name, message) or results."""
    out = []
    for fn in (fn_ours, fn_theirs):
        try:
            out.append(("ok", fn()))
        except Exception as e:  # noqa: BLE001 - the comparison is the point
            out.append((type(e).__name__, str(e)))
    return out


def _sorted_sets(message):
    """message with the elements of each printed set of strings sorted."""
    return re.sub(r"\{('[^{}]*')\}",
                  lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message)


MISMATCHES = [
    ([1, {"a": 2}], [1, 2]),
    ([1, {"a": 2}], [1, {"b": 2}]),
    ([1, {"a": 2}], [1, {"a": 2, "c": 3}]),
    ([1, {"a": 2}], (1, {"a": 2})),
    ([1, {"a": 2}], [1, {"a": 2}, 3]),
    ({"a": 1, "b": 2}, {"c": 1, "d": 2}),
    (Point(1, 2), Triple(1, 2, 3)),
    (Point(1, 2), (1, 2)),
    ((1, 2), Point(1, 2)),
    (deque([1, 2]), [1, 2]),
    (defaultdict(list, {"a": 1}), {"a": 1, "b": 2}),
]


@pytest.mark.parametrize("tree,other", MISMATCHES)
def test_mismatched_structures_fail_as_torch(tree, other):
    ours, theirs = _both(lambda: mp.tree_map(lambda a, b: a, tree, other),
                         lambda: tp.tree_map(lambda a, b: a, tree, other))
    assert ours[0] == theirs[0] == "ValueError"
    assert ours == theirs


ACCEPTED = [
    ([1, {"a": 2}], [[5, 6], {"a": (7,)}]),  # a leaf of the first matches a subtree
    ({"a": 1, "b": 2}, {"b": 20, "a": 10}),  # key order need not match
    ({"a": 1, "b": 2}, OrderedDict(b=20, a=10)),  # dict kinds are interchangeable
    (OrderedDict(a=1), defaultdict(int, {"a": 5})),
    (deque([1, 2], maxlen=2), deque([3, 4])),  # maxlen may differ
    (Point(1, 2), Point(3, 4)),
]


@pytest.mark.parametrize("tree,other", ACCEPTED)
def test_prefix_trees_map_as_torch(tree, other):
    ours = mp.tree_map(lambda a, b: (a, b), tree, other)
    theirs = tp.tree_map(lambda a, b: (a, b), tree, other)
    assert ours == theirs and type(ours) is type(theirs)
    assert mp.tree_structure(tree).flatten_up_to(other) == \
        tp.tree_structure(tree).flatten_up_to(other)
    seen = []
    assert mp.tree_map_(lambda a, b: seen.append((a, b)), tree, other) is tree
    assert seen == mp.tree_leaves(ours, is_leaf=lambda x: isinstance(x, tuple) and len(x) == 2
                                  and not isinstance(x, Point))


def test_unflatten_errors_match_torch():
    spec, t_spec = mp.tree_structure([1, {"a": 2}]), tp.tree_structure([1, {"a": 2}])
    for n in (0, 1, 3):
        assert _both(lambda: spec.unflatten([0] * n), lambda: t_spec.unflatten([0] * n)) == \
            [("ValueError", str(e)) for e in _raised(lambda: t_spec.unflatten([0] * n))] * 2
    ours, theirs = _both(lambda: mp.tree_unflatten([1], 5), lambda: tp.tree_unflatten([1], 5))
    assert ours == theirs and ours[0] == "TypeError"


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return [e]
    raise AssertionError("expected an error")


SPEC_PAIRS = [
    ([1, 2], [3, 4]), ([1, 2], (1, 2)), ({"a": 1, "b": 2}, {"b": 1, "a": 2}),
    ({"a": 1}, OrderedDict(a=1)), (Point(1, 2), Point(5, 6)), (Point(1, 2), Triple(1, 2, 3)),
    (deque([1], maxlen=1), deque([1])), (1, None), ([1, [2]], [1, [2, 3]]),
    (defaultdict(list, {"a": 1}), defaultdict(int, {"a": 1})), ((), []),
]


@pytest.mark.parametrize("a,b", SPEC_PAIRS)
def test_spec_equality_and_hash_match_torch(a, b):
    sa, sb = mp.tree_structure(a), mp.tree_structure(b)
    ta, tb = tp.tree_structure(a), tp.tree_structure(b)
    assert (sa == sb) == (ta == tb)
    assert (sa != sb) == (ta != tb)
    assert sa == mp.tree_structure(a) and hash(sa) == hash(mp.tree_structure(a))
    if sa == sb:
        assert hash(sa) == hash(sb)
    assert (sa == 5) is False and sa != "spec"


@pytest.mark.parametrize("tree", [[1, (2, 3)], {"a": [1, 2], "b": (3,)}, (1, [2, [3, [4]]])])
def test_is_leaf_everywhere(tree):
    def pred(x):
        return isinstance(x, (tuple, list)) and len(x) == 2

    leaves, spec = mp.tree_flatten(tree, is_leaf=pred)
    t_leaves, t_spec = tp.tree_flatten(tree, is_leaf=pred)
    assert leaves == t_leaves and repr(spec) == repr(t_spec)
    assert mp.tree_leaves(tree, is_leaf=pred) == tp.tree_leaves(tree, is_leaf=pred)
    assert list(mp.tree_iter(tree, is_leaf=pred)) == leaves
    assert repr(mp.tree_structure(tree, is_leaf=pred)) == repr(t_spec)
    wrapped = mp.tree_map(lambda x: [x], tree, is_leaf=pred)
    assert wrapped == tp.tree_map(lambda x: [x], tree, is_leaf=pred)
    paths = [(mp.keystr(k), v) for k, v in mp.tree_leaves_with_path(tree, is_leaf=pred)]
    assert paths == [(tp.keystr(k), v) for k, v in tp.tree_leaves_with_path(tree, is_leaf=pred)]
    assert mp.tree_is_leaf(tree, is_leaf=pred) == tp.tree_is_leaf(tree, is_leaf=pred)
    assert mp.tree_all(lambda x: True, tree, is_leaf=pred)
    assert mp.tree_any(pred, tree, is_leaf=pred) == tp.tree_any(pred, tree, is_leaf=pred)
    assert mp.tree_map_only(list, len, tree, is_leaf=pred) == \
        tp.tree_map_only(list, len, tree, is_leaf=pred)


def test_map_only_and_predicates_match_torch():
    tree = {"a": [1, 2.5, "s"], "b": (3, None, 4.0), "c": True}
    def fn(x):
        return ("hit", x)

    for sel in (int, float, (int, float), str, int | str, lambda x: x is None):
        assert mp.tree_map_only(sel, fn, tree) == tp.tree_map_only(sel, fn, tree)
        seen, t_seen = [], []
        assert mp.tree_map_only_(sel, seen.append, tree) is tree
        tp.tree_map_only_(sel, t_seen.append, tree)
        assert seen == t_seen
    for pred in (lambda x: x is not None, lambda x: isinstance(x, int), bool):
        assert mp.tree_all(pred, tree) == tp.tree_all(pred, tree)
        assert mp.tree_any(pred, tree) == tp.tree_any(pred, tree)
        for types in (int, float, (int, str)):
            assert mp.tree_all_only(types, pred, tree) == tp.tree_all_only(types, pred, tree)
            assert mp.tree_any_only(types, pred, tree) == tp.tree_any_only(types, pred, tree)
    assert _both(lambda: mp.tree_map_only(5, str, tree), lambda: tp.tree_map_only(5, str, tree)) \
        == [("TypeError", "Argument must be a type, a tuple of types, or a callable.")] * 2


def test_tree_map_several_trees_and_values():
    a = {"x": [1, 2], "y": (3, Point(4, 5))}
    b = {"y": (30, Point(40, 50)), "x": [10, 20]}
    assert mp.tree_map(lambda u, v: u + v, a, b) == tp.tree_map(lambda u, v: u + v, a, b) == \
        {"x": [11, 22], "y": (33, Point(44, 55))}
    assert mp.tree_map(lambda u, v, w: u * v * w, [1, 2], [3, 4], [5, 6]) == [15, 48]


def test_tensors_are_leaves_and_map():
    t = minitorch.arange(3.0)
    tree = {"w": t, "b": [t * 2, None], "n": 4}
    leaves = mp.tree_leaves(tree)
    assert len(leaves) == 4 and leaves[0] is t and leaves[3] == 4
    out = mp.tree_map_only(minitorch.Tensor, lambda x: x + 1, tree)
    assert out["w"].tolist() == [1.0, 2.0, 3.0] and out["b"][0].tolist() == [1.0, 3.0, 5.0]
    assert out["b"][1] is None and out["n"] == 4
    assert mp.tree_all_only(minitorch.Tensor, lambda x: x.dim() == 1, tree)


def test_size_and_return_types_are_nodes_as_in_torch():
    size, t_size = minitorch.Size([2, 3]), torch.Size([2, 3])
    leaves, spec = mp.tree_flatten(size)
    t_leaves, t_spec = tp.tree_flatten(t_size)
    assert leaves == t_leaves == [2, 3] and repr(spec) == repr(t_spec)
    back = mp.tree_map(lambda x: x * 2, size)
    assert back == tp.tree_map(lambda x: x * 2, t_size) == (4, 6) and type(back) is tuple
    x = [[1.0, 5.0], [3.0, 2.0]]
    for name, args in (("max", (1,)), ("min", (0,)), ("sort", ()), ("topk", (1,)),
                       ("cummax", (0,)), ("kthvalue", (1,)), ("histogram", (4,))):
        flat_arg = x if name != "histogram" else x[0] + x[1]
        r = getattr(minitorch, name)(minitorch.tensor(flat_arg), *args)
        tr = getattr(torch, name)(torch.tensor(flat_arg), *args)
        leaves, spec = mp.tree_flatten(r)
        t_leaves, t_spec = tp.tree_flatten(tr)
        assert repr(spec) == repr(t_spec), name
        assert [v.tolist() for v in leaves] == [v.tolist() for v in t_leaves], name
        assert [mp.keystr(k) for k, _ in mp.tree_leaves_with_path(r)] == \
            [tp.keystr(k) for k, _ in tp.tree_leaves_with_path(tr)]
        back = mp.tree_unflatten(leaves, spec)
        assert type(back) is type(r) and [v.tolist() for v in back] == [v.tolist() for v in r]
    t_names = {c.__name__ for c in tp.SUPPORTED_NODES if c.__module__ == "torch.return_types"}
    for name in dir(minitorch.return_types):
        cls = getattr(minitorch.return_types, name)
        if isinstance(cls, type):
            assert cls in mp.SUPPORTED_NODES and name in t_names


def test_namedtuple_and_structseq_predicates_match_torch():
    import os
    r = minitorch.max(minitorch.tensor([[1.0]]), 0)
    for obj in (Point(1, 2), Point, (1, 2), tuple, os.stat_result, os.stat("."), r, type(r),
                [1], 5):
        for name in ("is_namedtuple", "is_structseq"):
            assert getattr(mp, name)(obj) == getattr(tp, name)(obj), (name, obj)
        if isinstance(obj, type):
            assert mp.is_namedtuple_class(obj) == tp.is_namedtuple_class(obj)
            assert mp.is_structseq_class(obj) == tp.is_structseq_class(obj)
        else:
            assert mp.is_namedtuple_instance(obj) == tp.is_namedtuple_instance(obj)
            assert mp.is_structseq_instance(obj) == tp.is_structseq_instance(obj)


class Pair:
    def __init__(self, first, second):
        self.first, self.second = first, second

    def __eq__(self, other):
        return isinstance(other, Pair) and (self.first, self.second) == (other.first, other.second)


def _pair_flatten(p):
    return [p.first, p.second], "pair"


def _pair_unflatten(values, context):
    return Pair(*values)


def _pair_keys(p):
    return [(mp.GetAttrKey("first"), p.first), (mp.GetAttrKey("second"), p.second)], "pair"


def _t_pair_keys(p):
    return [(tp.GetAttrKey("first"), p.first), (tp.GetAttrKey("second"), p.second)], "pair"


@pytest.fixture
def registered_pair():
    mp.register_pytree_node(Pair, _pair_flatten, _pair_unflatten, serialized_type_name="t.Pair",
                            flatten_with_keys_fn=_pair_keys)
    tp.register_pytree_node(Pair, _pair_flatten, _pair_unflatten, serialized_type_name="t.Pair",
                            flatten_with_keys_fn=_t_pair_keys)
    yield
    mp._deregister_pytree_node(Pair)
    tp._deregister_pytree_node(Pair)


def test_registered_type_behaves_as_in_torch(registered_pair):
    tree = {"p": Pair(1, [2, Pair(3, 4)]), "q": 5}
    leaves, spec = mp.tree_flatten(tree)
    t_leaves, t_spec = tp.tree_flatten(tree)
    assert leaves == t_leaves == [1, 2, 3, 4, 5]
    assert repr(spec) == repr(t_spec)
    assert mp.tree_unflatten(leaves, spec) == tree
    assert mp.tree_map(lambda x: x * 10, tree) == tp.tree_map(lambda x: x * 10, tree)
    assert [mp.keystr(k) for k, _ in mp.tree_leaves_with_path(tree)] == \
        [tp.keystr(k) for k, _ in tp.tree_leaves_with_path(tree)] == \
        ["['p'].first", "['p'].second[0]", "['p'].second[1].first", "['p'].second[1].second",
         "['q']"]
    assert mp.treespec_dumps(spec) == tp.treespec_dumps(t_spec)
    assert mp.treespec_loads(mp.treespec_dumps(spec)) == spec
    # a custom node must match exactly: type, arity, context
    for other in ({"p": (1, 2), "q": 5}, {"p": [1, 2], "q": 5}):
        assert _both(lambda: mp.tree_map(lambda a, b: a, tree, other),
                     lambda: tp.tree_map(lambda a, b: a, tree, other))[0][0] == "ValueError"
    ours, theirs = _both(lambda: mp.tree_map(lambda a, b: a, tree, {"p": (1, 2), "q": 5}),
                         lambda: tp.tree_map(lambda a, b: a, tree, {"p": (1, 2), "q": 5}))
    assert ours == theirs


def test_double_registration_and_bad_arguments_fail_as_torch(registered_pair):
    for cls in (Pair, list, dict, OrderedDict):
        ours, theirs = _both(
            lambda: mp.register_pytree_node(cls, _pair_flatten, _pair_unflatten),
            lambda: tp.register_pytree_node(cls, _pair_flatten, _pair_unflatten))
        assert ours == theirs == ("ValueError", f"{cls} is already registered as pytree node.")

    class Lone:
        pass
    ours, theirs = _both(
        lambda: mp.register_pytree_node(Lone, _pair_flatten, _pair_unflatten,
                                        to_dumpable_context=str),
        lambda: tp.register_pytree_node(Lone, _pair_flatten, _pair_unflatten,
                                        to_dumpable_context=str))
    tp.SUPPORTED_NODES.pop(Lone)  # torch keeps half of a refused registration
    assert ours == theirs and ours[0] == "ValueError"
    assert Lone not in mp.SUPPORTED_NODES


def test_type_without_keys_or_serialized_name_fails_as_torch():
    class Box:
        def __init__(self, v):
            self.v = v

    def flat(b):
        return [b.v], None

    def unflat(vals, ctx):
        return Box(vals[0])

    mp.register_pytree_node(Box, flat, unflat)
    tp.register_pytree_node(Box, flat, unflat)
    try:
        tree = [Box(1)]
        ours, theirs = _both(lambda: mp.tree_leaves_with_path(tree),
                             lambda: tp.tree_leaves_with_path(tree))
        assert ours == theirs and ours[0] == "ValueError"
        assert mp.tree_leaves(tree) == [1]
        ours, theirs = _both(lambda: mp.treespec_dumps(mp.tree_structure(tree)),
                             lambda: tp.treespec_dumps(tp.tree_structure(tree)))
        assert ours == theirs and ours[0] == "NotImplementedError"
    finally:
        mp._deregister_pytree_node(Box)
        tp._deregister_pytree_node(Box)


def test_serialization_errors_match_torch():
    spec, t_spec = mp.tree_structure(Point(1, 2)), tp.tree_structure(Point(1, 2))
    assert _both(lambda: mp.treespec_dumps(spec), lambda: tp.treespec_dumps(t_spec)) == \
        [("NotImplementedError", f"Can't serialize TreeSpec of namedtuple class {Point} because "
          "we didn't register a serializated_type_name. Please register using "
          "`_register_namedtuple`.")] * 2
    s, ts = mp.tree_structure([1]), tp.tree_structure([1])
    ours, theirs = _both(lambda: mp.treespec_dumps(s, 7), lambda: tp.treespec_dumps(ts, 7))
    assert ours == theirs and ours[0] == "ValueError"
    ours, theirs = _both(lambda: mp.treespec_loads("[9, null]"),
                         lambda: tp.treespec_loads("[9, null]"))
    assert ours == theirs and ours[0] == "ValueError"
    key = object()
    ours, theirs = _both(lambda: mp.treespec_dumps(mp.tree_structure({key: 1})),
                         lambda: tp.treespec_dumps(tp.tree_structure({key: 1})))
    assert ours == theirs and ours[0] == "TypeError"


def test_registered_namedtuple_serializes():
    Named = namedtuple("Named", "u v")
    mp._register_namedtuple(Named, serialized_type_name="tests.Named")
    try:
        spec = mp.tree_structure([Named(1, (2,))])
        # still the generic namedtuple node, with its class as context
        assert repr(spec).startswith("TreeSpec(list, None, [TreeSpec(namedtuple, ")
        assert mp.treespec_loads(mp.treespec_dumps(spec)) == spec
    finally:
        mp._deregister_pytree_node(Named)


def test_treespec_fields_and_deprecations_match_torch():
    import dataclasses
    assert [f.name for f in dataclasses.fields(mp.TreeSpec)] == \
        [f.name for f in dataclasses.fields(tp.TreeSpec)]
    spec = mp.tree_structure({"a": 1, "b": [2]})
    with pytest.warns(FutureWarning, match="children_specs` is deprecated"):
        kids = spec.children_specs
    assert kids == spec.children() and kids is not spec.children()
    assert spec.child(1) == mp.tree_structure([2])
    with pytest.warns(FutureWarning, match="isinstance\\(treespec, LeafSpec\\)"):
        leaf = mp.LeafSpec()
    assert leaf == mp.tree_structure(3) and repr(leaf) == "*" and leaf.is_leaf()
    assert isinstance(mp.tree_structure(3), mp.LeafSpec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        built = mp.TreeSpec(dict, ["a", "b"], [mp.treespec_leaf(), mp.TreeSpec(list, None, [leaf])])
        assert mp.tree_structure(3) is mp.treespec_leaf()
    assert built == spec and hash(built) == hash(spec)
    assert mp.treespec_tuple([leaf, leaf]) == mp.tree_structure((1, 2))
    assert mp.treespec_dict(a=leaf) == mp.tree_structure({"a": 0})
    with pytest.raises(AttributeError):
        spec.type = list
    assert mp.PyTreeSpec is mp.TreeSpec
    for name in tp.__all__:
        assert hasattr(mp, name), name


def test_vmap_takes_dict_in_dims_in_any_key_order():
    x = {"a": minitorch.arange(6.0).reshape(2, 3), "b": minitorch.ones(3)}
    tx = {"a": torch.arange(6.0).reshape(2, 3), "b": torch.ones(3)}
    dims = ({"b": None, "a": 0},)

    def f(d):
        return d["a"] * d["b"]

    out = minitorch.vmap(f, in_dims=dims)(x)
    assert out.tolist() == torch.vmap(f, in_dims=dims)(tx).tolist()
    bad = ({"c": 0, "a": 0},)
    with pytest.raises(ValueError) as ours:
        minitorch.vmap(f, in_dims=bad)(x)
    with pytest.raises(ValueError) as theirs:
        torch.vmap(f, in_dims=bad)(tx)
    assert str(ours.value).split(": ", 1)[1] == str(theirs.value).split(": ", 1)[1]


def test_vmap_single_tensor_output_takes_one_element_out_dims():
    x, tx = minitorch.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    assert minitorch.vmap(lambda v: v * 2, out_dims=(1,))(x).tolist() == \
        torch.vmap(lambda v: v * 2, out_dims=(1,))(tx).tolist()


@pytest.mark.parametrize("tree", TREES[:12] + TREES[13:16], ids=IDS[:12] + IDS[13:16])
def test_specs_copy_and_pickle(tree):
    import copy
    import pickle
    spec = mp.tree_structure(tree)
    for other in (copy.deepcopy(spec), pickle.loads(pickle.dumps(spec))):
        assert other == spec and repr(other) == repr(spec)
        assert other.unflatten(mp.tree_leaves(tree)) == tree


def test_register_dataclass_as_torch():
    import dataclasses

    @dataclasses.dataclass
    class Pt:
        x: object
        y: object
        z: object = None

    mp.register_dataclass(Pt)
    tp.register_dataclass(Pt)
    try:
        tree = [Pt(1, [2, 3]), Pt(4, None, 5)]
        leaves, spec = mp.tree_flatten(tree)
        t_leaves, t_spec = tp.tree_flatten(tree)
        assert leaves == t_leaves == [1, 2, 3, 4, 5] and repr(spec) == repr(t_spec)
        assert mp.tree_unflatten(leaves, spec) == tree
        assert [mp.keystr(k) for k, _ in mp.tree_leaves_with_path(tree)] == \
            [tp.keystr(k) for k, _ in tp.tree_leaves_with_path(tree)]
        assert mp.tree_map(lambda v: v * 2, tree) == tp.tree_map(lambda v: v * 2, tree)
    finally:
        mp._deregister_pytree_node(Pt)
        tp._deregister_pytree_node(Pt)

    class Plain:
        pass

    ours, theirs = _both(lambda: mp.register_dataclass(Plain),
                         lambda: tp.register_dataclass(Plain))
    assert ours == theirs and ours[0] == "ValueError"
    for names in (["x"], ["x", "y", "w"]):
        ours, theirs = _both(lambda: mp.register_dataclass(Pt, field_names=names),
                             lambda: tp.register_dataclass(Pt, field_names=names))
        # the messages print sets of field names, whose order follows the string hash
        assert _sorted_sets(ours[1]) == _sorted_sets(theirs[1])
        assert ours[0] == theirs[0] == "ValueError" and "{'" in ours[1]
