"""Pytrees for the transforms: tuples, lists and dicts of leaves, flattened to
a list of leaves and a spec that rebuilds the same structure, and torch's
printed form of a spec for error messages."""

__all__ = ["flatten", "unflatten", "spec_str", "treespec_str"]


def flatten(tree):
    """Leaves in order and a spec to rebuild the same structure."""
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for t in tree:
            lv, sp = flatten(t)
            leaves += lv
            specs.append(sp)
        return leaves, (type(tree), specs)
    if isinstance(tree, dict):
        leaves, specs = [], []
        for k, v in tree.items():
            lv, sp = flatten(v)
            leaves += lv
            specs.append((k, sp))
        return leaves, (dict, specs)
    return [tree], None


def unflatten(leaves, spec):
    return _build(iter(leaves), spec)


def _build(it, spec):
    # a module-level recursion: a nested one would be a reference cycle that
    # keeps the leaves (often large gradients) alive until the next collection
    if spec is None:
        return next(it)
    kind, children = spec
    if kind is dict:
        return {k: _build(it, c) for k, c in children}
    return kind([_build(it, c) for c in children])


def spec_str(spec):
    if spec is None:
        return "*"
    kind, children = spec
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {spec_str(c)}" for k, c in children) + "}"
    inner = ", ".join(spec_str(c) for c in children)
    return f"({inner}{',' if len(children) == 1 else ''})" if kind is tuple else f"[{inner}]"


def treespec_str(spec):
    if spec is None:
        return "*"
    kind, children = spec
    if kind is dict:
        keys = [k for k, _ in children]
        children = [c for _, c in children]
        ctx = repr(keys)
    else:
        ctx = "None"
    inner = ",\n  ".join(treespec_str(c) for c in children)
    return f"TreeSpec({kind.__name__}, {ctx}, [{inner}])"
