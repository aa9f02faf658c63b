"""Dispatch: what __torch_function__ support costs for subclasses, duck types and plain tensors."""
import numpy as np

from harness import Case, Ratio, Variant

GROUP = "dispatch"


def _subclass_add(lib):
    if lib is np:
        class S(np.ndarray):
            pass
        x = np.ones(1, np.float32).view(S)
    else:
        S = type("S", (lib.Tensor,), {})  # class S(Tensor): pass
        x = lib.ones(1).as_subclass(S)
    return "x + y", {"x": x, "y": x.copy() if lib is np else x.clone()}


def _plain_add(lib):
    return "x + y", {"x": lib.ones(1), "y": lib.ones(1)}


def _torch_duck():
    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return 42
    return Duck


class _ArrayDuck:
    def __array_function__(self, func, types, args, kwargs):
        return 42


def _cat(lib):
    if lib is np:
        return "np.concatenate([d])", {"np": np, "d": _ArrayDuck()}
    return "cat([d])", {"cat": lib.cat, "d": _torch_duck()()}


def _cat_handler(lib):
    """The handler alone, called as the dispatcher calls it; subtracted from the cat() time."""
    if lib is np:
        d = _ArrayDuck()
        return ("h(f, types, args, kw)",
                {"h": d.__array_function__, "f": np.concatenate, "types": (_ArrayDuck,),
                 "args": ([d],), "kw": {}})
    duck = _torch_duck()
    return ("h(f, types, args, kw)",
            {"h": duck.__torch_function__, "f": getattr(lib, "cat", None), "types": (duck,),
             "args": ([duck()],), "kw": {}})


def _method(stmt):
    return lambda lib: (stmt, {"x": lib.ones(1), "y": lib.ones(1), "lib": lib})


def cases():
    subclass = Case(
        GROUP, "class S(Tensor): pass; add of 1-element S",
        [Variant("minitorch", "minitorch", _subclass_add),
         Variant("minitorch plain Tensor", "minitorch", _plain_add),
         Variant("numpy ndarray subclass", "numpy", _subclass_add),
         Variant("torch", "torch", _subclass_add),
         Variant("torch plain Tensor", "torch", _plain_add)],
        [Ratio("minitorch S / minitorch Tensor", "minitorch", "minitorch plain Tensor", 1.3),
         Ratio("minitorch S / torch S", "minitorch", "torch", 0.35),
         Ratio("minitorch S / numpy subclass", "minitorch", "numpy ndarray subclass")])
    duck = Case(
        GROUP, "duck type with a constant handler: cat([d]) overhead",
        [Variant("minitorch", "minitorch", _cat),
         Variant("minitorch handler alone", "minitorch", _cat_handler),
         Variant("numpy", "numpy", _cat),
         Variant("numpy handler alone", "numpy", _cat_handler),
         Variant("torch", "torch", _cat),
         Variant("torch handler alone", "torch", _cat_handler)],
        [Ratio("minitorch overhead / numpy overhead", ("minitorch", "minitorch handler alone"),
               ("numpy", "numpy handler alone"), 1.0),
         Ratio("minitorch overhead / torch overhead", ("minitorch", "minitorch handler alone"),
               ("torch", "torch handler alone"))],
        notes=["overhead = cat([d]) time minus a bare Python call of the same handler; NumPy: "
               "np.concatenate([d]) with __array_function__ returning a constant"])
    plain = Case(
        GROUP, "plain tensors: cost of the dispatch check",
        [Variant("minitorch x + y", "minitorch", _method("x + y")),
         Variant("minitorch add(x, y)", "minitorch", _method("lib.add(x, y)")),
         Variant("minitorch x.dim()", "minitorch", _method("x.dim()")),
         Variant("torch x + y", "torch", _method("x + y")),
         Variant("torch add(x, y)", "torch", _method("lib.add(x, y)")),
         Variant("torch x.dim()", "torch", _method("x.dim()"))],
        [Ratio("x + y minitorch/torch", "minitorch x + y", "torch x + y"),
         Ratio("add(x, y) minitorch/torch", "minitorch add(x, y)", "torch add(x, y)"),
         Ratio("x.dim() minitorch/torch", "minitorch x.dim()", "torch x.dim()"),
         Ratio("minitorch x + y / x.dim()", "minitorch x + y", "minitorch x.dim()"),
         Ratio("torch x + y / x.dim()", "torch x + y", "torch x.dim()")],
        notes=["Skipping the dispatch check is impossible from Python, so its cost is bounded: "
               "x.dim() runs the same parse + __torch_function__ check with no kernel and no "
               "allocation; 1-element add minus x.dim() is the kernel and allocation share. "
               "The check itself is one pointer compare per operand (not measurable here)."])
    return [subclass, duck, plain]
