"""What runs inside a DataLoader worker process: get_worker_info, seeding,
and the loop that turns index tasks into batches, as torch.utils.data's.

A worker takes (task id, indices) from its own index queue and puts
(task id, batch), pickled, on the shared result queue; batches are pickled
with minitorch.multiprocessing's reductions, so their storages travel as
shared memory. An exception becomes an _ExceptionWrapper the main process
re-raises; an IterableDataset that runs out answers with _IterableEnd.
"""
import os
import queue
import random
import sys
import traceback
from multiprocessing.reduction import ForkingPickler

# Imported here, in the parent, because NumPy 2 imports numpy.random lazily: a
# forked worker importing it while another parent thread held an import lock
# died in importlib.
import numpy.random

from ... import _C

__all__ = ["WorkerInfo", "get_worker_info"]

# How often an idle worker checks the done event and its parent. Shutdown
# also sends each worker None, but when the iterator dies in a garbage cycle
# its queues may be closed before that None is sent.
_POLL_INTERVAL = 0.2


class WorkerInfo:
    """What get_worker_info() tells code running in a worker: ``id``,
    ``num_workers``, ``seed`` and the worker's copy of ``dataset``."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = [f"{k}={getattr(self, k)}" for k in self.__keys]
        return f"{self.__class__.__name__}({', '.join(items)})"


_worker_info = None


def get_worker_info():
    """The WorkerInfo of the DataLoader worker this runs in, None in the main
    process."""
    return _worker_info


class _ExceptionWrapper:
    """An exception with its traceback as text, re-raised in the main process
    with torch's wording."""

    def __init__(self, where):
        exc_type, exc, _ = sys.exc_info()
        self.exc_type = exc_type
        self.exc_msg = "".join(traceback.format_exception(exc_type, exc, exc.__traceback__))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # noqa: BLE001 - a type that takes no message
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    # KeyError shows its argument's repr; show the traceback as text instead
    def __repr__(self):
        return self


class _IterableEnd:
    """A worker's IterableDataset copy is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _Resume:
    """A persistent worker starts its IterableDataset over for a new epoch."""


def _seed_worker(seed):
    random.seed(seed)
    _C.default_generator.manual_seed(seed)
    numpy.random.seed(numpy.random.SeedSequence([seed & 0xFFFFFFFFFFFFFFFF]).generate_state(4))


class _Fetcher:
    """Makes one batch from a task: indices of a map-style dataset, or the
    next items of the worker's iterator over an IterableDataset."""

    def __init__(self, dataset, iterable, auto_collation, batch_size, collate_fn, drop_last):
        self.dataset = dataset
        self.iterable = iterable
        self.auto_collation = auto_collation
        self.batch_size = batch_size
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.restart()

    def restart(self):
        self.iterator = iter(self.dataset) if self.iterable else None
        self.ended = False

    def fetch(self, indices):
        if not self.iterable:
            if not self.auto_collation:
                return self.collate_fn(self.dataset[indices])
            getitems = getattr(self.dataset, "__getitems__", None)
            data = getitems(indices) if callable(getitems) else [self.dataset[i] for i in indices]
            return self.collate_fn(data)
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.iterator))
        data = []
        for item in self.iterator:
            data.append(item)
            if len(data) == self.batch_size:
                return self.collate_fn(data)
        self.ended = True
        if not data or self.drop_last:
            raise StopIteration
        return self.collate_fn(data)


def _send(result_queue, item, where):
    """Pickles here rather than in the queue's feeder thread, which would
    drop a batch it cannot pickle and leave the main process waiting."""
    try:
        payload = ForkingPickler.dumps(item)
    except Exception:  # noqa: BLE001 - sent to the main process, raised there
        payload = ForkingPickler.dumps((item[0], _ExceptionWrapper(where)))
    result_queue.put(bytes(payload))  # dumps gives a memoryview, which cannot be pickled


def _worker_loop(dataset, iterable, index_queue, result_queue, done_event, auto_collation,
                 batch_size, collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers):
    global _worker_info
    from ... import multiprocessing  # noqa: F401  (batches travel through shared memory)

    # as torch: one thread per worker, the workers are the parallelism
    _C.set_num_threads(1)
    seed = base_seed + worker_id
    _seed_worker(seed)
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    parent = os.getppid()
    where = f"in DataLoader worker process {worker_id}"
    init_error = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = _Fetcher(dataset, iterable, auto_collation, batch_size, collate_fn, drop_last)
    except Exception:  # noqa: BLE001 - sent to the main process, raised there
        init_error = _ExceptionWrapper(where)
    try:
        while not done_event.is_set():
            try:
                task = index_queue.get(timeout=_POLL_INTERVAL)
            except queue.Empty:
                if os.getppid() != parent:
                    break  # the main process is gone
                continue
            if task is None:
                break
            if isinstance(task, _Resume):
                if init_error is None:
                    fetcher.restart()
                _send(result_queue, (task, None), where)
                continue
            task_id, indices = task
            if init_error is not None:
                _send(result_queue, (task_id, init_error), where)
                init_error = None
                continue
            try:
                data = fetcher.fetch(indices)
            except StopIteration:
                data = _IterableEnd(worker_id)
            except Exception:  # noqa: BLE001 - sent to the main process, raised there
                data = _ExceptionWrapper(where)
            _send(result_queue, (task_id, data), where)
            del data
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        result_queue.cancel_join_thread()
    result_queue.close()
