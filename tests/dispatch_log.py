"""A dispatch mode that records the ops it sees and runs them unchanged, over
either library's TorchDispatchMode (tests compare what each one sees)."""


def log_mode(base, name=lambda func: func.__name__):
    """A subclass of base whose instances append name(func) to .ops per call."""
    class Log(base):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(name(func))
            return func(*args, **(kwargs or {}))
    return Log
