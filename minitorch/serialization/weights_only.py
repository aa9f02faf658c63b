"""The unpickler behind minitorch.load(weights_only=True), and the user's
allow list (add_safe_globals and friends).

It is the pure-Python unpickler with the opcodes that can call code narrowed
down: GLOBAL/STACK_GLOBAL resolve only names of the allow list
(torch_names.allowed_globals) or the user's safe globals, REDUCE and NEWOBJ
only call what those resolved to (never a tensor class: called with a size,
it would allocate what the file never held), BUILD only sets state on
OrderedDicts,
tensors and instances of user-allowed classes, and INST, OBJ, the extension
registry and text persistent ids are refused outright. The pure-Python
unpickler is used because the C one cannot narrow BUILD; checkpoints keep
tensor bytes in separate records, so the pickle it reads is small.
"""
import pickle
import pickletools
from typing import Any, Callable, Dict, List, Tuple, Union

from .._tensor import Tensor
from .torch_names import allowed_globals, unsupported_torch_kind
from .torch_paths import torch_name

# what the pure-Python unpickler raises on a malformed stream
_MALFORMED = (EOFError, IndexError, KeyError, ValueError, TypeError, AttributeError,
              OverflowError)
SafeGlobal = Union[Callable, Tuple[Callable, str]]
_user_globals: List[SafeGlobal] = []


def add_safe_globals(safe_globals: List[SafeGlobal]) -> None:
    """Marks globals (or (global, "module.name") pairs) as safe for
    weights_only loads: they may then be called, instantiated and have
    state set while unpickling."""
    _user_globals.extend(safe_globals)


def get_safe_globals() -> List[SafeGlobal]:
    """The globals the user marked safe for weights_only loads."""
    return list(_user_globals)


def clear_safe_globals() -> None:
    """Forgets every global the user marked safe."""
    _user_globals.clear()


class safe_globals:
    """Context manager that marks globals safe for weights_only loads only
    inside its block."""

    def __init__(self, safe_globals: List[SafeGlobal]) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        self.saved = list(_user_globals)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc) -> None:
        _user_globals[:] = self.saved


def _user_allowed() -> Dict[str, Any]:
    out = {}
    for g in _user_globals:
        if isinstance(g, tuple) and len(g) == 2 and isinstance(g[1], str):
            out[g[1]] = g[0]
        else:
            out[f"{g.__module__}.{g.__qualname__}"] = g
            # checkpoints name minitorch's nn classes and functions by torch's names
            path = torch_name(g)
            if path is not None:
                out[".".join(path)] = g
    return out


def _is_allowed(obj) -> bool:
    return (any(obj is v for v in allowed_globals().values())
            or any(obj is v for v in _user_allowed().values()))


def _is_tensor_class(obj) -> bool:
    # allowed as names (_rebuild_from_type_v2's type) but never called: a
    # tensor class called with a size allocates what the file never held
    return isinstance(obj, type) and issubclass(obj, Tensor)


def unsafe_globals(pkl: bytes) -> List[str]:
    """The GLOBAL names in a pickle that WeightsUnpickler would refuse, in
    order of appearance, found by reading its opcodes (nothing is run)."""
    allowed = set(allowed_globals()) | set(_user_allowed())
    found: List[str] = []
    try:
        for op, arg, _ in pickletools.genops(pkl):
            if op.name == "GLOBAL":
                module, name = arg.split(" ", 1)
                full = f"{'builtins' if module == '__builtin__' else module}.{name}"
                if full not in allowed and full not in found:
                    found.append(full)
    except ValueError as e:
        raise pickle.UnpicklingError(f"malformed pickle ({e})") from None
    return found


class WeightsUnpickler(pickle._Unpickler):
    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, file, persistent_load: Callable) -> None:
        super().__init__(file, encoding="utf-8")
        self._persistent = persistent_load

    def persistent_load(self, pid):
        return self._persistent(pid)

    def load(self):
        try:
            return super().load()
        except _MALFORMED as e:
            raise pickle.UnpicklingError(f"malformed pickle ({type(e).__name__}: {e})") from None

    def find_class(self, module: str, name: str):
        if module == "__builtin__":
            module = "builtins"
        full = f"{module}.{name}"
        if full in allowed_globals():
            return allowed_globals()[full]
        user = _user_allowed()
        if full in user:
            return user[full]
        kind = unsupported_torch_kind(full)
        if kind is not None:
            raise RuntimeError(f"minitorch.load: minitorch cannot load {kind}")
        shown = full[len("builtins."):] if full.startswith("builtins.") else full
        raise pickle.UnpicklingError(
            f"Unsupported global: GLOBAL {shown} was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{shown}])` or the "
            f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this "
            "global if you trust this class/function.")

    def load_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if not _is_allowed(func) or _is_tensor_class(func):
            raise pickle.UnpicklingError(f"Trying to call reduce for unrecognized function {func}")
        if not isinstance(args, tuple):
            raise pickle.UnpicklingError("REDUCE needs a tuple of arguments")
        self.stack[-1] = func(*args)
    dispatch[pickle.REDUCE[0]] = load_reduce

    def _new(self, cls, args, kwargs):
        from ..nn import Parameter

        if not isinstance(args, tuple) or not isinstance(kwargs, dict):
            raise pickle.UnpicklingError("NEWOBJ needs a tuple of arguments")
        if cls is Parameter:
            return Parameter(*args, **kwargs)
        if isinstance(cls, type) and _is_allowed(cls) and not _is_tensor_class(cls):
            return cls.__new__(cls, *args, **kwargs)
        raise pickle.UnpicklingError(
            "Can only create new object for nn.Parameter or classes allowlisted via "
            f"`add_safe_globals` but got {cls}")

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._new(cls, args, {}))
    dispatch[pickle.NEWOBJ[0]] = load_newobj

    def load_newobj_ex(self):
        kwargs = self.stack.pop()
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._new(cls, args, kwargs))
    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex

    def load_build(self):
        from collections import OrderedDict

        state = self.stack.pop()
        inst = self.stack[-1]
        kind = type(inst)
        if kind is OrderedDict or isinstance(inst, Tensor):
            if not isinstance(state, dict) or not all(
                    isinstance(k, str) and not k.startswith("__") for k in state):
                raise pickle.UnpicklingError(f"Invalid state for {kind.__name__} in BUILD")
            if kind is OrderedDict:
                inst.__dict__.update(state)
            else:
                for k, v in state.items():
                    setattr(inst, k, v)
        elif any(kind is v for v in _user_allowed().values()):
            setstate = getattr(inst, "__setstate__", None)
            if setstate is not None:
                setstate(state)
            else:
                inst.__dict__.update(state)
        else:
            raise pickle.UnpicklingError(
                "Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                f"`add_safe_globals`, but got {kind}")
    dispatch[pickle.BUILD[0]] = load_build

    for _code in (pickle.INST, pickle.OBJ, pickle.EXT1, pickle.EXT2, pickle.EXT4,
                  pickle.PERSID):
        dispatch[_code[0]] = lambda self, _c=_code[0]: _refuse_code(_c)
    del _code


def _refuse_code(code: int) -> None:
    raise pickle.UnpicklingError(f"Unsupported operand {code}")
