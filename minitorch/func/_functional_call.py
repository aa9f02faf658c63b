"""functional_call: runs a module with some parameters and buffers replaced
by the given tensors, restoring the module's own afterwards."""
from typing import Any, Dict, Optional, Sequence, Tuple, Union

__all__ = ["functional_call"]


def _owner(module, name):
    *path, leaf = name.split(".")
    for part in path:
        module = getattr(module, part)
    return module, leaf


def _swap(module, name, value):
    """Puts value under name; returns what was there (store, old value)."""
    mod, leaf = _owner(module, name)
    for store in ("_parameters", "_buffers"):
        table = mod.__dict__[store]
        if leaf in table:
            old = table[leaf]
            table[leaf] = value
            return table, leaf, old
    old = mod.__dict__.get(leaf)
    object.__setattr__(mod, leaf, value)
    return mod.__dict__, leaf, old


def functional_call(module, parameter_and_buffer_dicts: Union[Dict[str, Any],
                                                                Sequence[Dict[str, Any]]],
                    args: Optional[Union[Any, Tuple]] = None,
                    kwargs: Optional[Dict[str, Any]] = None, *, tie_weights: bool = True,
                    strict: bool = False):
    """Performs a functional call on the module by replacing the module
    parameters and buffers with the provided ones."""
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = dict(parameter_and_buffer_dicts)
    else:
        merged = {}
        for d in parameter_and_buffer_dicts:
            repeated = [k for k in d if k in merged]
            if repeated:
                raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                                 "functional call is ambiguous")
            merged.update(d)
    known = dict(module.named_parameters(remove_duplicate=False))
    known.update(dict(module.named_buffers(remove_duplicate=False)))
    if tie_weights:
        by_id = {}
        for n, t in known.items():
            by_id.setdefault(id(t), []).append(n)
        for names in by_id.values():
            given = [n for n in names if n in merged]
            if given:
                for n in names:
                    merged.setdefault(n, merged[given[0]])
    if strict:
        missing = sorted(set(known) - set(merged))
        unexpected = sorted(set(merged) - set(known))
        if missing or unexpected:
            parts = []
            if unexpected:
                parts.append("Unexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected)
                             + ".")
            if missing:
                parts.append("Missing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError("Error(s) in reparametrizing for "
                               f"{type(module).__name__}:\n\t" + "\n\t".join(parts))
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    saved = []
    try:
        for name, value in merged.items():
            saved.append(_swap(module, name, value))
        return module(*args, **(kwargs or {}))
    finally:
        for table, leaf, old in reversed(saved):
            table[leaf] = old
