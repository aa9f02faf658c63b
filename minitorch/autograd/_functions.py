"""The node constructors torch keeps in ``torch._C._functions``.

``UndefinedGrad()(x)`` passes ``x`` through to an output whose gradient
flowing back is undefined (None); ``DelayedError(msg, n)(*inputs)`` passes
``n`` tensors (or None) through to outputs that raise ``msg`` when
differentiated (``once_differentiable`` uses it). As in torch, their nodes
are ``UndefinedGradBackward`` and ``Error``, with one edge per input (None
for an input that is None). They are installed as attributes of
``_C._functions`` by ``minitorch.autograd``.
"""
from .. import _C
from .function import Function


class _UndefinedGrad(Function):
    _node_name = "UndefinedGradBackward"

    @staticmethod
    def forward(ctx, x):
        return x.detach()

    @staticmethod
    def backward(ctx, g):
        return None


class _Error(Function):
    _node_name = "Error"

    @staticmethod
    def forward(ctx, msg, *inputs):
        ctx.msg = msg
        return tuple(i.detach() for i in inputs)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ctx.msg)


def _check_count(given, expected):
    if len(given) != expected:
        raise TypeError(f"expected {expected} arguments, got {len(given)} instead")


class UndefinedGrad:
    """``UndefinedGrad()(x)``: x with a node whose backward gives no gradient."""

    def __call__(self, *inputs):
        _check_count(inputs, 1)
        x = inputs[0]
        return None if x is None else _UndefinedGrad.apply(x)


class DelayedError:
    """``DelayedError(msg, num_inputs)(*inputs)``: the inputs, through a node
    that raises ``msg`` in backward."""

    def __init__(self, msg, num_inputs):
        self.msg = msg.decode() if isinstance(msg, bytes) else str(msg)
        self.num_inputs = int(num_inputs)

    def __call__(self, *inputs):
        _check_count(inputs, self.num_inputs)
        # an input that is None still has its edge (to no node), as in torch
        placeholder = _C._functions["empty"]((0,))
        outs = _Error.apply(self.msg, *(placeholder if i is None else i for i in inputs))
        outs = tuple(None if i is None else o for i, o in zip(inputs, outs))
        return outs[0] if len(outs) == 1 else outs


_C._functions.UndefinedGrad = UndefinedGrad
_C._functions.DelayedError = DelayedError
