"""jacrev, jacfwd and hessian: whole Jacobians from the vjp and jvp transforms.

jacrev takes one vjp per output element (a one-hot cotangent each); jacfwd
pushes every one-hot tangent through one batched jvp under vmap. Both lay a
Jacobian out as torch does: output shape followed by input shape, nested as
the outputs (outer) and argnums (inner).
"""
import functools
from typing import Callable, Tuple, Union

from .. import _C
from ..utils._pytree import tree_flatten, tree_unflatten
from ._transforms import _check_argnums, jvp, vjp
from ._vmap import vmap

__all__ = ["jacrev", "jacfwd", "hessian"]

_F = _C._functions


def _bind(func, args, nums):
    """func as a function of the arguments at nums only."""

    def f(*chosen):
        new = list(args)
        for a, v in zip(nums, chosen):
            new[a] = v
        return func(*new)

    return f


def _layout(rows, out_spec, in_spec, argnums):
    """rows[k][i]: Jacobian of output leaf k wrt input leaf i, as the
    (out shape + in shape) tensors nested as torch nests them."""
    per_out = []
    for row in rows:
        per_arg = tree_unflatten(row, in_spec)
        per_out.append(per_arg[0] if isinstance(argnums, int) else tuple(per_arg))
    return tree_unflatten(per_out, out_spec)


def jacrev(func: Callable, argnums: Union[int, Tuple[int, ...]] = 0, *, has_aux: bool = False,
           chunk_size=None) -> Callable:
    """Computes the Jacobian of ``func`` with respect to the arg(s) at index
    ``argnums`` using reverse-mode autodiff. (The vjps run one at a time, so
    ``chunk_size``, which bounds how many torch batches, is only checked.)"""
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _check_argnums(argnums, len(args))
        primals = tuple(args[a] for a in nums)
        f = _bind(lambda *a: func(*a, **kwargs), args, nums)
        res = vjp(f, *primals, has_aux=has_aux)
        out, vjp_fn = res[0], res[1]
        out_flat, out_spec = tree_flatten(out)
        in_flat, in_spec = tree_flatten(primals)
        zeros = [_F["zeros"](tuple(o.shape), dtype=o.dtype) for o in out_flat]
        rows = []
        for k, o in enumerate(out_flat):
            per_elem = []
            for j in range(o.numel()):
                onehot = _F["zeros"](o.numel(), dtype=o.dtype)
                onehot[j] = 1
                cts = list(zeros)
                cts[k] = onehot.reshape(tuple(o.shape))
                per_elem.append(tree_flatten(vjp_fn(tree_unflatten(cts, out_spec)))[0])
            rows.append([_stack_rows([g[i] for g in per_elem], o, x)
                         for i, x in enumerate(in_flat)])
        jac = _layout(rows, out_spec, in_spec, argnums)
        return (jac, res[2]) if has_aux else jac

    return wrapper


def _stack_rows(grads, out, inp):
    shape = tuple(out.shape) + tuple(inp.shape)
    if not grads:
        return _F["zeros"](shape, dtype=inp.dtype)
    return _F["stack"](grads).reshape(shape)


def jacfwd(func: Callable, argnums: Union[int, Tuple[int, ...]] = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable:
    """Computes the Jacobian of ``func`` with respect to the arg(s) at index
    ``argnums`` using forward-mode autodiff."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _check_argnums(argnums, len(args))
        primals = tuple(args[a] for a in nums)
        f = _bind(lambda *a: func(*a, **kwargs), args, nums)
        in_flat, in_spec = tree_flatten(primals)
        sizes = [x.numel() for x in in_flat]
        total = sum(sizes)
        basis = _F["eye"](total, dtype=in_flat[0].dtype)
        tangents = [t.reshape((total,) + tuple(x.shape)).to(x.dtype) for t, x in
                    zip(basis.split(sizes, 1), in_flat)]
        def push(*ts):
            res = jvp(f, primals, tree_unflatten(list(ts), in_spec), has_aux=has_aux)
            return (res[1], res[2]) if has_aux else res[1]

        jvps = vmap(push, randomness=randomness)(*tangents)
        if has_aux:
            # aux came out once per basis vector; every copy is the same
            jvps, aux = jvps
            leaves, aux_spec = tree_flatten(aux)
            aux = tree_unflatten([x[0] for x in leaves], aux_spec)
        out, out_spec = tree_flatten(jvps)
        rows = []
        for o in out:
            # o: (total,) + out shape; split the columns back per input leaf
            oshape = tuple(o.shape[1:])
            cols = o.movedim(0, -1).split(sizes, -1) if o.dim() > 1 else o.split(sizes, 0)
            rows.append([c.reshape(oshape + tuple(x.shape)) for c, x in zip(cols, in_flat)])
        jac = _layout(rows, out_spec, in_spec, argnums)
        return (jac, aux) if has_aux else jac

    return wrapper


def hessian(func: Callable, argnums: Union[int, Tuple[int, ...]] = 0) -> Callable:
    """Computes the Hessian of ``func`` with respect to the arg(s) at index
    ``argnum``. torch goes forward-over-reverse; here it is reverse-over-reverse
    (the same values): the engine's backward formulas drop the tangent of a
    saved output (exp, tanh, sigmoid, ...), so a jvp over a grad misses terms."""
    return jacrev(jacrev(func, argnums), argnums)
