"""DataLoader: iterates a dataset in batches, as torch.utils.data.DataLoader:
in the calling process with num_workers=0, else in worker processes
(_multiprocessing_iter.py)."""
from typing import Any, Callable, Iterator, List, Optional

from ._collate import default_collate, default_convert
from ._multiprocessing_iter import _MultiProcessingIter
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader"]


class DataLoader:
    r"""Combines a dataset and a sampler, and provides an iterable over the
    given dataset.

    Args:
        dataset (Dataset): dataset from which to load the data.
        batch_size (int, optional): how many samples per batch to load
            (default: ``1``); ``None`` disables batching.
        shuffle (bool, optional): set to ``True`` to have the data reshuffled
            at every epoch (default: ``False``).
        sampler (Sampler or Iterable, optional): the order of the indices;
            excludes ``shuffle``.
        batch_sampler (Sampler or Iterable, optional): like :attr:`sampler`,
            but returns a batch of indices at a time. Mutually exclusive with
            :attr:`batch_size`, :attr:`shuffle`, :attr:`sampler`, and
            :attr:`drop_last`.
        num_workers (int, optional): how many worker processes load the
            data; ``0`` loads it in the calling process (default: ``0``).
        collate_fn (Callable, optional): merges a list of samples to form a
            batch (default: :func:`default_collate`).
        drop_last (bool, optional): drop the last incomplete batch
            (default: ``False``).
        pin_memory (bool, optional): accepted; minitorch has only the CPU, so
            there is no pinned memory (default: ``False``).
        timeout (numeric, optional): seconds to wait for a batch from the
            workers before raising (default: ``0``, no limit).
        worker_init_fn (Callable, optional): called with the worker id in
            each worker, after seeding and before loading.
        multiprocessing_context (str or context, optional): the start
            method of the workers (default: multiprocessing's default).
        generator (minitorch.Generator, optional): the RNG of the shuffling
            sampler and of the workers' base seed.
        prefetch_factor (int, optional): batches loaded in advance by each
            worker (default: ``2`` with workers).
        persistent_workers (bool, optional): keep the workers alive between
            epochs (default: ``False``).
        in_order (bool, optional): accepted; batches always come in sampler
            order.
    """

    def __init__(self, dataset: Dataset, batch_size: Optional[int] = 1,
                 shuffle: Optional[bool] = None, sampler=None, batch_sampler=None,
                 num_workers: int = 0, collate_fn: Optional[Callable[[List[Any]], Any]] = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor: Optional[int] = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor "
                "to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.pin_memory_device = pin_memory_device
        self.in_order = in_order
        self._workers_iter = None
        self._iterable = isinstance(dataset, IterableDataset)

        if self._iterable:
            if isinstance(shuffle, bool) and shuffle:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, "
                    f"but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, "
                    f"but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive "
                    "with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching "
                "and is mutually exclusive with drop_last"
            )

        if sampler is None and not self._iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    def _fetch(self, indices: List[int]):
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems(indices)
        return [self.dataset[i] for i in indices]

    def _iter_iterable(self) -> Iterator[Any]:
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch: List[Any] = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __iter__(self) -> Iterator[Any]:
        if self.num_workers > 0:
            if not self.persistent_workers:
                return _MultiProcessingIter(self)
            if self._workers_iter is None or self._workers_iter._shutdown:
                self._workers_iter = _MultiProcessingIter(self)
            else:
                self._workers_iter._reset(self)
            return self._workers_iter
        if self._iterable:
            return self._iter_iterable()
        if self.batch_sampler is not None:
            return (self.collate_fn(self._fetch(indices)) for indices in self.batch_sampler)
        return (self.collate_fn(self.dataset[i]) for i in self.sampler)

    def __len__(self) -> int:
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    return length // self.batch_size
                return -(-length // self.batch_size)
            return length
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)
