"""Tensor subclasses and modes that record the names __torch_function__ sees,
and a dispatch mode that records the ops below autograd, for minitorch and for
torch alike."""


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


def log_mode(base, name=lambda func: func.__name__):
    """A subclass of base (a TorchDispatchMode) whose instances append
    name(func) to .ops for each op they see and run it unchanged."""

    class Log(base):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(name(func))
            return func(*args, **(kwargs or {}))

    return Log
