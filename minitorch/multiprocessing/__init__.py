"""minitorch.multiprocessing: Python's multiprocessing with tensors that
travel through shared memory, as torch.multiprocessing.

Importing it registers the reductions (reductions.py) with multiprocessing's
ForkingPickler, so a tensor put on a Queue, passed to a Process or returned
by a Pool moves its storage into shared memory and the receiver maps the
same memory instead of unpickling a copy. Everything else is
multiprocessing's own, re-exported.
"""
import multiprocessing
from multiprocessing import *  # noqa: F403

from .reductions import init_reductions

__all__ = list(multiprocessing.__all__) + ["get_sharing_strategy", "set_sharing_strategy",
                                           "get_all_sharing_strategies"]

init_reductions()

_SHARING_STRATEGY = "file_descriptor"


def get_all_sharing_strategies():
    """The strategies minitorch offers: storages are unnamed shared-memory
    files whose descriptors cross to the receiver."""
    return {"file_descriptor"}


def get_sharing_strategy():
    """The current sharing strategy: always "file_descriptor"."""
    return _SHARING_STRATEGY


def set_sharing_strategy(new_strategy):
    """Sets the sharing strategy; only "file_descriptor" is offered."""
    if new_strategy not in get_all_sharing_strategies():
        raise AssertionError(f"{new_strategy!r} is not a sharing strategy minitorch offers")
