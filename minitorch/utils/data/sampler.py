"""Samplers: the orders in which a DataLoader visits a map-style dataset."""
from typing import Iterator, List, Optional, Sequence, Sized

from ... import _C

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "BatchSampler"]

_randperm = _C._functions["randperm"]
_empty = _C._functions["empty"]
_randint = _C._functions["randint"]
_DRAW_CHUNK = 32


def _fresh_generator() -> _C.Generator:
    # As torch: a generator seeded from the default one, so
    # minitorch.manual_seed makes every epoch's order reproducible.
    seed = int(_empty((), dtype=_C.int64).random_().item())
    generator = _C.Generator()
    generator.manual_seed(seed)
    return generator


class Sampler:
    r"""Base class for all Samplers: an iterable over dataset indices."""

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    r"""Samples elements sequentially, always in the same order."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    r"""Samples elements randomly, without replacement, or with replacement
    when ``replacement=True`` (then ``num_samples`` may be given)."""

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: Optional[int] = None, generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={self.replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, "
                f"but got num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        """How many indices one pass draws: ``num_samples`` if given, else the dataset's length."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator if self.generator is not None else _fresh_generator()
        if self.replacement:
            # in chunks, as torch: num_samples may be far more than fits in memory
            for _ in range(self.num_samples // _DRAW_CHUNK):
                yield from _randint(n, (_DRAW_CHUNK,), generator=generator).tolist()
            yield from _randint(n, (self.num_samples % _DRAW_CHUNK,), generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from _randperm(n, generator=generator).tolist()
        yield from _randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    r"""Samples elements randomly from a given list of indices, without replacement."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        generator = self.generator if self.generator is not None else _fresh_generator()
        for i in _randperm(len(self.indices), generator=generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    r"""Wraps another sampler to yield lists of batch_size indices; the last
    batch is dropped when it is smaller and ``drop_last`` is set."""

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        if (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(
                f"drop_last should be a boolean value, but got drop_last={drop_last}"
            )
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[List[int]]:
        batch: List[int] = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
