"""gradcheck (and gradgradcheck) for every differentiable op in the op table.

The ops come from minitorch.overrides.get_overridable_functions(); an op is
differentiable when one of its overloads names a derivative kind
(``f._derivatives``). Each needs sample inputs in SAMPLES below: a
differentiable op without an entry fails test_every_differentiable_op_has_samples,
so adding an op means adding its samples. The samples must together produce
every derivative kind the op's overloads name (checked through grad_fn).

Inputs are float64, small, with broadcast shapes where the op broadcasts, and
each op's first sample runs again on non-contiguous (transposed) inputs.
Values stay away from points where the op is not differentiable.
"""
import zlib

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.overrides import get_overridable_functions

F = mt.nn.functional
f64 = mt.float64


class Gen:
    """Random inputs for one sample set; every float tensor requires grad."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def _t(self, a, grad=True):
        return mt.tensor(np.asarray(a, dtype=np.float64)).requires_grad_(grad)

    def n(self, *shape, grad=True):  # normal
        return self._t(self.rng.standard_normal(shape), grad)

    def r(self, lo, hi, *shape, grad=True):  # uniform in [lo, hi)
        return self._t(self.rng.uniform(lo, hi, shape), grad)

    def p(self, *shape):  # positive, away from 0
        return self.r(0.5, 2.0, *shape)

    def a(self, *shape):  # away from 0, either sign
        return self._t(self.rng.choice([-1.0, 1.0], shape) * self.rng.uniform(0.3, 1.5, shape))

    def u(self, *shape):  # inside (-1, 1), away from the ends
        return self.r(-0.8, 0.8, *shape)

    def f(self, *shape):  # away from integers
        return self._t(self.rng.integers(-3, 3, shape) + self.rng.uniform(0.25, 0.7, shape))

    def e(self, *shape):  # multiples of 1/8: exact in half, bfloat16 and float
        return self._t(self.rng.integers(-15, 16, shape) / 8.0)

    def g(self, *shape):  # greater than 1
        return self.r(1.2, 3.0, *shape)

    def z(self, *shape, zeros=1):  # away from 0 except `zeros` exact zeros
        x = self.rng.choice([-1.0, 1.0], shape) * self.rng.uniform(0.5, 1.5, shape)
        x.reshape(-1)[self.rng.choice(x.size, zeros, replace=False)] = 0.0
        return self._t(x)


def idx(*v):
    return mt.tensor(list(v), dtype=mt.int64)


def mask(*v):
    return mt.tensor(list(v), dtype=mt.bool)


class Opt:
    """Per-sample options: eps for gradcheck, gg=False when the op is not
    twice differentiable at the sample, call=wrapper(f, *args, **kw), nc=False
    when the op needs contiguous inputs."""

    def __init__(self, **kw):
        self.eps = kw.pop("eps", 1e-6)
        self.gg = kw.pop("gg", True)
        self.call = kw.pop("call", None)
        self.nc = kw.pop("nc", True)  # also run on non-contiguous inputs
        assert not kw, kw


def S(*args, **kwargs):
    opt = kwargs.pop("_opt", Opt())
    return args, kwargs, opt


def inplace(f, x, *a, **k):
    return f(x.clone(), *a, **k)


def setitem(f, x, key, value):
    y = x.clone()
    f(y, key, value)
    return y


def to_double(f, *a, **k):
    return f(*a, **k).double()  # gradcheck reads outputs through NumPy: no bfloat16


def remainder_pair(t, shape_x, shape_y):
    # x / y stays at least ~0.1 away from an integer for y in [1, 1.05)
    x = t._t(t.rng.integers(-2, 3, shape_x) + t.rng.uniform(0.25, 0.7, shape_x))
    return x, t.r(1.0, 1.05, *shape_y)


# name -> value generator: the sample domain of the name's rows (MT_SAMPLE),
# one letter of Gen's methods
unary = {}
for _id, _name, _kinds, _sig, _runs, _tags, _domain in mt._C._op_rows():
    if _kinds and _domain is not None:
        assert unary.setdefault(_name, _domain) == _domain, (_name, _domain)

SAMPLES = {name: (lambda g: lambda t: [S(getattr(t, g)(2, 3))])(g) for name, g in unary.items()}
SAMPLES.update({
    "round": lambda t: [S(t.f(2, 3)), S(t.f(2, 3), decimals=1)],
    "gelu": lambda t: [S(t.n(2, 3)), S(t.n(2, 3), approximate="tanh")],
    "softplus": lambda t: [S(t.n(2, 3)), S(t.n(2, 3), beta=2.0, threshold=1.0)],
    "nan_to_num": lambda t: [S(t.n(2, 3)), S(t.n(2, 3), nan=1.0, posinf=2.0)],
    # binary, with broadcasting and numbers
    "add": lambda t: [S(t.n(2, 3), t.n(3)), S(t.n(2, 1), t.n(1, 3), alpha=2.5),
                      S(t.n(2, 3), 1.5)],
    "sub": lambda t: [S(t.n(2, 3), t.n(2, 1)), S(t.n(3), t.n(2, 3), alpha=-2.0),
                      S(t.n(2, 3), 1.5)],
    "mul": lambda t: [S(t.n(2, 3), t.n(3)), S(t.n(1, 3), t.n(2, 1)), S(t.n(2, 3), 2.5)],
    "div": lambda t: [S(t.n(2, 3), t.a(3)), S(t.n(2, 1), t.a(1, 3)), S(t.n(2, 3), 2.5),
                      S(t.f(2, 3), t.r(1.0, 1.05, 3), rounding_mode="floor")],
    "true_divide": lambda t: [S(t.n(2, 3), t.a(3)), S(t.n(2, 3), 2.5)],
    "atan2": lambda t: [S(t.a(2, 3), t.a(3)), S(t.a(2, 1), t.a(2, 3))],
    "hypot": lambda t: [S(t.a(2, 3), t.a(3)), S(t.a(2, 1), t.a(2, 3))],
    "copysign": lambda t: [S(t.a(2, 3), t.a(3)), S(t.a(2, 1), -1.5)],
    # nextafter moves input by one ulp: its gradient is 1 for input, 0 for other
    "nextafter": lambda t: [S(t.n(2, 3), t.n(3)), S(t.n(2, 1), t.n(2, 3))],
    # torch has no derivative in the first argument
    "igamma": lambda t: [S(t.r(0.5, 3.0, 2, 3, grad=False), t.p(3)),
                         S(t.r(0.5, 3.0, 2, 1, grad=False), t.r(2.0, 5.0, 2, 3))],
    "igammac": lambda t: [S(t.r(0.5, 3.0, 2, 3, grad=False), t.p(3)),
                          S(t.r(0.5, 3.0, 2, 1, grad=False), t.r(2.0, 5.0, 2, 3))],
    "polygamma": lambda t: [S(0, t.p(2, 3)), S(1, t.p(2, 3)), S(3, t.p(3))],
    "Tensor.polygamma": lambda t: [S(t.p(2, 3), 1), S(t.p(3), 2)],
    "maximum": lambda t: [S(t.n(2, 3), t.n(3)), S(t.n(2, 1), t.n(2, 3))],
    "fmax": lambda t: [S(t.n(2, 3), t.n(3)), S(t.n(2, 1), t.n(2, 3))],
    "fmin": lambda t: [S(t.n(2, 3), t.n(3)), S(t.n(2, 1), t.n(2, 3))],
    "pow": lambda t: [S(t.p(2, 3), t.n(3)), S(t.p(2, 3), 2.5), S(t.n(2, 3), 3),
                      S(2.0, t.n(2, 3))],
    "remainder": lambda t: [S(*remainder_pair(t, (2, 3), (3,))),
                            S(remainder_pair(t, (2, 3), ())[0], 1.5)],
    # ternary
    "addcmul": lambda t: [S(t.n(2, 3), t.n(3), t.n(2, 1), value=0.5)],
    "addcdiv": lambda t: [S(t.n(2, 3), t.n(3), t.a(2, 1), value=0.5)],
    "lerp": lambda t: [S(t.n(2, 3), t.n(3), t.r(0.1, 0.9, 2, 1)), S(t.n(2, 3), t.n(2, 3), 0.3)],
    "where": lambda t: [S(mask(True, False, True), t.n(2, 3), t.n(2, 1))],
    "clamp": lambda t: [S(t.n(2, 3), t.n(3) - 0.5, t.n(2, 1) + 0.5), S(t.n(2, 3), -0.5, 0.5),
                        S(t.n(2, 3), min=-0.3)],
    "clamp_min": lambda t: [S(t.n(2, 3), t.n(3)), S(t.n(2, 3), -0.3)],
    "clamp_max": lambda t: [S(t.n(2, 3), t.n(2, 1)), S(t.n(2, 3), 0.3)],
    "xlogy": lambda t: [S(t.n(2, 3), t.p(3)), S(1.5, t.p(2, 3)), S(t.n(2, 3), 2.0)],
    "logaddexp": lambda t: [S(t.n(2, 3), t.n(3)), S(t.n(2, 1), t.n(2, 3))],
    "logaddexp2": lambda t: [S(t.n(2, 3), t.n(3)), S(t.n(2, 1), t.n(2, 3))],
    "threshold": lambda t: [S(t.a(2, 3), 0.0, 2.0), S(t.a(2, 3), 0, -1)],
    "F.threshold": lambda t: [S(t.a(2, 3), 0.0, 2.0),
                              S(t.a(2, 3), 0.0, 2.0, True, _opt=Opt(call=inplace))],
    "leaky_relu": lambda t: [S(t.a(2, 3)), S(t.a(2, 3), 0.2), S(t.a(2, 3), -0.5),
                             S(t.a(2, 3), 0.2, True, _opt=Opt(call=inplace))],
    # every path torch's linear takes: addmm (2-D, or a folded input with a
    # bias), matmul and an added bias, mm, mv, dot
    "linear": lambda t: [S(t.n(2, 3), t.n(4, 3), t.n(4)), S(t.n(2, 3), t.n(4, 3)),
                         S(t.n(3), t.n(4, 3), t.n(4)), S(t.n(3), t.n(4, 3)),
                         S(t.n(2, 2, 3), t.n(4, 3), t.n(4)), S(t.n(2, 2, 3), t.n(4, 3)),
                         S(t.n(3), t.n(4, 3), t.n()), S(t.n(2, 3), t.n(3)), S(t.n(3), t.n(3))],
    "masked_fill": lambda t: [S(t.n(2, 3), mask(True, False, True), 0.5),
                              S(t.n(2, 3), mask(False, True, True), t.n())],
    # matrix products
    "mm": lambda t: [S(t.n(2, 3), t.n(3, 2))],
    "bmm": lambda t: [S(t.n(2, 2, 3), t.n(2, 3, 2))],
    "matmul": lambda t: [S(t.n(2, 3), t.n(3, 2)), S(t.n(3), t.n(3, 2)), S(t.n(2, 2, 3), t.n(3, 2)),
                         S(t.n(3), t.n(3)), S(t.n(2, 3), t.n(3))],
    "__add__": lambda t: [S(t.n(2, 3), t.n(3)), S(t.n(2, 1), t.n(1, 3)), S(t.a(2, 3), 1.5)],
    "__rmatmul__": lambda t: [S(t.n(3, 2), t.n(2, 3))],
    "mv": lambda t: [S(t.n(2, 3), t.n(3))],
    "dot": lambda t: [S(t.n(3), t.n(3))],
    "outer": lambda t: [S(t.n(3), t.n(2))],
    "addmm": lambda t: [S(t.n(2), t.n(3, 2), t.n(2, 2), beta=0.5, alpha=2.0),
                        S(t.n(3, 2), t.n(3, 2), t.n(2, 2))],
    "addmv": lambda t: [S(t.n(2), t.n(2, 3), t.n(3), beta=0.5, alpha=2.0)],
    "baddbmm": lambda t: [S(t.n(1, 2), t.n(2, 2, 3), t.n(2, 3, 2), beta=0.5, alpha=2.0)],
    # reductions
    "sum": lambda t: [S(t.n(2, 3)), S(t.n(2, 3), 1), S(t.n(2, 3), (0, 1), keepdim=True)],
    "mean": lambda t: [S(t.n(2, 3)), S(t.n(2, 3), 1), S(t.n(2, 3), -2, keepdim=True)],
    "prod": lambda t: [S(t.a(2, 3)), S(t.a(2, 3), 1), S(t.z(2, 3)), S(t.z(2, 3, zeros=2)),
                       S(t.z(2, 3), 1, keepdim=True), S(t.z(2, 3, zeros=2), 0)],
    "cumprod": lambda t: [S(t.a(2, 3), 1), S(t.z(2, 3), 1), S(t.z(2, 4, zeros=3), 1),
                          S(t.z(3, 2, zeros=2), 0)],
    "cumsum": lambda t: [S(t.n(2, 3), 1), S(t.n(2, 3), 0)],
    "amax": lambda t: [S(t.n(2, 3)), S(t.n(2, 3), 1), S(t.n(2, 3), (0, 1), keepdim=True)],
    "max": lambda t: [S(t.n(2, 3)), S(t.n(2, 3), 1), S(t.n(2, 3), 0, keepdim=True),
                      S(t.n(2, 3), t.n(3))],
    # distinct values, so a small step never reorders them (nor ties a mode)
    "median": lambda t: [S(t.n(2, 3)), S(t.n(2, 3), 1), S(t.n(2, 3), 0, keepdim=True)],
    "mode": lambda t: [S(t.n(2, 3)), S(t.n(2, 3), 0, keepdim=True), S(t.n(4))],
    "sort": lambda t: [S(t.n(2, 3)), S(t.n(2, 3), 0, True), S(t.n(4), descending=True),
                       S(t.n(2, 3), dim=0, stable=True)],
    "msort": lambda t: [S(t.n(3, 2))],
    "kthvalue": lambda t: [S(t.n(2, 4), 2), S(t.n(2, 4), 1, 0, True), S(t.n(5), 5)],
    "nanmedian": lambda t: [S(t.n(2, 3)), S(t.n(2, 3), 1), S(t.n(2, 3), 0, keepdim=True)],
    # cummax's positions repeat along the line, so its gradient adds up there
    "cummax": lambda t: [S(t.n(3, 4), 1), S(t.n(3, 4), 0), S(t.n(5), -1)],
    "cummin": lambda t: [S(t.n(3, 4), 1), S(t.n(3, 4), -2)],
    "aminmax": lambda t: [S(t.n(2, 3)), S(t.n(2, 3), dim=1), S(t.n(2, 3), dim=0, keepdim=True)],
    "logcumsumexp": lambda t: [S(t.n(2, 3), 1), S(t.n(2, 3), 0), S(t.n(4), -1)],
    "topk": lambda t: [S(t.n(2, 4), 2), S(t.n(2, 4), 1, 0, False), S(t.n(5), 3, sorted=False)],
    "var": lambda t: [S(t.n(2, 3)), S(t.n(2, 3), False), S(t.n(2, 3), 1, keepdim=True),
                      S(t.n(2, 3), 0, correction=0)],
    "norm": lambda t: [S(t.a(2, 3)), S(t.a(2, 3), 1), S(t.n(2, 3), 3.0, 1, keepdim=True),
                       S(t.n(2, 3), "fro"), S(t.n(2, 3), float("inf"))],
    "logsumexp": lambda t: [S(t.n(2, 3), 1), S(t.n(2, 3), (0, 1), keepdim=True)],
    "softmax": lambda t: [S(t.n(2, 3), 1), S(t.n(2, 3), 0)],
    # views and shapes
    "transpose": lambda t: [S(t.n(2, 3, 2), 0, 2)],
    "permute": lambda t: [S(t.n(2, 3, 2), (2, 0, 1))],
    "movedim": lambda t: [S(t.n(2, 3, 2), 0, 2), S(t.n(2, 3, 2), (0, 1), (2, 0))],
    "reshape": lambda t: [S(t.n(2, 3), (3, 2)), S(t.n(2, 3), (-1,))],
    "view": lambda t: [S(t.n(2, 3), (3, 2), _opt=Opt(nc=False))],
    "view_as": lambda t: [S(t.n(2, 3), mt.zeros(3, 2), _opt=Opt(nc=False))],
    "reshape_as": lambda t: [S(t.n(2, 3), mt.zeros(6))],
    "flatten": lambda t: [S(t.n(2, 3, 2)), S(t.n(2, 3, 2), 1)],
    "unflatten": lambda t: [S(t.n(2, 6), 1, (2, 3))],
    "squeeze": lambda t: [S(t.n(2, 1, 3)), S(t.n(2, 1, 3), 1), S(t.n(2, 1, 3, 1), (1, 3))],
    "unsqueeze": lambda t: [S(t.n(2, 3), 1)],
    "expand": lambda t: [S(t.n(3, 1), (2, 3, 2))],
    "expand_as": lambda t: [S(t.n(3, 1), mt.zeros(2, 3, 2))],
    "repeat": lambda t: [S(t.n(2, 3), (2, 1, 2))],
    "tile": lambda t: [S(t.n(2, 3), (2, 1))],
    "flip": lambda t: [S(t.n(2, 3), (0, 1))],
    "roll": lambda t: [S(t.n(2, 3), 1, 1), S(t.n(2, 3), 2)],
    "narrow": lambda t: [S(t.n(2, 4), 1, 1, 2)],
    "select": lambda t: [S(t.n(2, 3), 1, -1)],
    "diagonal": lambda t: [S(t.n(3, 3)), S(t.n(2, 3, 3), 1, 1, 2)],
    "as_strided": lambda t: [S(t.n(2, 3), (2, 2), (1, 2)), S(t.n(2, 3), (2,), (3,), 1)],
    "unbind": lambda t: [S(t.n(2, 3)), S(t.n(2, 3), 1)],
    "split": lambda t: [S(t.n(5, 2), 2), S(t.n(2, 5), (2, 3), 1)],
    "split_with_sizes": lambda t: [S(t.n(2, 5), (1, 4), 1)],
    "chunk": lambda t: [S(t.n(5, 2), 3)],
    "unsafe_split": lambda t: [S(t.n(5, 2), 2), S(t.n(2, 5), 3, 1)],
    "unsafe_split_with_sizes": lambda t: [S(t.n(2, 5), (1, 4), 1), S(t.n(3, 2), [2, 1])],
    "unsafe_chunk": lambda t: [S(t.n(5, 2), 3), S(t.n(2, 5), 2, -1)],
    "cat": lambda t: [S([t.n(2, 3), t.n(1, 3)]), S([t.n(2, 1), t.n(2, 3)], 1)],
    "stack": lambda t: [S([t.n(2, 3), t.n(2, 3)]), S([t.n(2, 3), t.n(2, 3)], 2)],
    "hstack": lambda t: [S([t.n(2, 3), t.n(2, 1)]), S([t.n(3), t.n(2), t.n()])],
    "vstack": lambda t: [S([t.n(2, 3), t.n(3)]), S([t.n(3), t.n(3)])],
    "diag": lambda t: [S(t.n(3)), S(t.n(2), -1), S(t.n(3, 3)), S(t.n(2, 4), 1), S(t.n(4, 2), -2)],
    "pad": lambda t: [S(t.n(2, 3), (1, 2)), S(t.n(2, 3), (1, -1, 0, 2), value=0.5),
                      S(t.n(3), (-1, 1))],
    "repeat_interleave": lambda t: [S(t.n(2, 3), 2, 0), S(t.n(2, 3), 2),
                                    S(t.n(2, 3), idx(1, 0, 2), 1), S(t.n(), 3)],
    "tril": lambda t: [S(t.n(3, 3)), S(t.n(2, 3), -1)],
    "take": lambda t: [S(t.n(2, 3), idx(0, 5, 5, 2))],
    "gather": lambda t: [S(t.n(2, 3), 1, idx(0, 2, 2, 1).view(2, 2))],
    "scatter": lambda t: [S(t.n(2, 3), 1, idx(0, 2, 1, 0).view(2, 2), t.n(2, 2))],
    "scatter_add": lambda t: [S(t.n(2, 3), 1, idx(0, 2, 2, 0).view(2, 2), t.n(2, 2))],
    "index_select": lambda t: [S(t.n(2, 3), 1, idx(2, 0, 2))],
    "masked_select": lambda t: [S(t.n(2, 3), mask(True, False, True)),
                                S(t.n(3), mask(True, False, True).view(1, 3).expand(2, 3).clone())],
    "__getitem__": lambda t: [S(t.n(3, 4), idx(0, 2, 2)), S(t.n(3, 4), (slice(None), slice(1, 3))),
                              S(t.n(3, 4), (1, slice(None, None, 2))), S(t.n(3, 4), mask(True, False, True)),
                              S(t.n(3, 4), (Ellipsis, [0, 3]))],
    "index_add": lambda t: [S(t.n(3, 2), 0, idx(0, 2, 0), t.n(3, 2), alpha=2.0),
                            S(t.n(2, 3), 1, idx(2, 2), t.n(2, 2))],
    # in-place ops with no out-of-place form
    "copy_": lambda t: [S(t.n(2, 3), t.n(3), _opt=Opt(call=inplace))],
    "__setitem__": lambda t: [S(t.n(3, 4), (slice(None), 1), t.n(3), _opt=Opt(call=setitem)),
                              S(t.n(3, 4), idx(0, 2), 0.5, _opt=Opt(call=setitem)),
                              S(t.n(3, 4), mask(True, False, True), t.n(4), _opt=Opt(call=setitem))],
    # dtype conversions: values and eps exact in the narrow dtype
    "to": lambda t: [S(t.e(2, 3), mt.float32, _opt=Opt(eps=0.125)),
                     S(t.e(2, 3), mt.zeros(1, dtype=mt.float16), _opt=Opt(eps=0.125)),
                     S(t.e(2, 3), dtype=mt.bfloat16, _opt=Opt(eps=0.125, call=to_double))],
    "type": lambda t: [S(t.e(2, 3), mt.float32, _opt=Opt(eps=0.125))],
    "float": lambda t: [S(t.e(2, 3), _opt=Opt(eps=0.125))],
    "half": lambda t: [S(t.e(2, 3), _opt=Opt(eps=0.125))],
    "bfloat16": lambda t: [S(t.e(2, 3), _opt=Opt(eps=0.125, call=to_double))],
    "double": lambda t: [S(t.e(2, 3).detach().float().requires_grad_(), _opt=Opt(eps=0.125))],
    # to an integer dtype: no differentiable output, the numerical gradient must be 0
    "int": lambda t: [S(t.f(2, 3), _opt=Opt(gg=False))],
    # the nn.functional forms
    "log_softmax": lambda t: [S(t.n(2, 3), 1), S(t.n(2, 3), 0)],
    # convolution and pooling: 'same' with an even window pads one side more,
    # ceil_mode adds a partial window
    "conv2d": lambda t: [S(t.n(1, 2, 4, 4), t.n(3, 2, 2, 2), t.n(3)),
                         S(t.n(4, 5, 5), t.n(2, 2, 3, 3), None, 2, 1, 1, 2),
                         S(t.n(1, 1, 4, 5), t.n(2, 1, 2, 3), padding="same", dilation=(1, 2))],
    "conv1d": lambda t: [S(t.n(2, 2, 5), t.n(3, 2, 2), t.n(3)),
                         S(t.n(2, 6), t.n(2, 2, 3), None, 2, 1, 2),
                         S(t.n(1, 2, 5), t.n(2, 2, 2), padding="same")],
    "max_pool2d": lambda t: [S(t.n(1, 2, 4, 4), 2), S(t.n(2, 5, 5), 3, 2, 1, ceil_mode=True),
                             S(t.n(1, 1, 5, 5), 2, 1, 0, 2)],
    "avg_pool2d": lambda t: [S(t.n(1, 2, 4, 4), 2),
                             S(t.n(2, 5, 5), 3, 2, 1, ceil_mode=True, count_include_pad=False),
                             S(t.n(1, 1, 4, 4), 2, divisor_override=3)],
    "adaptive_avg_pool2d": lambda t: [S(t.n(1, 2, 5, 5), 3), S(t.n(2, 4, 3), (2, 1))],
    # the method's self is the input: x.where(condition, other)
    "Tensor.where": lambda t: [S(t.n(2, 3), mask(True, False, True), t.n(2, 1)),
                               S(t.n(2, 3), mask(False, True, True), 1.5)],
    "fill_": lambda t: [S(t.n(2, 3), 0.5, _opt=Opt(call=inplace)),
                        S(t.n(2, 3), t.n(), _opt=Opt(call=inplace))],
    "zero_": lambda t: [S(t.n(2, 3), _opt=Opt(call=inplace))],
})

# Same samples under another name.
ALIASES = {
    "__truediv__": "__add__", "divide": "div", "subtract": "sub",
    "multiply": "mul", "arctan2": "atan2", "minimum": "maximum", "fmod": "remainder",
    "__mod__": "remainder", "__pow__": "pow", "__matmul__": "mm", "vdot": "dot", "ger": "outer",
    "amin": "amax", "min": "max", "std": "var", "var_mean": "var", "std_mean": "var",
    "clip": "clamp", "swapaxes": "transpose", "swapdims": "transpose", "moveaxis": "movedim",
    "triu": "tril", "concat": "cat", "long": "int", "short": "int", "row_stack": "vstack",
    "char": "int", "byte": "int", "bool": "int", "__radd__": "__add__",
    "__sub__": "__add__", "__mul__": "__add__", "__rmul__": "__add__",
    # torch.special's names for the ops above
    "special_erf": "erf", "special_erfc": "erfc", "special_erfinv": "erfinv",
    "special_expm1": "expm1", "special_exp2": "exp2", "special_log1p": "log1p",
    "special_sinc": "sinc", "special_expit": "sigmoid", "special_digamma": "digamma",
    "special_psi": "digamma", "special_gammaln": "lgamma", "special_i0": "i0",
    "special_xlogy": "xlogy", "special_gammainc": "igamma", "special_gammaincc": "igammac",
    "special_polygamma": "polygamma", "special_round": "round",
    "special_logsumexp": "logsumexp", "special_softmax": "softmax",
    "special_log_softmax": "log_softmax",
}


def _rsub(t):
    return [S(t.n(2, 3), t.n(3)), S(t.n(2, 3), 1.5)]


def _rpow(t):
    return [S(t.n(2, 3), t.p(3)), S(t.n(2, 3), 2.0)]


def _rdiv(t):
    return [S(t.a(2, 3), t.n(3)), S(t.a(2, 3), 2.0)]


def _rmod(t):
    # x.__rmod__(y) is remainder(y, x): the divisor first
    return [S(*remainder_pair(t, (2, 3), (3,))[::-1])]


SAMPLES.update({"__rsub__": _rsub, "__rpow__": _rpow, "__rtruediv__": _rdiv, "__rmod__": _rmod})
# their real forms: a real tensor is its own conjugate and real part; angle
# is constant away from 0
SAMPLES.update({name: (lambda t: [S(t.a(2, 3))]) for name in ("angle",)})
SAMPLES.update({
    "special_ndtri": lambda t: [S(t.r(0.05, 0.95, 2, 3))],
    "special_xlog1py": lambda t: [S(t.n(2, 3), t.p(3)), S(1.5, t.p(2, 3)), S(t.n(2, 3), 0.5)],
    # torch has no derivative in the exponent
    "special_zeta": lambda t: [S(t.r(1.5, 3.0, 2, 3, grad=False), t.p(3)),
                               S(2.5, t.p(2, 3))],
})

# Differentiable by the table but with nothing to check, and why.
NOT_CHECKED = {
    "__float__": "returns a Python float",
    # tests/test_out_overlap_rules.py checks its zero gradient
    "bernoulli": "random draws: numerical differences of new draws mean nothing",
}
# complex values in or out: gradcheck here perturbs and compares real numbers
# only; tests/test_complex_core.py compares these gradients with torch's
NOT_CHECKED.update({name: "complex input or output" for name in (
    "view_as_real", "view_as_complex", "imag", "complex", "polar", "cfloat", "cdouble",
    "chalf")})
NOT_CHECKED.update({name: "returns its real input itself" for name in (
    "conj", "real", "conj_physical", "resolve_conj")})


def _inplace_base(name):
    if name.startswith("__i") and name.endswith("__"):
        return "__" + name[3:]
    if name.endswith("_") and not name.endswith("__"):
        return name[:-1]
    return None


def _kinds(f):
    return {k for k in getattr(f, "_derivatives", ()) if k and k != "NonDifferentiable"}


def _ops():
    """(namespace, name, callable) for every differentiable op."""
    names = {mt: "mt", mt.Tensor: "Tensor", F: "F", mt.special: "special"}
    out = []
    for ns, fs in get_overridable_functions().items():
        if ns not in names:
            continue  # minitorch.linalg.matmul is minitorch.matmul
        for f in fs:
            name = f.__name__
            if name.startswith("_") and not name.endswith("__"):
                continue
            if not _kinds(f):
                continue
            base = _inplace_base(name)
            if base is not None and _lookup(base) is not None:
                continue  # the out-of-place form covers the formula
            out.append((names[ns], name, f))
    return out


def _lookup(name, ns=None):
    """Samples of ns.name (a key like "Tensor.where" when the method differs
    from the function), else of name."""
    if f"{ns}.{name}" in SAMPLES:
        return SAMPLES[f"{ns}.{name}"]
    name = ALIASES.get(name, name)
    return SAMPLES.get(name)


OPS = _ops()
CHECKED = [op for op in OPS if op[1] not in NOT_CHECKED]


def test_every_differentiable_op_has_samples():
    missing = sorted({name for ns, name, _ in CHECKED if _lookup(name, ns) is None})
    assert not missing, f"differentiable ops with no gradcheck samples: {missing}"


def test_derivatives_attribute():
    assert mt.mul._derivatives == ("MulBackward0",)
    assert mt.Tensor.view._derivatives == ("ViewBackward0", "NonDifferentiable")
    assert set(mt.eq._derivatives) == {"NonDifferentiable"}
    assert mt.floor_divide._derivatives == ("",)


def _noncontig(x):
    if not isinstance(x, mt.Tensor) or x.dim() < 2 or not x.requires_grad:
        return x
    if x.size(-1) > 1 and x.size(-2) > 1:
        y = x.detach().transpose(-1, -2).contiguous().transpose(-1, -2)
    else:
        y = mt.zeros(tuple(x.shape) + (2,), dtype=x.dtype)[..., 0]
        y.copy_(x.detach())
    assert not y.is_contiguous()
    return y.requires_grad_()


def _flatten_inputs(args, kwargs):
    """The differentiable tensors of a sample and a rebuild(new) -> (args, kwargs)."""
    slots = []

    def walk(v, path):
        if isinstance(v, mt.Tensor) and v.requires_grad:
            slots.append(path)
        elif isinstance(v, list):
            for i, e in enumerate(v):
                walk(e, path + (i,))

    for i, v in enumerate(args):
        walk(v, ("a", i))
    for k, v in kwargs.items():
        walk(v, ("k", k))

    def get(path):
        v = args[path[1]] if path[0] == "a" else kwargs[path[1]]
        for i in path[2:]:
            v = v[i]
        return v

    def rebuild(new):
        a, k = list(args), dict(kwargs)
        a = [list(v) if isinstance(v, list) else v for v in a]
        for path, x in zip(slots, new):
            box, key = (a, path[1]) if path[0] == "a" else (k, path[1])
            for i in path[2:]:
                box, key = box[key], i
            box[key] = x
        return a, k

    return [get(p) for p in slots], rebuild


def _run(f, args, kwargs, opt, produced):
    inputs, rebuild = _flatten_inputs(args, kwargs)

    def fn(*xs):
        a, k = rebuild(xs)
        out = opt.call(f, *a, **k) if opt.call else f(*a, **k)
        for o in out if isinstance(out, tuple) else (out,):
            if isinstance(o, mt.Tensor) and o.grad_fn is not None:
                produced.add(type(o.grad_fn).__name__)
        return out

    assert gradcheck(fn, tuple(inputs), eps=opt.eps, check_batched_grad=True)
    if opt.gg and opt.eps == 1e-6:
        assert gradgradcheck(fn, tuple(inputs), check_batched_grad=True)


@pytest.mark.parametrize("ns,name,f", CHECKED, ids=[f"{ns}.{n}" for ns, n, _ in CHECKED])
def test_gradcheck(ns, name, f):
    gen = _lookup(name, ns)
    if gen is None:
        pytest.fail(f"no samples for {name}")
    t = Gen(zlib.crc32(f"{ns}.{name}".encode()))
    samples = gen(t)
    produced = set()
    if ns == "Tensor":  # a method's self is a tensor, never a number
        samples = [s for s in samples if isinstance(s[0][0], mt.Tensor)]
    for k, (args, kwargs, opt) in enumerate(samples):
        _run(f, args, kwargs, opt, produced)
        if k == 0 and opt.nc:
            _run(f, [_noncontig(a) for a in args], kwargs, opt, produced)
    if ALIASES.get(name, name) != "int":  # integer results record no node
        missing = _kinds(f) - produced
        assert not missing, f"no sample of {name} produced {sorted(missing)}"


@pytest.mark.parametrize("ns,name,f", CHECKED, ids=[f"{ns}.{n}" for ns, n, _ in CHECKED])
def test_backward_twice(ns, name, f):
    # a second backward through freed saved tensors is torch's RuntimeError
    # (or works, for nodes that saved nothing), never a crash or SystemError
    args, kwargs, opt = _lookup(name, ns)(Gen(1))[0]
    inputs, _ = _flatten_inputs(args, kwargs)
    out = opt.call(f, *args, **kwargs) if opt.call else f(*args, **kwargs)
    outs = [o for o in (out if isinstance(out, tuple) else (out,))
            if isinstance(o, mt.Tensor) and o.requires_grad]
    if not outs:
        return
    loss = sum((o * o).sum() for o in outs)
    g = mt.autograd.grad(loss, inputs, create_graph=True, allow_unused=True)
    gsum = sum(x.sum() for x in g if x is not None and x.requires_grad)
    if not isinstance(gsum, mt.Tensor):
        return
    for _ in range(2):
        try:
            mt.autograd.grad(gsum, inputs, allow_unused=True)
        except RuntimeError as e:
            assert "second time" in str(e)


class _Zero(mt.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a.clone()

    @staticmethod
    def backward(ctx, g):
        return None


class _Seen(mt.autograd.Function):
    seen = []

    @staticmethod
    def forward(ctx, a):
        return a.clone()

    @staticmethod
    def backward(ctx, g):
        _Seen.seen.append(g)
        return g


def test_nodes_reached_by_no_gradient():
    # torch: built-in nodes that get no gradient pass none on, even the
    # multi-output ones that materialise; a custom Function still runs (zeros)
    y = mt.randn(4, dtype=f64, requires_grad=True)
    _Zero.apply(y.split(2)[0]).sum().backward()
    _Zero.apply(mt.var_mean(y)[0]).sum().backward()
    _Zero.apply(y.unbind(0)[1]).backward()
    _Zero.apply(y.max(0)[0]).backward()
    assert y.grad is None
    _Seen.seen.clear()
    _Zero.apply(_Seen.apply(y)).sum().backward()
    assert len(_Seen.seen) == 1 and not _Seen.seen[0].numpy().any()
    assert y.grad is not None and not y.grad.numpy().any()


def test_partial_gradients_of_multi_output_ops():
    torch = pytest.importorskip("torch")
    v = np.random.default_rng(3).standard_normal((3, 4))
    cases = [lambda L, x: L.var_mean(x, 1)[0], lambda L, x: L.var_mean(x, 1)[1],
             lambda L, x: L.std_mean(x)[1], lambda L, x: x.split(2, 1)[1],
             lambda L, x: x.unbind(0)[2], lambda L, x: x.max(1)[0], lambda L, x: x.min(0).values]
    for case in cases:
        res = []
        for L in (torch, mt):
            x = L.tensor(v).requires_grad_()
            y = case(L, x)
            g, = L.autograd.grad((y * y).sum(), x, create_graph=True)
            h, = L.autograd.grad((g * g).sum(), x)
            res.append((g.detach().numpy(), h.numpy()))
        for a, b in zip(*res):
            np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("op", ["relu", "remainder", "fmod", "abs", "clamp"])
def test_second_derivative_connectivity_as_torch(op):
    # torch keeps the gradient of relu (and of remainder's divisor) attached to
    # the input with a zero derivative: grad-of-grad is zeros, not an error
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    xv = rng.uniform(0.3, 1.5, (2, 3)) * rng.choice([-1, 1], (2, 3))
    yv = rng.uniform(1.0, 1.05, 3)
    fs = {"relu": lambda L, x, y: L.relu(x), "remainder": lambda L, x, y: x.remainder(y),
          "fmod": lambda L, x, y: x.fmod(y), "abs": lambda L, x, y: x.abs(),
          "clamp": lambda L, x, y: x.clamp(-0.5, 0.5)}
    res = []
    for L in (torch, mt):
        x, y = L.tensor(xv).requires_grad_(), L.tensor(yv).requires_grad_()
        out = fs[op](L, x, y)
        gs = L.autograd.grad(out, [x, y], L.ones_like(out), create_graph=True, allow_unused=True)
        row = []
        for g in gs:
            for inp in (x, y):
                if g is None or not g.requires_grad:
                    row.append("none" if g is None else "constant")
                    continue
                try:
                    h, = L.autograd.grad(g.sum(), [inp], retain_graph=True)
                    row.append((h.detach() + 0).tolist())  # torch may give a ZeroTensor
                except RuntimeError as e:
                    row.append(str(e))
        res.append(row)
    assert res[0] == res[1]


def test_where_method_self_is_the_input():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    xv, yv = rng.standard_normal((2, 3)), rng.standard_normal((2, 1))
    cv = np.array([True, False, True])
    g = rng.standard_normal((2, 3))
    res = []
    for L in (torch, mt):
        x, y = L.tensor(xv, requires_grad=True), L.tensor(yv, requires_grad=True)
        out = x.where(L.tensor(cv), y)
        out.backward(L.tensor(g))
        res.append((type(out.grad_fn).__name__, out.detach().numpy(), x.grad.numpy(),
                    y.grad.numpy(), x.detach().where(L.tensor(cv), 2.5).numpy()))
    assert res[0][0] == res[1][0]
    for a, b in zip(res[0][1:], res[1][1:]):
        np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("case", ["fill", "fill_tensor", "zero", "fill_view", "zero_view"])
def test_fill_and_zero_record_as_torch(case):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    xv, g = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    res = []
    for L in (torch, mt):
        x, v = L.tensor(xv, requires_grad=True), L.tensor(1.5, requires_grad=True)
        y = x * 2
        target = y[1:, ::2] if case.endswith("view") else y
        if case.startswith("zero"):
            target.zero_()
        elif case == "fill_tensor":
            target.fill_(v)
        else:
            target.fill_(0.25)
        names = type(target.grad_fn).__name__ if not case.endswith("view") else None
        y.backward(L.tensor(g))
        res.append((names, y.detach().numpy(), x.grad.numpy(),
                    None if v.grad is None else v.grad.numpy()))
    assert res[0][0] == res[1][0]
    for a, b in zip(res[0][1:], res[1][1:]):
        if a is None:
            assert b is None
        else:
            np.testing.assert_allclose(b, a, rtol=1e-12)
    with pytest.raises(RuntimeError, match="0-dimension value tensor"):
        mt.zeros(2).fill_(mt.ones(2))
