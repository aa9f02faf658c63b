"""How init_process_group learns this process's rank and the world size.

torch's init methods are read as torch reads them (env:// from the variables
torchrun sets, tcp:// and file:// from the rank and world_size arguments or the
URL's query, a store with explicit rank and world_size), with torch's errors.
No connection is made from them: MPI's launcher already connected the
processes, so the answer is checked against the MPI job instead, which catches
processes that another launcher started (each would be a one-process MPI world).
"""
import os
from typing import Optional, Tuple
from urllib.parse import parse_qs, urlparse

_LAUNCH_HINT = ("minitorch.distributed connects its processes through MPI: start them with "
                "`python -m minitorch.distributed.run --nproc_per_node {n} script.py` "
                "(torchrun's flags) or `mpiexec -n {n} python script.py`")


def _env(name: str) -> str:
    value = os.environ.get(name)
    if value is None:
        raise ValueError("Error initializing torch.distributed using env:// rendezvous: "
                         f"environment variable {name} expected, but not set")
    return value


def _from_query(url, name: str, given: int) -> Optional[int]:
    if given != -1:
        return given
    values = parse_qs(url.query).get(name)
    return int(values[0]) if values else None


def _read_env(url, rank: int, world_size: int, mpi_size) -> Tuple[int, int]:
    rank = _from_query(url, "rank", rank)
    world_size = _from_query(url, "world_size", world_size)
    if rank is None and world_size is None and "RANK" not in os.environ and mpi_size() > 1:
        # started by a bare `mpiexec -n N`: MPI's launcher is the rendezvous
        return -1, -1
    if rank is None:
        rank = int(_env("RANK"))
    if world_size is None:
        world_size = int(_env("WORLD_SIZE"))
    _env("MASTER_ADDR")
    int(_env("MASTER_PORT"))
    return rank, world_size


def _read_given(url, scheme: str, rank: int, world_size: int) -> Tuple[int, int]:
    rank = _from_query(url, "rank", rank)
    world_size = _from_query(url, "world_size", world_size)
    if rank is None:
        raise ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: "
                         "rank parameter missing")
    if world_size is None:
        raise ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: "
                         "world size parameter missing")
    return rank, world_size


def requested(init_method: Optional[str], rank: int, world_size: int, store,
              mpi_size) -> Tuple[int, int]:
    """The (rank, world_size) the caller's init method names; (-1, -1) when the
    MPI launcher alone decides. `mpi_size()` gives the MPI job's size (it starts
    MPI, so it is asked only when the environment does not say)."""
    if store is not None:
        if init_method is not None:
            raise ValueError("Cannot specify both init_method and store.")
        if world_size <= 0:
            raise ValueError("world_size must be positive if using store")
        if rank < 0:
            raise ValueError("rank must be non-negative if using store")
        return rank, world_size
    url = urlparse("env://" if init_method is None else init_method)
    if url.scheme == "env":
        return _read_env(url, rank, world_size, mpi_size)
    if url.scheme in ("tcp", "file"):
        return _read_given(url, url.scheme, rank, world_size)
    raise RuntimeError(f"No rendezvous handler for {url.scheme}://")


def check_against_mpi(rank: int, world_size: int, comm) -> None:
    """Refuses a rank or world size the MPI job does not have."""
    if rank == -1 and world_size == -1:
        return
    mpi_rank, mpi_size = comm.Get_rank(), comm.Get_size()
    if world_size != mpi_size:
        if mpi_size == 1:
            raise RuntimeError(f"world size {world_size} but this process is alone in its MPI "
                               f"job; " + _LAUNCH_HINT.format(n=world_size))
        raise RuntimeError(f"world size {world_size} but the MPI job has {mpi_size} processes; "
                           + _LAUNCH_HINT.format(n=world_size))
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                         f"[0, {world_size - 1}]")
    if rank != mpi_rank:
        raise RuntimeError(f"rank {rank} is MPI rank {mpi_rank} of the job: the launcher's "
                           f"RANK must be the MPI rank; " + _LAUNCH_HINT.format(n=world_size))
