"""The differentiating transforms: ``vjp``, ``jvp``, ``grad``, ``grad_and_value``.

Each transform runs ``func`` on fresh differentiable aliases of the primals and
differentiates through the C graph with ``create_graph`` on, so transforms
compose (``grad(grad(f))``). Primals may be tensors or tuples/lists/dicts of
them. ``jvp`` runs ``func`` on dual tensors (minitorch.autograd.forward_ad).

Inside vmap the graph is built on physical tensors (every active level's batch
dim in front, _batched.to_physical) and the result is differentiated with a
ones cotangent: the samples never mix, so that gives every sample's own
gradient at once (per-sample gradients with vmap(grad(f))).
"""
import functools
from typing import Any, Callable, Tuple, Union

from .. import _C
from ..autograd import grad as _autograd_grad
from ..utils._pytree import tree_flatten, tree_unflatten, treespec_pprint
from ._batched import from_physical, levels, to_physical


class _Lift:
    """Moves values between the logical view func sees and the physical
    tensors the C graph differentiates (identity outside vmap)."""

    def __init__(self):
        self.active = list(levels())

    def up(self, x):
        return to_physical(x, self.active) if self.active and _is_tensor(x) else x

    def down(self, x):
        return from_physical(x, self.active) if self.active and _is_tensor(x) else x

    def seed(self, out):
        """The cotangent that sums every sample's scalar output."""
        return _C._functions["ones_like"](out) if self.active else None

__all__ = ["vjp", "jvp", "grad", "grad_and_value"]


def _is_tensor(x):
    from .._tensor import Tensor
    return isinstance(x, Tensor)


def _differentiable(leaves):
    """Aliases of the primals that require grad, keeping any outer history so
    that an enclosing transform can differentiate through this one."""
    out = []
    for x in leaves:
        if not _is_tensor(x):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if x.requires_grad and _C.is_grad_enabled():
            out.append(x.view_as(x))
        else:
            out.append(_detached(x).requires_grad_(x.dtype.is_floating_point))
    return out


def _detached(x):
    """x without its graph, but with its forward tangent if it has one, so an
    enclosing jvp sees through this transform (jvp(grad(f)), jacfwd(jacrev(f)))."""
    tangent = _C._fw_grad(x)
    if tangent is None:
        return x.detach()
    from ..autograd import forward_ad as fwAD
    return fwAD.make_dual(x.detach(), tangent)


def _undo(x, outer):
    """Results keep history only when an enclosing transform needs it."""
    return x if outer or not _is_tensor(x) else _detached(x)


def vjp(func: Callable, *primals, has_aux: bool = False):
    """Standing for the vector-Jacobian product, returns a tuple containing the
    results of ``func`` applied to ``primals`` and a function that, when given
    ``cotangents``, computes the reverse-mode Jacobian of ``func`` with respect
    to ``primals`` times ``cotangents``."""
    lift = _Lift()
    flat, spec = tree_flatten(primals)
    flat = [lift.up(x) for x in flat]
    outer = any(_is_tensor(x) and x.requires_grad for x in flat) and _C.is_grad_enabled()
    diff = _differentiable(flat)
    with _C_grad_enabled(True):
        result = func(*tree_unflatten([lift.down(d) for d in diff], spec))
    aux = None
    if has_aux:
        if not (isinstance(result, tuple) and len(result) == 2):
            raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: "
                               "(output, aux) if has_aux is True")
        result, aux = result
    out_flat, out_spec = tree_flatten(result)
    for o in out_flat:
        if not _is_tensor(o):
            raise RuntimeError("vjp(f, *primals): expected f(*primals) to return only tensors, "
                               f"got unsupported type {type(o)}")
    out_flat = [lift.up(o) for o in out_flat]

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        ct_flat, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function. cotangents: {treespec_pprint(ct_spec)}, primal output: "
                f"{treespec_pprint(out_spec)}")
        pairs = [(o, lift.up(c)) for o, c in zip(out_flat, ct_flat) if o.requires_grad]
        if create_graph is None:
            create_graph = outer or any(c.requires_grad for _, c in pairs)
        if not pairs:
            grads = [_C._functions["zeros_like"](d) for d in diff]
        else:
            grads = _autograd_grad([o for o, _ in pairs], diff, [c for _, c in pairs],
                                   retain_graph=retain_graph, create_graph=create_graph,
                                   allow_unused=True, materialize_grads=True)
        return tree_unflatten([lift.down(_undo(g, create_graph)) for g in grads], spec)

    out = tree_unflatten([lift.down(_undo(o, outer)) for o in out_flat], out_spec)
    if has_aux:
        return out, vjp_fn, _unflatten_aux(aux, outer)
    return out, vjp_fn


