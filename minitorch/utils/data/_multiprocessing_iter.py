"""The main-process side of DataLoader(num_workers=N): starts the worker
processes, keeps prefetch_factor tasks per worker in flight, and yields
their batches in task order, as torch's _MultiProcessingDataLoaderIter.

Each worker has an index queue; all share one result queue. A batch that
arrives early waits in a dict until its turn. A worker error is re-raised
here in the batch's turn, and the iterator goes on, as torch's; a worker
that dies, or a wait longer than the loader's timeout, raises RuntimeError.
shutdown() stops and joins the workers, and runs at the end of an epoch
(unless the workers are persistent), when the iterator is collected, and
when waiting for a batch fails.
"""
import itertools
import queue
import time
import warnings
from multiprocessing.reduction import ForkingPickler

from ... import _C
from ._worker import _ExceptionWrapper, _IterableEnd, _Resume, _worker_loop

# How often a wait for a batch checks that the workers are alive.
_STATUS_CHECK_INTERVAL = 1.0
_JOIN_TIMEOUT = 5.0

_empty = _C._functions["empty"]


class _MultiProcessingIter:
    def __init__(self, loader):
        from ... import multiprocessing as mp

        self._shutdown = True  # until there is something to shut down

        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=3)
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = mp.get_context()
        elif isinstance(ctx, str):
            ctx = mp.get_context(ctx)
        # the loader is not kept: it keeps a persistent iterator, and a cycle
        # would leave shutting down to the garbage collector, which may close
        # the queues first
        self._iterable = loader._iterable
        self._dataset = loader.dataset
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._prefetch = max(loader.prefetch_factor, 1) * loader.num_workers
        self._persistent = loader.persistent_workers
        self._next_task = 0
        base_seed = int(_empty((), dtype=_C.int64).random_(generator=loader.generator).item())
        self._result_queue = ctx.Queue()
        self._done_event = ctx.Event()
        self._index_queues = []
        self._workers = []
        self._shutdown = False
        try:
            for worker_id in range(self._num_workers):
                index_queue = ctx.Queue()
                # the main process never waits to flush tasks to a dead worker
                index_queue.cancel_join_thread()
                worker = ctx.Process(
                    target=_worker_loop,
                    args=(loader.dataset, loader._iterable, index_queue, self._result_queue,
                          self._done_event, loader._auto_collation, loader.batch_size,
                          loader.collate_fn, loader.drop_last, base_seed,
                          loader.worker_init_fn, worker_id, self._num_workers),
                    daemon=True)
                worker.start()
                self._index_queues.append(index_queue)
                self._workers.append(worker)
        except BaseException:
            self.shutdown()
            raise
        self._start_epoch(loader)

    def _start_epoch(self, loader):
        if self._iterable:
            self._tasks = itertools.repeat(None)
        elif loader.batch_sampler is not None:
            self._tasks = iter(loader.batch_sampler)
        else:
            self._tasks = iter(loader.sampler)
        self._index_sampler = (loader.batch_sampler if loader.batch_sampler is not None
                               else loader.sampler)
        self._active = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        # task ids grow across epochs, so a late answer from an epoch left
        # early is recognised and dropped
        self._epoch_start = self._next_yield = self._next_task
        self._pending = set()
        self._ready = {}
        for _ in range(self._prefetch):
            self._send_task()

    def _reset(self, loader):
        """A new epoch on persistent workers."""
        if self._iterable:
            for q in self._index_queues:
                q.put(_Resume())
            acks = 0
            while acks < self._num_workers:
                acks += isinstance(self._get_result()[0], _Resume)
        self._start_epoch(loader)

    def _send_task(self):
        if not any(self._active):
            return
        try:
            indices = next(self._tasks)
        except StopIteration:
            return
        worker_id = next(self._worker_cycle)
        while not self._active[worker_id]:
            worker_id = next(self._worker_cycle)
        self._index_queues[worker_id].put((self._next_task, indices))
        self._pending.add(self._next_task)
        self._next_task += 1

    def _get_result(self):
        try:
            return self._wait_result()
        except BaseException:
            self.shutdown()
            raise

    def _wait_result(self):
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            wait = _STATUS_CHECK_INTERVAL
            if deadline is not None:
                wait = min(wait, max(deadline - time.monotonic(), 0.0))
            try:
                return ForkingPickler.loads(self._result_queue.get(timeout=wait))
            except queue.Empty:
                dead = [w.pid for w in self._workers if not w.is_alive()]
                if dead:
                    pids = ", ".join(str(pid) for pid in dead)
                    raise RuntimeError(
                        f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from None
                if deadline is not None and time.monotonic() >= deadline:
                    raise RuntimeError(
                        f"DataLoader timed out after {self._timeout} seconds") from None

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return self._next_batch()
        except StopIteration:
            if not self._persistent:
                self.shutdown()
            raise

    def _next_batch(self):
        while True:
            if self._shutdown:
                raise StopIteration
            while self._next_yield < self._next_task and self._next_yield not in self._pending:
                self._next_yield += 1  # a task answered by an exhausted IterableDataset
            if self._next_yield == self._next_task:
                raise StopIteration
            if self._next_yield in self._ready:
                data = self._ready.pop(self._next_yield)
                self._pending.discard(self._next_yield)
                self._next_yield += 1
                self._send_task()
                if isinstance(data, _ExceptionWrapper):
                    data.reraise()
                return data
            task_id, data = self._get_result()
            if isinstance(task_id, _Resume) or task_id < self._epoch_start:
                continue
            if isinstance(data, _IterableEnd):
                self._active[data.worker_id] = False
                self._pending.discard(task_id)
                self._send_task()
            else:
                self._ready[task_id] = data

    def __len__(self):
        return len(self._dataset if self._iterable else self._index_sampler)

    def shutdown(self):
        if self._shutdown:
            return
        self._shutdown = True
        self._done_event.set()
        for q in self._index_queues:
            q.put(None)
        for w in self._workers:
            w.join(timeout=_JOIN_TIMEOUT)
            if w.is_alive():
                w.terminate()
                w.join()
        for q in self._index_queues:
            q.close()
        self._result_queue.cancel_join_thread()
        self._result_queue.close()

    def __del__(self):
        try:
            self.shutdown()
        except (OSError, ValueError):
            pass  # at interpreter exit multiprocessing may have closed everything first
