"""A rank that dies of an uncaught exception aborts the whole MPI job.

Without this, the other ranks would wait forever in their next collective for a
rank that is gone. The hook prints the traceback as Python would, then calls
MPI_Abort on COMM_WORLD, which makes the launcher end every rank.
"""
import sys
import time

_previous = None


def _abort_on_exception(kind, value, tb):
    _previous(kind, value, tb)
    sys.stderr.flush()
    sys.stdout.flush()
    # the launcher forwards a rank's output from a pipe and ends the job at
    # the abort: give it a moment to pass the traceback on, which an abort
    # right away cut short (the user saw its first line only)
    time.sleep(0.5)
    from ._mpi import mpi
    mpi().COMM_WORLD.Abort(1)


def install() -> None:
    global _previous
    if _previous is None:
        _previous = sys.excepthook
        sys.excepthook = _abort_on_exception


def uninstall() -> None:
    global _previous
    if _previous is not None:
        sys.excepthook = _previous
        _previous = None
