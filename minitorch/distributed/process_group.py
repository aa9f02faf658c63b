"""Process groups: the default group over MPI's COMM_WORLD and the subgroups of
new_group, each an MPI communicator; init_process_group, destroy_process_group,
and the rank and size queries, with torch's signatures and messages.

MPI's launcher (mpiexec) decides rank and world size. torch's launcher
variables (RANK, WORLD_SIZE, LOCAL_RANK) are read to catch processes started by
another launcher, which MPI would see as unrelated one-process worlds, and are
set for user code that reads them, as torch's launchers set them.
"""
import os
import warnings
from datetime import timedelta
from typing import List, Optional

from . import abort
from ._mpi import mpi

__all__ = ["ProcessGroup", "GroupMember", "group", "Backend", "init_process_group",
           "destroy_process_group", "new_group", "is_initialized", "get_rank",
           "get_world_size", "get_backend", "get_process_group_ranks", "get_group_rank",
           "get_global_rank"]

_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")


class Backend(str):
    MPI = "mpi"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, got {type(name)}")
        value = name.lower()
        if value != cls.MPI:
            raise ValueError(f"minitorch.distributed has only the 'mpi' backend, got {name!r}")
        return super().__new__(cls, value)


class ProcessGroup:
    """A set of ranks that run collectives together: one MPI communicator."""

    def __init__(self, comm, ranks: List[int], timeout: Optional[timedelta]):
        self._comm = comm
        self._ranks = ranks  # the global rank of each group rank
        self._timeout = timeout

    def rank(self) -> int:
        """This process's rank within the group."""
        return self._comm.Get_rank()

    def size(self) -> int:
        """How many ranks the group has."""
        return len(self._ranks)

    def name(self) -> str:
        """The backend's name: "mpi"."""
        return Backend.MPI

    def __repr__(self):
        return f"<minitorch.distributed.ProcessGroup mpi ranks={self._ranks}>"


class GroupMember:
    """``WORLD``, the default group, and ``NON_GROUP_MEMBER``, what new_group gives
    a rank outside the group."""
    NON_GROUP_MEMBER = -100

    class _World:
        def __get__(self, obj, owner):
            return _state.default

    WORLD = _World()


group = GroupMember


class _State:
    default: Optional[ProcessGroup] = None
    groups: List[ProcessGroup] = []


_state = _State()


def is_initialized() -> bool:
    """Whether init_process_group has run (and destroy_process_group has not)."""
    return _state.default is not None


def default_group() -> ProcessGroup:
    if _state.default is None:
        raise ValueError(_NOT_INITIALIZED)
    return _state.default


def resolve(group) -> Optional[ProcessGroup]:
    """The group a call runs on; None when this rank is not a member."""
    pg = default_group()
    if group is None:
        return pg
    if isinstance(group, ProcessGroup):
        if group is not pg and group not in _state.groups:
            raise ValueError("Invalid process group specified")
        return group
    if group == GroupMember.NON_GROUP_MEMBER:
        return None
    raise ValueError(f"Group {group} is not registered, please create group with "
                     "torch.distributed.new_group API")


def _int_env(name: str) -> Optional[int]:
    value = os.environ.get(name)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: "
                         f"environment variable {name} expected, but not set") from None


def _check_launch(world_size: int, rank: int, comm) -> None:
    env_size = _int_env("WORLD_SIZE")
    if env_size is not None and env_size > 1 and comm.Get_size() == 1:
        raise RuntimeError(
            f"WORLD_SIZE={env_size} but MPI started this process alone: the 'mpi' backend "
            f"takes its ranks from the MPI launcher; start the job with "
            f"`mpiexec -n {env_size} python ...`")
    if world_size != -1 or rank != -1:
        warnings.warn(f"For MPI backend, world_size ({world_size}) and rank ({rank}) are "
                      f"ignored since they are assigned by the MPI runtime.")


