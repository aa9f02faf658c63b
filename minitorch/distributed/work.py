"""Work: the handle of a collective or point-to-point operation in flight.

An async operation holds nonblocking MPI requests; a blocking one has run when
its Work is made (no requests) and is waited for at once. `finish` runs once,
after the requests complete: it
copies staged results back into the caller's tensors (a non-contiguous tensor,
or a float16/bfloat16 one reduced in float32) and applies AVG's division.
"""
import time

from ._mpi import mpi

__all__ = ["Work", "DistError", "DistBackendError"]


class DistError(RuntimeError):
    """An error of the distributed package."""


class DistBackendError(DistError):
    """An error of the communication backend (here MPI), such as a timeout."""


class Work:
    """The handle an ``async_op=True`` operation returns: ``wait()`` for it, or poll
    ``is_completed()``."""

    def __init__(self, name, group, requests, finish=None, result=(), keep=(), status=None):
        self._name = name
        self._group = group
        self._requests = list(requests)
        self._finish = finish
        self._result = list(result)
        # Buffers MPI reads or writes until the requests complete.
        self._keep = keep
        self._status = status
        self._done = False

    def _complete(self):
        self._done = True
        self._requests = []
        self._keep = ()
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()

    def wait(self, timeout=None) -> bool:
        """Blocks until the operation completes, or raises DistBackendError after
        `timeout` (a timedelta; default: the group's timeout, else no limit)."""
        if self._done:
            return True
        MPI = mpi()
        limit = timeout if timeout is not None else self._group._timeout
        statuses = [self._status] if self._status is not None else None
        if limit is None:
            MPI.Request.Waitall(self._requests, statuses)
        else:
            deadline = time.monotonic() + limit.total_seconds()
            while not MPI.Request.Testall(self._requests, statuses):
                if time.monotonic() > deadline:
                    raise DistBackendError(
                        f"Timed out waiting {limit.total_seconds() * 1000:.0f}ms for "
                        f"{self._name} to complete")
                time.sleep(1e-4)
        self._complete()
        return True

    def is_completed(self) -> bool:
        """Whether the operation has finished (without blocking)."""
        if not self._done:
            statuses = [self._status] if self._status is not None else None
            if mpi().Request.Testall(self._requests, statuses):
                self._complete()
        return self._done

    def is_success(self) -> bool:
        """Whether the operation finished; a failed MPI operation raises instead."""
        return self.is_completed()

    def exception(self):
        """None: failures raise from wait()."""
        return None

    def source_rank(self) -> int:
        """A finished receive's sender, as a global rank."""
        self.wait()
        return self._group._ranks[self._status.Get_source()]

    def result(self) -> list:
        """Waits, then returns the output tensors of the operation."""
        self.wait()
        return self._result

    def __repr__(self):
        return f"<Work {self._name} {'completed' if self._done else 'pending'}>"
