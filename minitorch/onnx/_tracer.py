"""Records a model's run as ONNX nodes: a TorchFunctionMode that sees every
call at the level torch users write (torch functions, nn.functional, Tensor
methods). A call with an ONNX mapping is recorded once, as the outermost
mapped call (the mode is off inside it); an unmapped call is run with the mode
on, so that a composite written in Python (its ``__wrapped__`` body, past its
own dispatch) is recorded through the calls it makes. A call on no
live tensor is folded: its result becomes a constant."""
from ..overrides import TorchFunctionMode, resolve_name
from . import _symbolic

import minitorch


def tensors_in(obj):
    """The tensors in nested tuples, lists and dicts, in order."""
    if isinstance(obj, minitorch.Tensor):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [t for item in obj for t in tensors_in(item)]
    if isinstance(obj, dict):
        return [t for item in obj.values() for t in tensors_in(item)]
    return []


def public_name(func) -> str:
    name = resolve_name(func)
    return "minitorch" + name[len("torch"):] if name.startswith("torch") else name


def _mutates(name: str) -> bool:
    short = name.rsplit(".", 1)[-1]
    return (short.endswith("_") and not short.endswith("__")) or short in (
        "__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__")


class Tracer(TorchFunctionMode):
    def __init__(self, graph):
        self.graph = graph

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        g = self.graph
        live = any(g.is_live(t) for t in tensors_in((args, kwargs)))
        if not live:
            return func(*args, **kwargs)
        name = resolve_name(func)
        handler = _symbolic.lookup(name)
        if handler is not None:
            result = func(*args, **kwargs)
            if not tensors_in(result):  # x.type() names the type: nothing to record
                return result
            try:
                outs = handler(g, result, *args, **kwargs)
            except _symbolic.Unsupported:
                pass
            else:
                for t, out in zip(tensors_in(result), [outs] if isinstance(outs, str) else outs):
                    g.bind(t, out)
                return result
        if _mutates(name):
            raise self._unmapped(func)
        body = getattr(func, "__wrapped__", None)
        if body is None:
            # a query (dim, size, numel) is read as a Python value of the traced run
            result = func(*args, **kwargs)
            if tensors_in(result):
                raise self._unmapped(func)
            return result
        with self:
            result = body(*args, **kwargs)
        if not all(g.is_live(t) for t in tensors_in(result)):
            raise self._unmapped(func)
        return result

    @staticmethod
    def _unmapped(func):
        return RuntimeError("minitorch.onnx.export: no ONNX mapping for '%s'" % public_name(func))