def _publish_env(comm) -> None:
    node = comm.Split_type(mpi().COMM_TYPE_SHARED)
    local_rank, local_size = node.Get_rank(), node.Get_size()
    node.Free()
    for name, value in (("RANK", comm.Get_rank()), ("WORLD_SIZE", comm.Get_size()),
                        ("LOCAL_RANK", local_rank), ("LOCAL_WORLD_SIZE", local_size)):
        os.environ.setdefault(name, str(value))


def init_process_group(backend: Optional[str] = None, init_method: Optional[str] = None,
                       timeout: Optional[timedelta] = None, world_size: int = -1,
                       rank: int = -1, store=None, group_name: str = "", pg_options=None,
                       device_id=None) -> None:
    """Joins this process to the MPI job's default process group."""
    if _state.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if backend is not None:
        Backend(backend)
    if init_method not in (None, "env://"):
        raise ValueError(f"the 'mpi' backend takes its ranks from the MPI launcher; "
                         f"init_method {init_method!r} is not supported")
    if timeout is not None and not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, "
                        f"got {timeout}")
    comm = mpi().COMM_WORLD
    _check_launch(world_size, rank, comm)
    _publish_env(comm)
    _state.default = ProcessGroup(comm, list(range(comm.Get_size())), timeout)
    _state.groups = []
    abort.install()


def destroy_process_group(group: Optional[ProcessGroup] = None) -> None:
    """Frees a group's communicator; with no group, every group and the default."""
    pg = default_group()
    if group is None or group is pg:
        for sub in _state.groups:
            sub._comm.Free()
        _state.groups = []
        _state.default = None
        abort.uninstall()
        return
    if group not in _state.groups:
        raise ValueError("Invalid process group specified")
    _state.groups.remove(group)
    group._comm.Free()


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization: bool = False, group_desc=None, device_id=None,
              sort_ranks: bool = True):
    """A group of the given global ranks. Every rank of the default group calls
    it (as torch requires); a non-member gets GroupMember.NON_GROUP_MEMBER."""
    pg = default_group()
    if backend is not None:
        Backend(backend)
    world = pg.size()
    if ranks is None:
        ranks = list(range(world))
    ranks = list(ranks)
    if len(ranks) > world:
        raise ValueError("the new group's world size should be less or equal to the world "
                         "size set by init_process_group")
    for r in ranks:
        if not isinstance(r, int) or r < 0 or r >= world:
            raise ValueError("The new group's rank should be within the world_size set by "
                             "init_process_group")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: ranks must be unique, got {ranks}")
    if sort_ranks:
        ranks = sorted(ranks)
    members = pg._comm.Get_group().Incl(ranks)
    comm = pg._comm.Create(members)
    members.Free()
    if comm == mpi().COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    sub = ProcessGroup(comm, ranks, timeout if timeout is not None else pg._timeout)
    _state.groups.append(sub)
    return sub


def get_rank(group=None) -> int:
    """This process's rank in ``group`` (default: the world); -1 outside it."""
    pg = resolve(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group=None) -> int:
    """The number of ranks in ``group`` (default: the world); -1 outside it."""
    pg = resolve(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None) -> str:
    """The backend of ``group``: "mpi"."""
    pg = resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return Backend.MPI


def get_process_group_ranks(group) -> List[int]:
    """The global ranks of ``group``'s members, in group-rank order."""
    pg = resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return list(pg._ranks)


def get_group_rank(group, global_rank: int) -> int:
    """The rank within ``group`` of the process with global rank ``global_rank``."""
    pg = resolve(group)
    if pg is None or global_rank not in pg._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return pg._ranks.index(global_rank)


def get_global_rank(group, group_rank: int) -> int:
    """The global rank of the process with rank ``group_rank`` in ``group``."""
    pg = resolve(group)
    if pg is None or not 0 <= group_rank < pg.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return pg._ranks[group_rank]
