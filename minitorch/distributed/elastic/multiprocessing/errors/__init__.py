"""``record``, the decorator torchrun scripts put on their main function.

torch's writes the exception to the error file its elastic agent reads; there
is no agent here (a rank's uncaught exception ends the MPI job and its
traceback reaches the launcher's stderr), so it keeps torch's other behaviour:
the exception propagates, and ``sys.exit(0)`` inside the function returns None.
"""
from functools import wraps

__all__ = ["record"]


def record(fn, error_handler=None):
    """Runs ``fn``; an exception it raises propagates, a ``SystemExit`` with
    code 0 becomes a return of None."""
    @wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except SystemExit as exit_:
            if exit_.code == 0:
                return None
            raise
    return wrapper
