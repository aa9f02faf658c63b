"""The collectives, with torch's signatures: each checks its arguments, stages
the tensors (buffers.py), runs one MPI operation (launch.start), and returns a Work
when async_op is set, else finishes it and returns None.

A rank outside `group` returns None at once, as torch's collectives do.
"""
from .. import _C
from ._mpi import mpi
from .buffers import Staged, raw
from .common import average, check_tensor_list, members, mpi_op, root_rank, run, start
from .process_group import resolve
from .reduce_op import ReduceOp

__all__ = ["barrier", "broadcast", "all_reduce", "reduce", "all_gather",
           "all_gather_into_tensor", "reduce_scatter_tensor", "gather", "scatter"]

_empty = _C._functions["empty"]


def _check_same(name: str, expected, tensors) -> None:
    for i, t in enumerate(tensors):
        if t.dtype != expected.dtype:
            raise RuntimeError(f"ProcessGroupMPI::{name}: invalid tensor type at index {i} "
                               f"(expected {expected.dtype}, got {t.dtype})")
        if t.shape != expected.shape:
            raise RuntimeError(f"ProcessGroupMPI::{name}: invalid tensor size at index {i} "
                               f"(expected {tuple(expected.shape)}, got {tuple(t.shape)})")


def _check_count(name: str, tensors, size: int, what: str) -> None:
    if len(tensors) != size:
        raise RuntimeError(f"ProcessGroupMPI::{name}: invalid {what} tensor list at index 0 "
                           f"(expected length {size}, got {len(tensors)})")


def _root_list(name: str, tensors, list_name: str, tensor, pg, root: int, role: str) -> bool:
    """Checks the tensor list of gather (on its destination) or scatter (on its
    source), which the other ranks must not pass; True on the root."""
    if pg.rank() != root:
        if tensors:
            raise ValueError(f"Argument ``{list_name}`` must NOT be specified on non-{role} "
                             f"ranks.")
        return False
    if not tensors:
        raise ValueError(f"Argument ``{list_name}`` must be specified on {role} rank.")
    check_tensor_list(tensors, list_name)
    _check_count(name, tensors, pg.size(), "output" if name == "gather" else "input")
    _check_same(name, tensor, tensors)
    return True


def _check_pair(block, whole, pg, type_message: str, size_message: str) -> None:
    """`whole` holds one `block` per rank (all_gather_into_tensor, reduce_scatter_tensor)."""
    if block.dtype != whole.dtype:
        raise RuntimeError(type_message)
    if whole.numel() != block.numel() * pg.size():
        raise ValueError(size_message)


def barrier(group=None, async_op: bool = False, device_ids=None, timeout=None):
    """Waits until every rank of the group has entered the barrier (raising
    DistBackendError after `timeout`, a timedelta, when given)."""
    pg = resolve(group)
    if pg is None:
        return None
    if timeout is None:
        return run("barrier", pg, start(pg, async_op, "Barrier"), async_op)
    work = run("barrier", pg, start(pg, True, "Barrier"), True)
    if async_op:
        return work
    work.wait(timeout)
    return None


