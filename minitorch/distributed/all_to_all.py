"""all_to_all and all_to_all_single: rank i sends its j-th piece to rank j, which
keeps it as its i-th. One MPI Alltoallv moves the pieces as bytes: all_to_all's
lists are packed into one flat tensor each way, all_to_all_single's tensors
are cut along dim 0 (evenly, or by the split sizes) in place."""
from math import prod

from .. import _C
from ._mpi import mpi
from .buffers import Staged, raw
from .common import check_tensor_list, members, run, start

__all__ = ["all_to_all", "all_to_all_single"]

_empty = _C._functions["empty"]


def _offsets(counts):
    out, n = [], 0
    for c in counts:
        out.append(n)
        n += c
    return out


def _spec(buffer, counts):
    return [buffer, (counts, _offsets(counts)), mpi().BYTE]


def _rows(tensor, split_sizes, size: int) -> list:
    """The dim-0 rows of `tensor` each rank's piece has, as torch checks them."""
    rows = tensor.shape[0]
    if not split_sizes:
        if rows % size:
            raise RuntimeError("Tensor's dim 0 does not divide equally across group size")
        return [rows // size] * size
    split_sizes = [int(s) for s in split_sizes]
    if len(split_sizes) != size:
        raise RuntimeError("Number of tensor splits not equal to group size")
    if sum(split_sizes) != rows:
        raise RuntimeError("Split sizes doesn't match total dim 0 size")
    return split_sizes


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op: bool = False):
    """Cuts ``input`` along dim 0 into one piece per rank (evenly, or of
    ``input_split_sizes`` rows), sends piece j to rank j, and fills ``output``
    with the pieces received, in rank order (``output_split_sizes`` rows each)."""
    pg = members(group, output=output, input=input)
    if pg is None:
        return None
    if output.dtype != input.dtype:
        raise RuntimeError(f"all_to_all_single: output has dtype {output.dtype} but input "
                           f"has {input.dtype}")
    row_in = prod(input.shape[1:]) * input.element_size()
    row_out = prod(output.shape[1:]) * output.element_size()
    if row_in != row_out:
        raise RuntimeError(f"all_to_all_single: a row of input has {row_in} bytes, a row of "
                           f"output {row_out}: their shapes after dim 0 must hold the same "
                           f"number of elements")
    sent = [r * row_in for r in _rows(input, input_split_sizes, pg.size())]
    received = [r * row_out for r in _rows(output, output_split_sizes, pg.size())]
    send = Staged(input)
    out = Staged(output, copy_in=False)
    requests = start(pg, async_op, "Alltoallv", _spec(send.raw(), sent),
                     _spec(out.raw(), received))
    return run("alltoall_base", pg, requests, async_op, out.write_back, [output],
               keep=(send, out))


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op: bool = False):
    """Sends ``input_tensor_list[j]`` to rank j, which receives it in its
    ``output_tensor_list[i]`` (i being this rank)."""
    check_tensor_list(output_tensor_list, "output_tensor_list")
    check_tensor_list(input_tensor_list, "input_tensor_list")
    pg = members(group)
    if pg is None:
        return None
    if len(input_tensor_list) != pg.size():
        raise RuntimeError("Number of input tensors are not equal to group size")
    if len(output_tensor_list) != pg.size():
        raise RuntimeError("Number of output tensors are not equal to group size")
    dtype = input_tensor_list[0].dtype
    for i, t in enumerate(input_tensor_list + output_tensor_list):
        if t.dtype != dtype:
            raise RuntimeError(f"all_to_all: every tensor must have dtype {dtype}, tensor "
                               f"{i % pg.size()} of the "
                               f"{'input' if i < pg.size() else 'output'} list has {t.dtype}")
    packed = _C._functions["cat"]([t.detach().reshape(-1) for t in input_tensor_list])
    counts = [t.numel() for t in output_tensor_list]
    gathered = _empty((sum(counts),), dtype=dtype)
    size = packed.element_size()
    requests = start(pg, async_op, "Alltoallv",
                     _spec(raw(packed), [t.numel() * size for t in input_tensor_list]),
                     _spec(raw(gathered), [c * size for c in counts]))

    def finish():
        for out, start_at, n in zip(output_tensor_list, _offsets(counts), counts):
            out.detach().copy_(gathered[start_at:start_at + n].view(out.shape))
    return run("alltoall", pg, requests, async_op, finish, output_tensor_list,
               keep=(packed, gathered))
