"""What every operation shares: argument checks in torch's words, the MPI
reduction for a ReduceOp and dtype, src/dst ranks, starting the MPI call
(blocking or not), and running its Work to completion unless the caller asked
for async_op."""
from .. import _C
from .._tensor import Tensor
from ._mpi import mpi
from .process_group import ProcessGroup, get_group_rank, resolve
from .reduce_op import ReduceOp
from .work import Work

_INTEGRAL = (_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64)
# bool reduces logically: torch's SUM and MAX of bools are OR, PRODUCT and MIN are AND.
_BOOL_OPS = {ReduceOp.SUM: "LOR", ReduceOp.MAX: "LOR", ReduceOp.BOR: "LOR",
             ReduceOp.PRODUCT: "LAND", ReduceOp.MIN: "LAND", ReduceOp.BAND: "LAND",
             ReduceOp.BXOR: "LXOR"}
_OPS = {ReduceOp.SUM: "SUM", ReduceOp.AVG: "SUM", ReduceOp.PRODUCT: "PROD",
        ReduceOp.MIN: "MIN", ReduceOp.MAX: "MAX", ReduceOp.BAND: "BAND", ReduceOp.BOR: "BOR",
        ReduceOp.BXOR: "BXOR"}


def check_tensor(value, name: str) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"torch.Tensor\n             but got {type(value)} instead.")


def members(group, **tensors):
    """Checks the tensor arguments, then gives the group the call runs on (None
    when this rank is not in it)."""
    for name, value in tensors.items():
        check_tensor(value, name)
    return resolve(group)


def check_tensor_list(value, name: str) -> None:
    if not isinstance(value, list) or not all(isinstance(t, Tensor) for t in value):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"List[torch.Tensor]\n             but got {type(value)} instead.")


def mpi_op(op, dtype):
    """The MPI reduction for a ReduceOp on tensors of `dtype`."""
    if not isinstance(op, ReduceOp.RedOpType):
        raise TypeError(f"op must be a minitorch.distributed.ReduceOp, got {op!r}")
    if dtype == _C.bool:
        if op == ReduceOp.AVG:
            raise RuntimeError("result type Float can't be cast to the desired output type Bool")
        return getattr(mpi(), _BOOL_OPS[op])
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and dtype not in _INTEGRAL:
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    return getattr(mpi(), _OPS[op])


def average(tensor, op, pg: ProcessGroup) -> None:
    """AVG is SUM divided by the group size (integers truncate, as C division)."""
    if op != ReduceOp.AVG:
        return
    if tensor.dtype in _INTEGRAL:
        tensor.div_(pg.size(), rounding_mode="trunc")
    else:
        tensor.div_(pg.size())


def root_rank(pg: ProcessGroup, name: str, global_root, group_root, what: str) -> int:
    """The group rank of a src/dst given as a global rank or as a group rank."""
    if global_root is not None and group_root is not None:
        raise ValueError(f"Can not specify both {what} and group_{what}")
    if group_root is None:
        global_root = 0 if global_root is None else global_root
        if pg._ranks == list(range(len(pg._ranks))):
            group_root = global_root
        else:
            group_root = get_group_rank(pg, global_root)
    if not isinstance(group_root, int) or not 0 <= group_root < pg.size():
        raise RuntimeError(f"ProcessGroupMPI::{name}: invalid root rank: {group_root}")
    return group_root


def start(pg: ProcessGroup, async_op: bool, call: str, *args, **kwargs) -> list:
    """Runs the MPI collective `call` (mpi4py's name of the blocking form): its
    nonblocking form when the caller waits later or with a timeout, returning the
    request; else the blocking form, which MPI serves with its fastest algorithms."""
    if async_op or pg._timeout is not None:
        return [getattr(pg._comm, "I" + call.lower())(*args, **kwargs)]
    getattr(pg._comm, call)(*args, **kwargs)
    return []


def run(name: str, pg: ProcessGroup, requests, async_op: bool, finish=None, result=(),
        keep=(), status=None):
    work = Work(name, pg, requests, finish, result, keep, status)
    if async_op:
        return work
    work.wait()
    return None
