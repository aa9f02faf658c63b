"""The vmap mode: how one level runs every operation called inside it.

Each vmap level pushes a VmapMode. The mode sees every minitorch function
(it is popped while its handler runs, so what the handler calls reaches the
outer levels' modes and finally the real ops). A call with a BatchedTensor of
this level goes, in order, to:

1. a batching rule (_rules.py) that runs the op once on the physical values;
2. for a Python-level public function without a rule, its own body, run
   again under this mode so the ops it is made of are batched one by one;
3. the per-sample fallback: the op once per sample, results stacked.

A call without one runs as is, except random operations, which follow the
level's randomness.
"""
from .. import _C
from .._tensor import Tensor
from ..overrides import TorchFunctionMode
from ..utils._pytree import tree_any, tree_flatten, tree_map_only
from . import _batched
from ._batched import BatchedTensor, make, unwrap

__all__ = ["VmapMode", "is_batched", "is_inplace", "front", "wrap_outputs", "fallback"]

_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                 "use the 'same' or 'different' randomness flags on vmap or perform the "
                 "randomness operation out of vmap")
_INPLACE_DUNDERS = frozenset({"__iadd__", "__isub__", "__imul__", "__itruediv__",
                              "__ifloordiv__", "__imod__", "__ipow__", "__iand__", "__ior__",
                              "__ixor__", "__ilshift__", "__irshift__", "__imatmul__",
                              "__setitem__"})
_METADATA = frozenset({"dim", "ndimension", "size", "numel", "nelement", "__len__",
                       "is_floating_point", "is_complex", "element_size", "get_device",
                       "is_signed"})

# what reads a tensor's memory: a batched tensor has none of its own
_STORAGE = frozenset({"numpy", "tolist", "data_ptr", "__dlpack__", "untyped_storage"})


def is_inplace(name):
    return (name.endswith("_") and not name.endswith("__")) or name in _INPLACE_DUNDERS


def _walk(obj, level):
    """True if the pytree obj holds a BatchedTensor of level (always the
    outermost wrapper when it reaches this level's mode: the modes of inner
    levels unwrap theirs first)."""
    return tree_any(lambda x: type(x) is BatchedTensor and x._level is level, obj)


def is_batched(t, level):
    return type(t) is BatchedTensor and t._level is level


def front(t, level):
    """t's physical value at level with the batch dim first, or None."""
    value, bdim = unwrap(t, level)
    if bdim is None:
        return None
    return value.movedim(bdim, 0) if bdim else value


def wrap_outputs(out, level):
    """Wraps every tensor in the pytree out (batch dim first) at level."""
    return tree_map_only(Tensor, lambda t: make(t, 0, level), out)


class VmapMode(TorchFunctionMode):
    def __init__(self, level):
        self.level = level
        level.mode = self

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        level = self.level
        if not (_walk(args, level) or _walk(kwargs, level)):
            if getattr(func, "__name__", "") in _RANDOM_FACTORIES:
                return _random_factory(func, args, kwargs, level)
            return func(*args, **kwargs)
        return dispatch(func, args, kwargs, level)


def dispatch(func, args, kwargs, level):
    from ._rules import RULES
    name = getattr(func, "__name__", "")
    if name in _METADATA:
        return func(*_plain_args(args), **kwargs)
    if name == "__repr__":
        return _repr(args[0], level)
    if name in _STORAGE:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
    rule = RULES.get(name)
    if rule is not None:
        out = rule(func, args, kwargs, level)
        if out is not NotImplemented:
            return out
    inner = getattr(func, "__wrapped__", None)
    if inner is not None:
        with level.mode:
            return inner(*args, **kwargs)
    return fallback(func, args, kwargs, level)


def _repr(t, level):
    inner = "\n".join("    " + line for line in repr(t._value).split("\n"))
    depth = _batched.levels().index(level) + 1
    return f"BatchedTensor(lvl={depth}, bdim={t._bdim}, value=\n{inner}\n)"


def _plain_args(args):
    return tuple(a.as_subclass(Tensor) if type(a) is BatchedTensor else a for a in args)


