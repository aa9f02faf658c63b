"""minitorch.distributed: torch.distributed's API on MPI (through mpi4py).

    python -m minitorch.distributed.run --nproc_per_node 2 train.py
    # each rank: dist.init_process_group("gloo"), as under torchrun

or ``mpiexec -n 2 python train.py`` with ``init_process_group("mpi")``.
mpi4py is an optional extra (pip install "minitorch-c[distributed]" also brings
MPICH); importing this package never starts MPI, init_process_group does.
"""
import os

from . import _mpi
from .all_to_all import all_to_all, all_to_all_single  # noqa: F401
from .collectives import (  # noqa: F401
    all_gather, all_gather_into_tensor, all_reduce, barrier, broadcast, gather, reduce,
    reduce_scatter_tensor, scatter,
)
from .monitored_barrier import monitored_barrier  # noqa: F401
from .objects import (  # noqa: F401
    all_gather_object, broadcast_object_list, gather_object, scatter_object_list,
)
from .p2p import irecv, isend, recv, send  # noqa: F401
from .process_group import (  # noqa: F401
    Backend, GroupMember, ProcessGroup, destroy_process_group, get_backend, get_global_rank,
    get_group_rank, get_node_local_rank, get_process_group_ranks, get_rank, get_world_size,
    group, init_process_group, is_initialized, new_group,
)
from .reduce_op import ReduceOp  # noqa: F401
from .work import DistBackendError, DistError, Work  # noqa: F401


def is_available() -> bool:
    """True when mpi4py, the backend's transport, can be imported."""
    return _mpi.available()


def is_mpi_available() -> bool:
    """Whether mpi4py and an MPI runtime can be loaded."""
    return _mpi.available()


def is_gloo_available() -> bool:
    """Whether the "gloo" backend can run: it runs over MPI here."""
    return _mpi.available()


def is_nccl_available() -> bool:
    """False: there is no NCCL (no CUDA) in minitorch."""
    return False


def is_torchelastic_launched() -> bool:
    """Whether this process was started by minitorch.distributed.run (torchrun)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None
