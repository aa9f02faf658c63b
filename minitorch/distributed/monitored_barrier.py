"""monitored_barrier: a barrier that names the ranks that did not reach it.

Rank 0 waits (up to the timeout) for a message from every other rank, then
answers each; a rank that did not report in time is named in rank 0's error,
as torch's gloo backend names it. The messages go over the group's control
communicator with a tag of their own per call, so a late rank's message of a
failed barrier never completes a later one.
"""
import time
from datetime import timedelta

from ._mpi import mpi
from .process_group import Backend, get_backend, resolve

__all__ = ["monitored_barrier"]

_DEFAULT_TIMEOUT = timedelta(minutes=30)


def _wait(requests, deadline: float) -> list:
    """Waits until `deadline` (time.monotonic()); gives the indices of the requests
    that did not complete, cancelled."""
    MPI = mpi()
    while time.monotonic() < deadline and not MPI.Request.Testall(requests):
        time.sleep(1e-4)
    late = [i for i, r in enumerate(requests) if not r.Test()]
    for i in late:
        requests[i].Cancel()
        requests[i].Wait()
    return late


def _send(pg, dest: int, tag: int) -> None:
    """Sends a token without waiting: the request (which holds its buffer) is
    kept with the group until it completes, even when its receiver gave up."""
    pg._pending = [r for r in pg._pending if not r.Test()]
    pg._pending.append(pg._control.Isend(bytearray(1), dest=dest, tag=tag))


def monitored_barrier(group=None, timeout=None, wait_all_ranks: bool = False) -> None:
    """Blocks until every rank of the group reached it; on rank 0, raises
    RuntimeError naming the first rank (or, with ``wait_all_ranks``, every rank)
    that did not arrive within ``timeout``."""
    pg = resolve(group)
    if pg is None:
        return
    if get_backend(group) != Backend.GLOO:
        raise ValueError("monitored_barrier is only implemented for GLOO backend.")
    if timeout is not None and not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, "
                        f"got {timeout}")
    if timeout is None:
        timeout = pg._timeout if pg._timeout is not None else _DEFAULT_TIMEOUT
    ms = int(timeout.total_seconds() * 1000)
    tag, comm, rank = pg._next_tag(), pg._control, pg.rank()
    deadline = time.monotonic() + timeout.total_seconds()
    if rank != 0:
        _send(pg, 0, tag)
        if _wait([comm.Irecv(bytearray(1), source=0, tag=tag)], deadline):
            raise RuntimeError(
                f"Rank {rank} successfully reached monitoredBarrier, but received errors while "
                f"waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank."
                f"\n Original exception: \nTimed out waiting {ms}ms for recv from rank 0")
        return
    others = list(range(1, pg.size()))
    buffers = [bytearray(1) for _ in others]
    late = [others[i] for i in _wait([comm.Irecv(b, source=r, tag=tag)
                                      for r, b in zip(others, buffers)], deadline)]
    if late and wait_all_ranks:
        raise RuntimeError(f"[Rank 0]: Ranks {', '.join(map(str, late))} failed to pass "
                           f"monitoredBarrier in {ms} ms")
    if late:
        raise RuntimeError(f"[Rank 0]: Rank {late[0]} failed to pass monitoredBarrier in {ms} "
                           f"ms\n Original exception: \nTimed out waiting {ms}ms for recv "
                           f"from rank {late[0]}")
    for r in others:
        _send(pg, r, tag)
