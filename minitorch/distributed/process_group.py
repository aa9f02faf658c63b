"""Process groups: the default group over MPI's COMM_WORLD and the subgroups of
new_group, each an MPI communicator; init_process_group, destroy_process_group,
and the rank and size queries, with torch's signatures and messages.

MPI's launcher (mpiexec, or minitorch.distributed.run over it) decides rank and
world size. The "gloo" backend reads torch's init methods (rendezvous.py) and
checks them against MPI; the "mpi" backend reads WORLD_SIZE only to catch
processes another launcher started, which MPI would see as unrelated
one-process worlds. RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE are set
for user code that reads them, as torch's launchers set them.
"""
import os
import warnings
from datetime import timedelta
from typing import List, Optional

from . import abort, rendezvous
from ._mpi import mpi

__all__ = ["ProcessGroup", "GroupMember", "group", "Backend", "init_process_group",
           "destroy_process_group", "new_group", "is_initialized", "get_rank",
           "get_world_size", "get_node_local_rank", "get_backend", "get_process_group_ranks",
           "get_group_rank", "get_global_rank"]

_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")


class Backend(str):
    """A backend's name, lower-cased (``Backend("GLOO") == "gloo"``). Every
    backend here runs over MPI: "gloo" (and specs such as "cpu:gloo") and "mpi"
    differ only in how init_process_group reads rank and world size."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    FAKE = "fake"
    backend_list = [UNDEFINED, GLOO, NCCL, XCCL, UCC, MPI]

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError("Backend constructor parameter must be string-ish")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return super().__new__(cls, value)


def _backend_kind(backend) -> str:
    """Checks a backend spec ("gloo", "cpu:gloo", "cpu:gloo,cuda:nccl", None) and
    gives the one whose semantics the CPU follows: "gloo" or "mpi"."""
    if backend is None:
        return Backend.GLOO
    spec = Backend(backend)
    pairs = [part.split(":", 1) if ":" in part else ["cpu", part] for part in spec.split(",")]
    kind = None
    for device, name in pairs:
        if name not in Backend.backend_list or name == Backend.UNDEFINED:
            raise ValueError(f"Unknown backend type {name}")
        if name in (Backend.NCCL, Backend.UCC, Backend.XCCL):
            raise RuntimeError(f"Distributed package doesn't have {name.upper()} built in")
        if device == "cpu" or kind is None:
            kind = name
    return kind


class ProcessGroup:
    """A set of ranks that run collectives together: one MPI communicator (and a
    duplicate of it for the package's own messages, which so never meet the
    user's point-to-point tags)."""

    def __init__(self, comm, ranks: List[int], timeout: Optional[timedelta],
                 backend: str = Backend.MPI):
        self._comm = comm
        self._control = comm.Dup()
        self._ranks = ranks  # the global rank of each group rank
        self._timeout = timeout
        self._backend = backend
        self._sequence = 0
        self._pending = []  # control sends still in flight

    def rank(self) -> int:
        """This process's rank within the group."""
        return self._comm.Get_rank()

    def size(self) -> int:
        """How many ranks the group has."""
        return len(self._ranks)

    def name(self) -> str:
        """The backend's name: "gloo" or "mpi"."""
        return Backend.MPI if self._backend == Backend.MPI else Backend.GLOO

    def _next_tag(self) -> int:
        """A tag no earlier control exchange of this group used (every member
        counts the same calls), so a late message of a failed exchange is never
        taken for the next one's."""
        self._sequence += 1
        return self._sequence

    def __repr__(self):
        return f"<minitorch.distributed.ProcessGroup {self._backend} ranks={self._ranks}>"


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


def _check_mpi_launch(world_size: int, rank: int, comm) -> None:
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
    """Joins this process to the MPI job's default process group.

    With "gloo" (or None, "cpu:gloo"), rank and world size come from the init
    method as torch reads them (env:// by default: RANK, WORLD_SIZE, MASTER_ADDR
    and MASTER_PORT, as minitorch.distributed.run sets them) and must be the MPI
    job's; with "mpi", MPI alone decides."""
    if _state.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if timeout is not None and not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, "
                        f"got {timeout}")
    kind = _backend_kind(backend)
    if kind == Backend.MPI and init_method not in (None, "env://"):
        raise ValueError(f"the 'mpi' backend takes its ranks from the MPI launcher; "
                         f"init_method {init_method!r} is not supported")
    if kind == Backend.MPI:
        comm = mpi().COMM_WORLD
        _check_mpi_launch(world_size, rank, comm)
    else:
        asked = rendezvous.requested(init_method, rank, world_size, store,
                                     lambda: mpi().COMM_WORLD.Get_size())
        comm = mpi().COMM_WORLD
        rendezvous.check_against_mpi(*asked, comm)
    _publish_env(comm)
    name = Backend.UNDEFINED if backend is None else Backend(backend)
    _state.default = ProcessGroup(comm, list(range(comm.Get_size())), timeout, name)
    _state.groups = []
    abort.install()


def destroy_process_group(group: Optional[ProcessGroup] = None) -> None:
    """Frees a group's communicator; with no group, every group and the default."""
    pg = default_group()
    if group is None or group is pg:
        for sub in _state.groups:
            sub._control.Free()
            sub._comm.Free()
        pg._control.Free()
        _state.groups = []
        _state.default = None
        abort.uninstall()
        return
    if group not in _state.groups:
        raise ValueError("Invalid process group specified")
    _state.groups.remove(group)
    group._control.Free()
    group._comm.Free()


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization: bool = False, group_desc=None, device_id=None,
              sort_ranks: bool = True):
    """A group of the given global ranks. Every rank of the default group calls
    it (as torch requires); a non-member gets GroupMember.NON_GROUP_MEMBER."""
    pg = default_group()
    if backend is not None:
        _backend_kind(backend)
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
    sub = ProcessGroup(comm, ranks, timeout if timeout is not None else pg._timeout,
                       pg._backend if backend is None else Backend(backend))
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


def get_node_local_rank(fallback_rank: Optional[int] = None) -> int:
    """This process's rank on its node: LOCAL_RANK, as the launcher sets it, else
    ``fallback_rank``."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to "
                       "allow `get_node_local_rank` to work, assuming you are not running in a "
                       "multi-device context and want the code to run locally instead.")


def get_backend(group=None) -> str:
    """The backend ``group`` was made with, as torch names it: "gloo", "cpu:gloo",
    "mpi", or "undefined" for init_process_group(None)."""
    pg = resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return pg._backend


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
