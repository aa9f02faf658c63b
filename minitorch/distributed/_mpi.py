"""The one place mpi4py is imported: lazily, at init_process_group, so importing
minitorch never starts an MPI runtime, and with an install hint when it is missing."""

_MPI = None


def available() -> bool:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def mpi():
    """mpi4py's MPI module (initialising MPI on first use)."""
    global _MPI
    if _MPI is None:
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise RuntimeError(
                "minitorch.distributed needs mpi4py and an MPI runtime: "
                "pip install \"minitorch-c[distributed]\"") from e
        _MPI = MPI
    return _MPI
