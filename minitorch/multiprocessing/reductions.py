"""The ForkingPickler reductions that send tensors through shared memory.

A tensor reduces as it always does (minitorch/_tensor_pickle.py: its
storage's bytes object plus geometry); only the storage's bytes reduce
differently here: the storage moves into shared memory (share_memory_) and
its descriptor crosses with multiprocessing's DupFd, which hands a
duplicate to the spawning child or to the receiver of a queue. The receiver
maps the same memory; each side's mapping and descriptor go when its last
tensor over them goes, and the memory with the last of them.
"""
from multiprocessing import reduction
from multiprocessing.reduction import ForkingPickler

from .. import _C
from .._tensor import Tensor
from .._tensor_pickle import _StorageBytes, reduce_tensor


def _rebuild_shared_storage(dup_fd, nbytes):
    return _C._from_shared_fd(dup_fd.detach(), nbytes)


def _reduce_storage(storage):
    fd = _C._shared_fd(storage.raw)
    return (_rebuild_shared_storage, (reduction.DupFd(fd), storage.raw.numel()))


def _reduce_tensor(t):
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
            "does not support crossing process boundaries.  If you just want to transfer the "
            "data, call detach() on the tensor before serializing (e.g., putting it on the "
            "queue).")
    return reduce_tensor(t)


def init_reductions():
    # Without descriptor passing (Windows) storages travel as pickled bytes.
    if hasattr(reduction, "DupFd"):
        ForkingPickler.register(_StorageBytes, _reduce_storage)
    ForkingPickler.register(Tensor, _reduce_tensor)
