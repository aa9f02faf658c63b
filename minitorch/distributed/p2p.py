"""Point-to-point: send, recv, isend, irecv, with torch's signatures. Tensors move
as raw bytes of a contiguous staging tensor (the caller's own when contiguous)."""
from ._mpi import mpi
from .buffers import Staged
from .common import members, run

__all__ = ["send", "recv", "isend", "irecv"]


def _peer(pg, name, global_rank, group_rank, what) -> int:
    if global_rank is not None and group_rank is not None:
        raise ValueError(f"Can not specify both {what} and group_{what}")
    if group_rank is None:
        if global_rank is None:
            return None
        group_rank = pg._ranks.index(global_rank) if global_rank in pg._ranks else -1
    if not 0 <= group_rank < pg.size():
        raise RuntimeError(f"ProcessGroupMPI::{name}: invalid {what} rank: "
                           f"{global_rank if global_rank is not None else group_rank}")
    return group_rank


def isend(tensor, dst=None, group=None, tag: int = 0, group_dst=None):
    """Starts sending `tensor` to rank `dst`; returns a Work."""
    pg = members(group, tensor=tensor)
    if pg is None:
        return None
    peer = _peer(pg, "send", dst, group_dst, "dst")
    if peer is None:
        raise ValueError("Either dst or group_dst must be specified")
    if peer == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as "
                         "the rank of the current process.")
    buf = Staged(tensor)
    request = pg._comm.Isend(buf.raw(), dest=peer, tag=tag)
    return run("send", pg, [request], True, keep=buf)


def irecv(tensor, src=None, group=None, tag: int = 0, group_src=None):
    """Starts receiving into `tensor` from rank `src` (any rank when None); returns
    a Work."""
    pg = members(group, tensor=tensor)
    if pg is None:
        return None
    peer = _peer(pg, "recv", src, group_src, "src")
    if peer == pg.rank():
        raise ValueError("Invalid source rank: source rank should not be the same as the rank "
                         "of the current process.")
    MPI = mpi()
    buf = Staged(tensor, copy_in=False)
    status = MPI.Status()
    request = pg._comm.Irecv(buf.raw(), source=MPI.ANY_SOURCE if peer is None else peer,
                             tag=tag)
    return run("recv", pg, [request], True, buf.write_back, [tensor], keep=buf, status=status)


def send(tensor, dst=None, group=None, tag: int = 0, group_dst=None) -> None:
    """Sends `tensor` to rank `dst` and waits until the buffer may be reused."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag: int = 0, group_src=None) -> int:
    """Receives into `tensor` from rank `src` (any rank when None); returns the
    sender's global rank."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work.source_rank()