def _sample(obj, level, b):
    """The pytree obj with each BatchedTensor of level replaced by sample b."""
    return tree_map_only(BatchedTensor, lambda t: t._value.select(t._bdim, b)
                         if t._level is level else t, obj)


def _check_inplace(name, args, level):
    if args and not is_batched(args[0], level):
        raise RuntimeError(
            "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
            "Tensor `other` in extra_args that has more elements than `self`. This happened due "
            "to `other` being vmapped over but `self` not being vmapped over in a vmap. Please "
            "try to use out-of-place operators instead of inplace arithmetic. If said operator "
            "is being called inside the PyTorch framework, please file a bug report instead.")


def fallback(func, args, kwargs, level):
    """The op once per sample; the results stacked along a new dim 0."""
    name = getattr(func, "__name__", "")
    if is_inplace(name):
        _check_inplace(name, args, level)
    grad_call = func is _autograd_grad()
    results = []
    for b in range(level.size):
        kw = _sample(kwargs, level, b)
        if grad_call and b < level.size - 1:
            kw["retain_graph"] = True
        results.append(func(*_sample(args, level, b), **kw))
    if is_inplace(name):
        return args[0]
    return _stack_results(results, level)


def _autograd_grad():
    from ..autograd import grad
    return grad


def _stack_results(results, level):
    """The per-sample results joined: tensors stacked along a new dim 0, the
    Python values kept when every sample gave the same."""
    first = results[0]
    leaves, spec = tree_flatten(first)
    if not any(isinstance(x, Tensor) for x in leaves):
        # kept whole, so a Size stays a Size
        if all(type(r) is type(first) and r == first for r in results[1:]):
            return first
        raise RuntimeError(_DIFFERING_VALUES)
    columns = zip(leaves, *(spec.flatten_up_to(r) for r in results[1:]))
    return spec.unflatten([_stack_leaf(list(c), level) for c in columns])


def _stack_leaf(values, level):
    first = values[0]
    if isinstance(first, Tensor):
        return make(_C._functions["stack"](values), 0, level)
    if first is None or all(type(v) is type(first) and v == first for v in values[1:]):
        return first
    raise RuntimeError(_DIFFERING_VALUES)


_DIFFERING_VALUES = ("vmap: the per-sample results of this operation are Python values that "
                     "differ between samples; vmap can only batch tensors")


# Random operations: a factory with no batched input follows the level's
# randomness; a random op on a batched tensor has a rule in _rules.py.
_RANDOM_FACTORIES = frozenset({"rand", "randn", "randint", "randperm", "normal", "bernoulli",
                               "rand_like", "randn_like", "randint_like", "dropout",
                               "multinomial", "uniform_", "normal_", "bernoulli_", "random_",
                               "exponential_", "geometric_", "cauchy_", "log_normal_",
                               "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
                               "feature_alpha_dropout"})


def _draws(func, args, kwargs):
    """False for a dropout that draws nothing (eval mode, p of 0 or 1)."""
    if "dropout" not in func.__name__:
        return True
    p = kwargs.get("p", args[1] if len(args) > 1 else 0.5)
    training = kwargs.get("training", args[2] if len(args) > 2 else True)
    return bool(training) and 0.0 < p < 1.0


def _random_factory(func, args, kwargs, level):
    if not _draws(func, args, kwargs):
        return func(*args, **kwargs)
    if level.randomness == "error":
        raise RuntimeError(_RANDOM_ERROR)
    inplace = is_inplace(func.__name__)
    if inplace and level.randomness == "different":
        raise RuntimeError(
            "vmap: Cannot ask for different inplace randomness on an unbatched tensor. This "
            "will appear like same randomness. If this is necessary for your usage, please "
            "file an issue with functorch.")
    if level.randomness == "same" or inplace:
        return func(*args, **kwargs)
    # 'different' with no batched input: one draw per sample
    return _stack_results([func(*args, **kwargs) for _ in range(level.size)], level)


def random_error():
    raise RuntimeError(_RANDOM_ERROR)