def broadcast(tensor, src=None, group=None, async_op: bool = False, group_src=None):
    """Copies `tensor` of rank `src` into `tensor` of every rank of the group."""
    pg = members(group, tensor=tensor)
    if pg is None:
        return None
    root = root_rank(pg, "broadcast", src, group_src, "src")
    buf = Staged(tensor)
    requests = start(pg, async_op, "Bcast", buf.raw(), root=root)
    return run("broadcast", pg, requests, async_op, buf.write_back, [tensor], keep=buf)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduces `tensor` over the group with `op`; every rank gets the result in place."""
    pg = members(group, tensor=tensor)
    if pg is None:
        return None
    mop = mpi_op(op, tensor.dtype)
    buf = Staged(tensor, widen=True)
    requests = start(pg, async_op, "Allreduce", mpi().IN_PLACE, buf.typed(), mop)

    def finish():
        average(buf.tensor, op, pg)
        buf.write_back()
    return run("allreduce", pg, requests, async_op, finish, [tensor], keep=buf)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op: bool = False,
           group_dst=None):
    """Reduces `tensor` over the group into `tensor` of rank `dst`; the other ranks'
    tensors are left as they were."""
    pg = members(group, tensor=tensor)
    if pg is None:
        return None
    root = root_rank(pg, "reduce", dst, group_dst, "dst")
    mop = mpi_op(op, tensor.dtype)
    buf = Staged(tensor, widen=True)
    if pg.rank() == root:
        requests = start(pg, async_op, "Reduce", mpi().IN_PLACE, buf.typed(), mop, root=root)

        def finish():
            average(buf.tensor, op, pg)
            buf.write_back()
    else:
        requests = start(pg, async_op, "Reduce", buf.typed(), None, mop, root=root)
        finish = None
    return run("reduce", pg, requests, async_op, finish, [tensor], keep=buf)


def all_gather(tensor_list, tensor, group=None, async_op: bool = False):
    """Fills tensor_list[i] with `tensor` of group rank i."""
    check_tensor_list(tensor_list, "tensor_list")
    pg = members(group, tensor=tensor)
    if pg is None:
        return None
    _check_count("allgather", tensor_list, pg.size(), "output")
    _check_same("allgather", tensor, tensor_list)
    send = Staged(tensor)
    gathered = _empty((pg.size(),) + tuple(tensor.shape), dtype=tensor.dtype)
    requests = start(pg, async_op, "Allgather", send.raw(), raw(gathered))

    def finish():
        for i, out in enumerate(tensor_list):
            out.detach().copy_(gathered[i])
    return run("allgather", pg, requests, async_op, finish, tensor_list,
               keep=(send, gathered))


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False):
    """Gathers every rank's `input_tensor` into `output_tensor`, concatenated along
    dim 0 (world_size * n rows) or stacked (world_size, *input.shape)."""
    pg = members(group, output_tensor=output_tensor, input_tensor=input_tensor)
    if pg is None:
        return None
    _check_pair(input_tensor, output_tensor, pg,
                "output tensor must have the same type as input tensor",
                "output tensor size must be equal to world_size times input tensor size")
    send = Staged(input_tensor)
    out = Staged(output_tensor, copy_in=False)
    requests = start(pg, async_op, "Allgather", send.raw(), out.raw())
    return run("allgather_into_tensor", pg, requests, async_op, out.write_back,
               [output_tensor], keep=(send, out))


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduces `input` over the group and gives rank i the i-th of world_size equal
    blocks of the result (along dim 0 when flat-concatenated)."""
    pg = members(group, output=output, input=input)
    if pg is None:
        return None
    _check_pair(output, input, pg, "input tensor must be the same type as the output tensor.",
                "input tensor must be the same size as output size times world size")
    mop = mpi_op(op, input.dtype)
    send = Staged(input, widen=True)
    out = Staged(output, widen=True, copy_in=False)
    requests = start(pg, async_op, "Reduce_scatter_block", send.typed(), out.typed(), mop)

    def finish():
        average(out.tensor, op, pg)
        out.write_back()
    return run("reduce_scatter_tensor", pg, requests, async_op, finish, [output],
               keep=(send, out))


def gather(tensor, gather_list=None, dst=None, group=None, async_op: bool = False,
           group_dst=None):
    """Rank `dst` receives every rank's `tensor` in gather_list (in group rank order)."""
    pg = members(group, tensor=tensor)
    if pg is None:
        return None
    root = root_rank(pg, "gather", dst, group_dst, "dst")
    send = Staged(tensor)
    if _root_list("gather", gather_list, "gather_list", tensor, pg, root, "destination"):
        gathered = _empty((pg.size(),) + tuple(tensor.shape), dtype=tensor.dtype)
        requests = start(pg, async_op, "Gather", send.raw(), raw(gathered), root=root)

        def finish():
            for i, out in enumerate(gather_list):
                out.detach().copy_(gathered[i])
        return run("gather", pg, requests, async_op, finish, gather_list,
                   keep=(send, gathered))
    requests = start(pg, async_op, "Gather", send.raw(), None, root=root)
    return run("gather", pg, requests, async_op, keep=send)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op: bool = False,
            group_src=None):
    """Each rank i receives scatter_list[i] of rank `src` into `tensor`."""
    pg = members(group, tensor=tensor)
    if pg is None:
        return None
    root = root_rank(pg, "scatter", src, group_src, "src")
    out = Staged(tensor, copy_in=False)
    if _root_list("scatter", scatter_list, "scatter_list", tensor, pg, root, "source"):
        blocks = _C._functions["stack"]([t.detach() for t in scatter_list])
        requests = start(pg, async_op, "Scatter", raw(blocks), out.raw(), root=root)
        keep = (out, blocks)
    else:
        requests = start(pg, async_op, "Scatter", None, out.raw(), root=root)
        keep = out
    return run("scatter", pg, requests, async_op, out.write_back, [tensor], keep=keep)
