"""torch._foreach_*: an op applied to each tensor of a list (what optimizers
written for torch call on their parameter lists). The functional forms return
a tuple of results, the in-place forms write into the tensors of the first
list and return it. Each entry of FOREACH names the per-tensor op it maps,
so the functions are made from the op table's functions, not written out."""
from numbers import Number
from typing import Callable, List, Sequence

from . import _C
from ._tensor import Tensor

_f = _C._functions

# torch's foreach names by argument shape: the per-tensor op of each is the
# public function (or in-place method) of the same name
UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
         "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal",
         "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc")
BINARY = ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "clamp_max", "clamp_min")
TERNARY = ("addcmul", "addcdiv", "lerp")

__all__ = []


def _check_lists(first: Sequence, *others) -> None:
    if len(first) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for other in others:
        if isinstance(other, (list, tuple)) and other and isinstance(other[0], Tensor) \
                and len(other) != len(first):
            raise RuntimeError("Tensor lists must have the same number of tensors, got "
                               f"{len(first)} and {len(other)}")
        if isinstance(other, (list, tuple)) and (not other or isinstance(other[0], Number)) \
                and len(other) != len(first):
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")


def _spread(arg, n: int) -> list:
    """arg for each of n tensors: a list's own entries, else arg itself."""
    return list(arg) if isinstance(arg, (list, tuple)) else [arg] * n


def _publish(name: str, fn: Callable) -> None:
    fn.__name__ = fn.__qualname__ = name
    globals()[name] = fn
    __all__.append(name)


def _make(op: str, nargs: int) -> None:
    per_tensor = getattr(Tensor, op, None)
    in_place = getattr(Tensor, op + "_", None)
    if per_tensor is None or in_place is None:
        return  # the foreach forms come with the op

    def calls(name, self, args, kwargs):
        _check_lists(self, *args)
        if "alpha" in kwargs and not (isinstance(args[0], Tensor) or isinstance(
                args[0], (list, tuple)) and isinstance(args[0][0], Tensor)):
            raise TypeError(f"{name}() received an invalid combination of arguments: alpha is "
                            "taken only with a tensor or a list of tensors as other")
        if op in ("addcmul", "addcdiv") and len(args) == 3:
            kwargs = dict(kwargs, value=args[2])
            args = args[:2]
        if isinstance(kwargs.get("value"), Tensor):
            kwargs["value"] = kwargs["value"].tolist()
        spread = [_spread(a, len(self)) for a in args]
        value = _spread(kwargs.pop("value"), len(self)) if "value" in kwargs else None
        for i, t in enumerate(self):
            extra = dict(kwargs, value=value[i]) if value is not None else kwargs
            yield t, [s[i] for s in spread], extra

    def functional(self: List[Tensor], *args, **kwargs):
        return tuple(per_tensor(t, *a, **k)
                     for t, a, k in calls(f"_foreach_{op}", self, args, kwargs))

    def inplace(self: List[Tensor], *args, **kwargs):
        for t, a, k in list(calls(f"_foreach_{op}_", self, args, kwargs)):
            in_place(t, *a, **k)
        return self

    functional.__doc__ = f"{op}() of each tensor of self ({nargs} more arguments, each a list " \
                         "or one value for all)."
    inplace.__doc__ = f"{op}_() on each tensor of self, in place."
    _publish(f"_foreach_{op}", functional)
    _publish(f"_foreach_{op}_", inplace)


for _op in UNARY:
    _make(_op, 0)
for _op in BINARY:
    _make(_op, 1)
for _op in TERNARY:
    _make(_op, 2)
_functional_pow = globals()["_foreach_pow"]


def _foreach_pow(self, exponent, **kwargs):
    """pow() of each tensor of self; a number as self raises it to each tensor."""
    if isinstance(self, Number):
        _check_lists(exponent)
        return tuple(_f["pow"](self, t) for t in exponent)
    return _functional_pow(self, exponent, **kwargs)


def _foreach_norm(self: List[Tensor], ord=2, dtype=None):
    """The vector norm of each tensor of self."""
    from .linalg import vector_norm
    _check_lists(self)
    return tuple(vector_norm(t, ord, dtype=dtype) for t in self)


def _foreach_max(self: List[Tensor]):
    """The largest element of each tensor of self."""
    _check_lists(self)
    return tuple(t.max() for t in self)


def _foreach_clone(self: List[Tensor], *, memory_format=None):
    """A copy of each tensor of self."""
    _check_lists(self)
    return tuple(t.clone() if memory_format is None else t.clone(memory_format=memory_format)
                 for t in self)


def _foreach_copy_(self: List[Tensor], src: List[Tensor], non_blocking: bool = False):
    """Copies each tensor of src into the tensor of self at its place."""
    _check_lists(self, src)
    for t, s in zip(self, src):
        t.copy_(s, non_blocking)
    return self


def _foreach_zero_(self: List[Tensor]):
    """Fills each tensor of self with zeros."""
    _check_lists(self)
    for t in self:
        t.zero_()
    return self


__all__ += ["_foreach_norm", "_foreach_max", "_foreach_clone", "_foreach_copy_",
            "_foreach_zero_"]
