"""vmap: the public transform. Checks in_dims/out_dims against the inputs and
outputs (pytrees, torch's messages), wraps the inputs as BatchedTensors of a
new level, runs the function under that level's mode (_dispatch.py) and moves
each output's batch dim to its out_dim; chunk_size runs the batch in slices.
"""
import functools

from .._tensor import Tensor
from . import _batched
from ._batched import Level, make, unwrap
from ._dispatch import VmapMode
from ..utils._pytree import (_broadcast_to_and_flatten, tree_flatten, tree_leaves,
                             tree_structure, tree_unflatten)

__all__ = ["vmap"]


def _name(func):
    return getattr(func, "__name__", repr(func))


def _broadcast(dims, tree, what, tree_name, prefix):
    """One dim per leaf of tree: dims is a prefix of tree's structure."""
    spec = tree_structure(tree)
    out = None
    if isinstance(tree, Tensor):
        # torch's edge case: a single tensor output also takes out_dims=(d,)
        if dims is None or isinstance(dims, int):
            out = [dims]
        elif isinstance(dims, tuple) and len(dims) == 1:
            out = list(dims)
    else:
        out = _broadcast_to_and_flatten(dims, spec)
    if out is None:
        raise ValueError(
            f"{prefix}: {what} is not compatible with the structure of `{tree_name}`. {what} "
            f"has structure {tree_structure(dims)} but {tree_name} has structure {spec}.")
    return out


def _check_in_dims(func, in_dims, args):
    prefix = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"{prefix}: expected `in_dims` to be int or a (potentially nested) "
                         "tuple matching the structure of inputs, got: "
                         f"{type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to "
                         "add inputs, or you are trying to vmap over a function with no "
                         "inputs. The latter is unsupported.")
    flat, spec = tree_flatten(args)
    dims = _broadcast(in_dims, args, "in_dims", "inputs", prefix)
    sizes = []
    for x, d in zip(flat, dims):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(f"{prefix}: in_dims must be int or None, got {type(d)}")
        if not isinstance(x, Tensor):
            raise ValueError(f"{prefix}: Got in_dim={d} for an input but the input is of type "
                             f"{type(x)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        nd = x.dim()
        if not -nd <= d < nd:
            raise ValueError(f"{prefix}: Got in_dim={d} for some input, but that input is a "
                             f"Tensor of dimensionality {nd} so expected in_dim to satisfy "
                             f"-{nd} <= in_dim < {nd}.")
        sizes.append(x.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) != 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    dims = [None if d is None else d % x.dim() for x, d in zip(flat, dims)]
    return flat, spec, dims, sizes[0]


def _unwrap_output(x, out_dim, level, func):
    if out_dim is None:
        if isinstance(x, Tensor) and unwrap(x, level)[1] is not None:
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` can not return a "
                             "BatchedTensor when out_dim is None")
        return x
    if not isinstance(x, Tensor):
        raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return "
                         f"Tensors, got type {type(x)}. Did you mean to set out_dims= to None "
                         "for output?")
    value, bdim = unwrap(x, level)
    if bdim is None:
        u = x.unsqueeze(out_dim)
        sizes = list(u.shape)
        sizes[out_dim % u.dim()] = level.size
        return u.expand(sizes)
    return value.movedim(bdim, out_dim)


def _run(func, flat, spec, dims, size, randomness, out_dims, kwargs):
    level = Level(size, randomness)
    mode = VmapMode(level)
    wrapped = [x if d is None else make(x, d, level) for x, d in zip(flat, dims)]
    _batched.push_level(level)
    try:
        with mode:
            out = func(*tree_unflatten(wrapped, spec), **kwargs)
    finally:
        _batched.pop_level(level)
        level.mode = None  # the level and its mode refer to each other
    out_flat, out_spec = tree_flatten(out)
    prefix = f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>)"
    if not (out_dims is None or isinstance(out_dims, (int, tuple, list, dict))):
        raise ValueError(f"{prefix}: expected `out_dims` to be int or a (potentially nested) "
                         f"tuple matching the structure of outputs, got: {type(out_dims)}.")
    odims = _broadcast(out_dims, out, "out_dims", "outputs", prefix)
    return tree_unflatten([_unwrap_output(x, d, level, func) for x, d in zip(out_flat, odims)],
                          out_spec)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """vmap is the vectorizing map; ``vmap(func)`` returns a new function that
    maps ``func`` over some dimension of the inputs. Semantically, vmap pushes
    the map into minitorch operations called by ``func``, effectively
    vectorizing those operations."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        flat, spec, dims, size = _check_in_dims(func, in_dims, args)
        if chunk_size is None or chunk_size >= size:
            return _run(func, flat, spec, dims, size, randomness, out_dims, kwargs)
        return _chunked(func, flat, spec, dims, size, randomness, out_dims, kwargs,
                        chunk_size)

    return wrapped


def _chunked(func, flat, spec, dims, size, randomness, out_dims, kwargs, chunk_size):
    """The batch in slices of chunk_size, each its own vmap; each output is
    the slices' outputs joined along its out_dim."""
    from .. import _C
    outs = []
    for start in range(0, size, chunk_size):
        n = min(chunk_size, size - start)
        part = [x if d is None else x.narrow(d, start, n) for x, d in zip(flat, dims)]
        outs.append(_run(func, part, spec, dims, n, randomness, out_dims, kwargs))
    out_spec = tree_structure(outs[0])
    flats = [tree_leaves(o) for o in outs]
    odims = _broadcast(out_dims, outs[0], "out_dims", "outputs", "vmap")
    joined = []
    for i, d in enumerate(odims):
        pieces = [f[i] for f in flats]
        joined.append(pieces[0] if d is None else _C._functions["cat"](pieces, d))
    return tree_unflatten(joined, out_spec)
