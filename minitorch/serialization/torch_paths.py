"""Where minitorch's classes and functions live in torch's namespace, and
back: the names whole-model pickles carry.

A pickled model names its module classes by their defining module
(torch.nn.modules.batchnorm.BatchNorm2d) and its functions by reference
(torch.nn.functional.relu, torch._C._nn.gelu). minitorch splits its nn
modules into files of its own, so the map is generated: every Module class
defined under minitorch.nn.modules is given torch's module file by torch's
naming (`torch_file`), and the reverse map is that table read backwards. No
class is listed by hand, so a class added to minitorch.nn is mapped as soon
as it exists.
"""
import importlib
import inspect
from typing import Any, Dict, Optional, Tuple

_NN_MODULES = "minitorch.nn.modules."

# torch's nn/modules files whose classes are recognised by their names; the
# rest of torch's files match ours by stem (activation_simple -> activation)
_BY_CLASS_NAME = (
    (lambda n: n.endswith("Loss"), "loss"),
    (lambda n: "BatchNorm" in n, "batchnorm"),
    (lambda n: "Pool" in n or "Unpool" in n, "pooling"),
    (lambda n: "Conv" in n, "conv"),
    (lambda n: n.endswith(("Cell", "CellBase")), "rnn"),
    (lambda n: n.endswith(("Distance", "Similarity")), "distance"),
    (lambda n: n == "ChannelShuffle", "channelshuffle"),
    (lambda n: n == "LocalResponseNorm", "normalization"),
    (lambda n: n.endswith("Options"), "linear_cross_entropy_options"),
)


def torch_file(cls: type) -> str:
    """The torch.nn.modules file that defines torch's class of cls's name."""
    name = cls.__name__
    for matches, file in _BY_CLASS_NAME:
        if matches(name):
            return file
    return cls.__module__[len(_NN_MODULES):].split("_")[0]


_TO_TORCH: Dict[Any, Tuple[str, str]] = {}
_FROM_TORCH: Dict[Tuple[str, str], Any] = {}


def _module_classes():
    from .. import nn

    for name in nn.modules.__dict__:
        sub = getattr(nn.modules, name)
        if inspect.ismodule(sub) and sub.__name__.startswith(_NN_MODULES):
            for cls in vars(sub).values():
                if inspect.isclass(cls) and cls.__module__ == sub.__name__:
                    yield cls


def _tables() -> None:
    if _TO_TORCH:
        return
    for cls in _module_classes():
        path = ("torch.nn.modules." + torch_file(cls), cls.__qualname__)
        _TO_TORCH[cls] = path
        _FROM_TORCH.setdefault(path, cls)


def _public_function(obj) -> Optional[Tuple[str, str]]:
    """torch's name of a function minitorch exposes as torch does: F.x as
    torch.nn.functional.x, minitorch.x as torch.x."""
    import minitorch
    from ..nn import functional

    name = getattr(obj, "__name__", None)
    if not isinstance(name, str):
        return None
    for namespace, torch_name in ((functional, "torch.nn.functional"), (minitorch, "torch")):
        if getattr(namespace, name, None) is obj:
            return torch_name, name
    return None


def torch_name(obj) -> Optional[Tuple[str, str]]:
    """(module, qualname) under which torch pickles its counterpart of obj,
    or None when obj is not one of minitorch's nn classes or public
    functions."""
    _tables()
    try:
        path = _TO_TORCH.get(obj)
    except TypeError:  # unhashable
        return None
    if path is not None:
        return path
    module = getattr(obj, "__module__", None)
    if inspect.isclass(obj) and isinstance(module, str) and module.startswith("minitorch.nn."):
        return module[len("mini"):], obj.__qualname__  # nn.parameter, nn.parallel
    if callable(obj) and isinstance(module, str) and module.startswith("minitorch"):
        return _public_function(obj)
    return None


class _TorchNamespace:
    """torch._C's function tables (_nn, _VariableFunctionsClass): pickles
    name their builtins as attributes of these."""

    def __init__(self, *namespaces) -> None:
        self._namespaces = namespaces

    def __getattr__(self, name: str):
        for namespace in self._namespaces:
            found = getattr(namespace, name, None)
            if found is not None:
                return found
        raise AttributeError(f"minitorch has no counterpart of torch's builtin {name!r}")


# torch's builtin spellings that minitorch's functional names differently
_NN_BUILTIN_ALIASES = {"log_sigmoid": "logsigmoid"}


def _torch_c_namespaces() -> Dict[Tuple[str, str], Any]:
    import minitorch
    from ..nn import functional

    class _NN(_TorchNamespace):
        def __getattr__(self, name: str):
            return super().__getattr__(_NN_BUILTIN_ALIASES.get(name, name))

    return {
        ("torch._C", "_VariableFunctionsClass"): _TorchNamespace(minitorch),
        ("torch._C", "_VariableFunctions"): _TorchNamespace(minitorch),
        ("torch._C", "_nn"): _NN(functional, minitorch),
    }


def from_torch(module: str, name: str):
    """The minitorch object a pickle's GLOBAL torch name stands for, or None."""
    _tables()
    found = _FROM_TORCH.get((module, name))
    if found is not None:
        return found
    if module.startswith("torch.nn.modules."):
        from .. import nn

        cls = getattr(nn, name, None)
        if inspect.isclass(cls):
            return cls
    if module == "torch._C._nn":
        return getattr(_torch_c_namespaces()[("torch._C", "_nn")], name, None)
    found = _torch_c_namespaces().get((module, name))
    if found is not None:
        return found
    try:
        target = importlib.import_module("mini" + module)
    except ImportError:
        return None
    return getattr(target, name, None)
