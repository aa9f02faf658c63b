"""Tensor subclasses and modes that record the names __torch_function__ sees,
for minitorch and for torch alike."""


def recording_subclass(lib, seen):
    """A subclass of lib.Tensor whose handler appends each function's name to seen."""

    class Recorded(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    return Recorded


def recording_mode(mode_base, seen):
    """An instance of a mode_base (TorchFunctionMode) subclass that appends each
    function's name to seen."""

    class Recording(mode_base):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    return Recording()
