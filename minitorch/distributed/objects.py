"""The object collectives: broadcast_object_list, all_gather_object,
gather_object and scatter_object_list, with torch's signatures and checks.

Objects travel pickled, as torch's do (so only send objects from trusted
ranks); MPI's object collectives carry the pickles and their sizes. Every
call blocks, as torch's do.
"""
from .common import root_rank
from .process_group import resolve

__all__ = ["broadcast_object_list", "all_gather_object", "gather_object",
           "scatter_object_list"]


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replaces the items of ``object_list`` on every rank by those of rank ``src``
    (each rank passes a list of the same length)."""
    pg = resolve(group)
    if pg is None:
        return
    root = root_rank(pg, "broadcast", src, group_src, "src")
    received = pg._comm.bcast(list(object_list) if pg.rank() == root else None, root=root)
    if pg.rank() != root:
        for i in range(len(object_list)):
            object_list[i] = received[i]


def all_gather_object(object_list, obj, group=None):
    """Puts the ``obj`` of group rank i into ``object_list[i]`` on every rank
    (``object_list`` has one item per rank)."""
    pg = resolve(group)
    if pg is None:
        return
    for i, item in enumerate(pg._comm.allgather(obj)):
        object_list[i] = item


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Rank ``dst`` receives the ``obj`` of group rank i in ``object_gather_list[i]``;
    the other ranks pass no list."""
    pg = resolve(group)
    if pg is None:
        return
    root = root_rank(pg, "gather", dst, group_dst, "dst")
    if pg.rank() == root and not object_gather_list:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if pg.rank() != root and object_gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    gathered = pg._comm.gather(obj, root=root)
    if pg.rank() == root:
        for i, item in enumerate(gathered):
            object_gather_list[i] = item


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):
    """Group rank i receives ``scatter_object_input_list[i]`` of rank ``src`` in
    ``scatter_object_output_list[0]``."""
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at "
                         "least 1.")
    pg = resolve(group)
    if pg is None:
        return
    root = root_rank(pg, "scatter", src, group_src, "src")
    sending = None
    if pg.rank() == root:
        sending = list(scatter_object_input_list or ())
        if len(sending) != pg.size():
            raise ValueError(f"Expected argument scatter_object_input_list to hold one object "
                             f"per rank ({pg.size()}), got {len(sending)}")
    scatter_object_output_list[0] = pg._comm.scatter(sending, root=root)