def jvp(func: Callable, primals: Any, tangents: Any, *, strict: bool = False,
        has_aux: bool = False):
    """Standing for the Jacobian-vector product, returns a tuple containing the
    output of ``func(*primals)`` and the "Jacobian of ``func`` evaluated at
    ``primals``" times ``tangents``."""
    from ..autograd import forward_ad as fwAD
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it "
                           "should be valid to call f(*primals).")
    flat, spec = tree_flatten(primals)
    t_flat, t_spec = tree_flatten(tangents)
    if t_spec != spec:
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same python "
            "structure. For example, if primals is a tuple of 3 tensors, tangents also must be. "
            f"Got primals with structure {spec} and tangents with structure "
            f"{t_spec}")
    if not flat:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to contain at least one "
                           "Tensor.")
    for name, leaves in (("primals", flat), ("tangents", t_flat)):
        for x in leaves:
            if not _is_tensor(x):
                raise RuntimeError(f"jvp(f, primals, tangents): Expected {name} to only contain "
                                   f"Tensors, got {type(x)}")
    lift = _Lift()
    with fwAD.dual_level():
        duals = [lift.down(fwAD.make_dual(lift.up(p), lift.up(t))) for p, t in zip(flat, t_flat)]
        result = func(*tree_unflatten(duals, spec))
        aux = None
        if has_aux:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError("jvp(f, primals, tangents): output of function f should be a "
                                   "tuple: (output, aux) if has_aux is True")
            result, aux = result
        out_flat, out_spec = tree_flatten(result)
        primals_out, tangents_out = [], []
        for o in out_flat:
            if not _is_tensor(o):
                raise RuntimeError("jvp(f, primals, tangents): expected f(*primals) to return "
                                   f"only tensors, got unsupported type {type(o)}")
            p, t = fwAD.unpack_dual(lift.up(o))
            primals_out.append(lift.down(p))
            tangents_out.append(lift.down(_C._functions["zeros_like"](p) if t is None else t))
    out = (tree_unflatten(primals_out, out_spec), tree_unflatten(tangents_out, out_spec))
    return out + (aux,) if has_aux else out


def _unflatten_aux(aux, outer):
    leaves, spec = tree_flatten(aux)
    return tree_unflatten([_undo(x, outer) for x in leaves], spec)


class _C_grad_enabled:
    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = _C._set_grad_enabled(self.mode)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


def _check_argnums(argnums, nargs):
    if isinstance(argnums, int):
        nums = (argnums,)
    elif isinstance(argnums, tuple) and argnums and all(isinstance(a, int) for a in argnums):
        nums = argnums
        if len(set(nums)) != len(nums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for a in nums:
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")
    return tuple(a % nargs for a in nums)


def grad_and_value(func: Callable, argnums: Union[int, Tuple[int, ...]] = 0,
                   has_aux: bool = False) -> Callable:
    """Like :func:`grad`, but also returns the value of ``func``:
    ``(grad, value)``, or ``((grad, (value, aux)))`` with ``has_aux``."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _check_argnums(argnums, len(args))
        outer = _C.is_grad_enabled()
        lift = _Lift()
        flat_specs = [tree_flatten(args[a]) for a in nums]
        phys_flat = [[lift.up(x) for x in lv] for lv, _ in flat_specs]
        diff_flat = [_differentiable(lv) for lv in phys_flat]
        new_args = list(args)
        for a, d, (_, sp) in zip(nums, diff_flat, flat_specs):
            new_args[a] = tree_unflatten([lift.down(x) for x in d], sp)
        with _C_grad_enabled(True):
            result = func(*new_args, **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError("grad_and_value(f)(*args): output of function f should be a "
                                   "tuple: (output, aux) if has_aux is True")
            result, aux = result
        if not _is_tensor(result):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                               f"got {type(result)}")
        if result.dim() != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {result.dim()} dims. Maybe you wanted "
                               "to use the vjp or jacrev APIs instead?")
        inputs = [x for d in diff_flat for x in d]
        keep = outer and any(_is_tensor(x) and x.requires_grad for lv in phys_flat for x in lv)
        result = lift.up(result)
        if result.requires_grad:
            grads = _autograd_grad(result, inputs, lift.seed(result), create_graph=keep,
                                   allow_unused=True, materialize_grads=True)
        else:
            grads = [_C._functions["zeros_like"](x) for x in inputs]
        grads = [lift.down(_undo(g, keep)) for g in grads]
        per_arg, k = [], 0
        for d, (_, sp) in zip(diff_flat, flat_specs):
            per_arg.append(tree_unflatten(grads[k:k + len(d)], sp))
            k += len(d)
        g = per_arg[0] if isinstance(argnums, int) else tuple(per_arg)
        value = lift.down(_undo(result, keep))
        if has_aux:
            return g, (value, _unflatten_aux(aux, keep))
        return g, value

    return wrapper


def grad(func: Callable, argnums: Union[int, Tuple[int, ...]] = 0,
         has_aux: bool = False) -> Callable:
    """``grad`` operator helps computing gradients of ``func`` with respect to the
    input(s) specified by ``argnums``. ``func`` must return a scalar tensor (and
    an auxiliary object when ``has_aux=True``, returned alongside the gradient)."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper
