"""Modules that only hold the arguments of one nn.functional call: the
elementwise activations beyond ReLU's family, and the two distances. Each is
stamped out by `_module` from its arguments (with torch's defaults) and the
text torch's extra_repr prints for them."""
from .. import functional as F
from .module import Module

__all__ = ["ELU", "SELU", "CELU", "ReLU6", "Hardtanh", "Hardsigmoid", "Hardswish", "Mish",
           "LogSigmoid", "Softsign", "Softshrink", "Hardshrink", "Tanhshrink", "Threshold",
           "GLU", "Softmin", "Softplus", "CosineSimilarity", "PairwiseDistance",
           "LocalResponseNorm", "ChannelShuffle"]

_REQUIRED = object()


def _inplace(m):
    return ", inplace=True" if m.inplace else ""


def _module(name, fn, params, extra=None, inputs=1, check=None, stored=None):
    """A Module class called `name` whose forward(*inputs) is
    fn(*inputs, *params), params being (argument, default) pairs, each kept in
    the attribute of its name or the one `stored` maps it to (as torch names
    it); check(self) vets the arguments as torch's __init__ does."""
    names = [p for p, _ in params]
    attrs = [(stored or {}).get(n, n) for n in names]

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        if len(args) > len(names):
            raise TypeError(f"{name}.__init__() takes from 1 to {len(names) + 1} positional "
                            f"arguments but {len(args) + 1} were given")
        values = dict(params)
        values.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument '{key}'")
            if names.index(key) < len(args):
                raise TypeError(f"{name}.__init__() got multiple values for argument '{key}'")
            values[key] = value
        missing = [n for n in names if values[n] is _REQUIRED]
        if missing:
            raise TypeError(f"{name}.__init__() missing {len(missing)} required positional "
                            f"argument{'s' if len(missing) > 1 else ''}: "
                            + " and ".join(f"'{n}'" for n in missing))
        for n, attr in zip(names, attrs):
            setattr(self, attr, values[n])
        if check is not None:
            check(self)

    def forward(self, *xs):
        if len(xs) != inputs:
            raise TypeError(f"{name}.forward() takes {inputs + 1} positional argument"
                            f"{'s' if inputs else ''} but {len(xs) + 1} were given")
        return fn(*xs, *(getattr(self, attr) for attr in attrs))

    forward.__doc__ = (f"Returns nn.functional.{fn.__name__} of the input with the "
                       "module's arguments.")
    body = {"__init__": __init__, "forward": forward, "__module__": __name__,
            "__doc__": f"Applies nn.functional.{fn.__name__}."}
    if extra is not None:
        def extra_repr(self):
            """The module's arguments, as its repr shows them."""
            return extra(self)
        body["extra_repr"] = extra_repr
    return type(name, (Module,), body)


def _ordered_bounds(m):
    if m.max_val <= m.min_val:
        raise AssertionError


ELU = _module("ELU", F.elu, [("alpha", 1.0), ("inplace", False)],
              lambda m: f"alpha={m.alpha}{_inplace(m)}")
CELU = _module("CELU", F.celu, [("alpha", 1.0), ("inplace", False)],
               lambda m: f"alpha={m.alpha}{_inplace(m)}")
SELU = _module("SELU", F.selu, [("inplace", False)], lambda m: _inplace(m)[2:])
Hardtanh = _module("Hardtanh", F.hardtanh,
                   [("min_val", -1.0), ("max_val", 1.0), ("inplace", False)],
                   lambda m: f"min_val={m.min_val}, max_val={m.max_val}{_inplace(m)}",
                   check=_ordered_bounds)
ReLU6 = _module("ReLU6", F.relu6, [("inplace", False)], lambda m: _inplace(m)[2:])
Hardsigmoid = _module("Hardsigmoid", F.hardsigmoid, [("inplace", False)])
Hardswish = _module("Hardswish", F.hardswish, [("inplace", False)])
Mish = _module("Mish", F.mish, [("inplace", False)])
LogSigmoid = _module("LogSigmoid", F.logsigmoid, [])
Softsign = _module("Softsign", F.softsign, [])
Tanhshrink = _module("Tanhshrink", F.tanhshrink, [])
Softshrink = _module("Softshrink", F.softshrink, [("lambd", 0.5)], lambda m: str(m.lambd))
Hardshrink = _module("Hardshrink", F.hardshrink, [("lambd", 0.5)], lambda m: str(m.lambd))
Threshold = _module("Threshold", F.threshold,
                    [("threshold", _REQUIRED), ("value", _REQUIRED), ("inplace", False)],
                    lambda m: f"threshold={m.threshold}, value={m.value}{_inplace(m)}")
GLU = _module("GLU", F.glu, [("dim", -1)], lambda m: f"dim={m.dim}")
Softmin = _module("Softmin", F.softmin, [("dim", None)], lambda m: f"dim={m.dim}")
Softplus = _module("Softplus", F.softplus, [("beta", 1.0), ("threshold", 20.0)],
                   lambda m: f"beta={m.beta}, threshold={m.threshold}")
CosineSimilarity = _module("CosineSimilarity", F.cosine_similarity,
                           [("dim", 1), ("eps", 1e-8)], inputs=2)
PairwiseDistance = _module("PairwiseDistance", F.pairwise_distance,
                           [("p", 2.0), ("eps", 1e-6), ("keepdim", False)], inputs=2,
                           stored={"p": "norm"})
LocalResponseNorm = _module("LocalResponseNorm", F.local_response_norm,
                            [("size", _REQUIRED), ("alpha", 1e-4), ("beta", 0.75), ("k", 1.0)],
                            lambda m: f"{m.size}, alpha={m.alpha}, beta={m.beta}, k={m.k}")
ChannelShuffle = _module("ChannelShuffle", F.channel_shuffle, [("groups", _REQUIRED)],
                         lambda m: f"groups={m.groups}")
