"""DataLoader(num_workers=N): batches from worker processes equal those of
num_workers=0 and of torch's DataLoader, worker info and seeding, errors,
persistent workers, shutdown; RandomSampler's lazy draws and random_split's
fractions against torch."""
import gc
import itertools
import multiprocessing
import os
import random
import sys
import time
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.utils.data import (
    DataLoader, Dataset, IterableDataset, RandomSampler, default_collate, get_worker_info,
    random_split,
)

from shm_files import minitorch_shm_files

# Every loader with workers waits at most this long for a batch, so a
# broken worker fails the test instead of hanging it.
WAIT = 30


def current_worker():
    """The worker info of minitorch's DataLoader, or of torch's."""
    info = get_worker_info()
    if info is None and "torch" in sys.modules:
        info = sys.modules["torch"].utils.data.get_worker_info()
    return info


class Squares(Dataset):
    def __len__(self):
        return 11

    def __getitem__(self, i):
        info = get_worker_info()
        return mt.full((2,), float(i * i)), -1 if info is None else info.id


class Augmented(Dataset):
    """Random draws from every source a transform may use."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return (mt.rand(()).item(), random.random(), float(np.random.rand()),
                get_worker_info().seed)


class Failing(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 4:
            raise ValueError(f"bad sample {i}")
        return i


class Ranges(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = current_worker()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))


class Dying(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        os._exit(3)


class Unpicklable(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return lambda: i


class Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(1)
        return i


def batches(loader):
    return [[t.tolist() if isinstance(t, mt.Tensor) else t for t in b] for b in loader]


def no_children_left():
    gc.collect()  # an exception's traceback may hold an iterator in a cycle
    deadline = time.time() + 10
    while multiprocessing.active_children() and time.time() < deadline:
        time.sleep(0.05)
    return not multiprocessing.active_children()


def test_workers_give_the_batches_of_the_main_process_in_order():
    serial = batches(DataLoader(Squares(), batch_size=3))
    loader = DataLoader(Squares(), batch_size=3, timeout=WAIT, num_workers=2)
    parallel = list(loader)
    assert [b[0].tolist() for b in parallel] == [b[0] for b in serial]
    # round robin: batch k comes from worker k % 2, through shared memory
    assert [set(b[1].tolist()) for b in parallel] == [{0}, {1}, {0}, {1}]
    assert all(b[0].is_shared() for b in parallel)
    assert len(loader) == 4
    assert get_worker_info() is None
    assert no_children_left()


def collate_and_report(samples):
    batch = default_collate(samples)
    return batch, batch[0].is_shared()


class Mixed(Dataset):
    """Samples whose shapes or dtypes differ: the worker's shared-memory
    stacking steps aside for stack, its promotion and its error."""

    def __init__(self, kind):
        self.kind = kind

    def __len__(self):
        return 2

    def __getitem__(self, i):
        if self.kind == "dtype":
            return mt.ones(2, dtype=mt.int64 if i else mt.float32)
        return mt.ones(2 + i)


def test_workers_stack_batches_straight_into_shared_memory():
    loader = DataLoader(Squares(), batch_size=4, num_workers=1, timeout=WAIT,
                        collate_fn=collate_and_report)
    got = list(loader)
    assert all(shared for _, shared in got)
    serial = list(DataLoader(Squares(), batch_size=4))
    assert [b[0].tolist() for b, _ in got] == [b[0].tolist() for b in serial]
    promoted = next(iter(DataLoader(Mixed("dtype"), batch_size=2, num_workers=1, timeout=WAIT)))
    assert promoted.dtype == mt.float32 and promoted.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        next(iter(DataLoader(Mixed("shape"), batch_size=2, num_workers=1, timeout=WAIT)))
    assert no_children_left()


def test_same_batches_as_torch_dataloader_with_workers():
    torch = pytest.importorskip("torch")
    data = list(range(10))
    mine = [b.tolist() for b in DataLoader(data, batch_size=4, timeout=WAIT, num_workers=2,
                                           drop_last=True)]
    theirs = [b.tolist() for b in torch.utils.data.DataLoader(data, batch_size=4,
                                                               num_workers=2, drop_last=True)]
    assert mine == theirs == [[0, 1, 2, 3], [4, 5, 6, 7]]
    torch_ranges = type("TorchRanges", (torch.utils.data.IterableDataset,),
                        {"__init__": Ranges.__init__, "__iter__": Ranges.__iter__})
    mine = [b.tolist() for b in DataLoader(Ranges(7), batch_size=2, timeout=WAIT,
                                           num_workers=2)]
    theirs = [b.tolist() for b in torch.utils.data.DataLoader(torch_ranges(7), batch_size=2,
                                                               num_workers=2)]
    assert mine == theirs


def test_iterable_dataset_shards_and_batch_size_none():
    got = list(DataLoader(Ranges(9), batch_size=None, timeout=WAIT, num_workers=3))
    assert sorted(got) == list(range(9)) and got[:3] == [0, 1, 2]
    got = [b.tolist() for b in DataLoader(Ranges(9), batch_size=4, timeout=WAIT,
                                          num_workers=2, drop_last=True)]
    assert got == [[0, 2, 4, 6], [1, 3, 5, 7]]


def test_worker_seeds_differ_and_follow_the_generator():
    def run(seed):
        g = mt.Generator()
        g.manual_seed(seed)
        out = []
        for batch in DataLoader(Augmented(), batch_size=2, timeout=WAIT, num_workers=2,
                                generator=g):
            out.append([v.tolist() for v in batch])
        return out

    first, again, other = run(7), run(7), run(8)
    assert first == again and first != other
    seeds = {s for b in first for s in b[3]}
    assert len(seeds) == 2 and max(seeds) - min(seeds) == 1  # base_seed + worker id
    # each worker's minitorch, random and numpy streams differ from the other's
    for source in range(3):
        assert first[0][source] != first[1][source]


def record_worker(worker_id):
    info = get_worker_info()
    assert info.id == worker_id and info.num_workers == 2
    info.dataset.offset = 100 * (worker_id + 1)


class Offset(Dataset):
    offset = 0

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return i + self.offset


def test_worker_init_fn_and_worker_info():
    got = [b.tolist() for b in DataLoader(Offset(), batch_size=1, timeout=WAIT,
                                          num_workers=2, worker_init_fn=record_worker)]
    assert got == [[100], [201], [102], [203]]
    info = mt.utils.data.WorkerInfo(id=1, num_workers=2, seed=5, dataset=None)
    assert repr(info) == "WorkerInfo(id=1, num_workers=2, seed=5, dataset=None)"
    with pytest.raises(RuntimeError, match="Cannot assign attributes to WorkerInfo objects"):
        info.id = 3


def test_worker_error_is_reraised_with_worker_id_and_traceback():
    torch = pytest.importorskip("torch")
    messages = []
    for module in (mt, torch):
        it = iter(module.utils.data.DataLoader(Failing(), batch_size=2, num_workers=2,
                                               timeout=WAIT))
        assert next(it).tolist() == [0, 1]
        assert next(it).tolist() == [2, 3]
        with pytest.raises(ValueError) as info:
            next(it)
        messages.append(str(info.value))
        if module is torch:
            it._shutdown_workers()  # torch's take seconds to go from a garbage cycle
        del it, info
    for message in messages:
        assert message.startswith("Caught ValueError in DataLoader worker process 0.\n"
                                  "Original Traceback (most recent call last):\n")
        assert message.endswith("ValueError: bad sample 4\n")
    assert no_children_left()


def test_dead_worker_and_unpicklable_batch_raise_instead_of_hanging():
    it = iter(DataLoader(Dying(), num_workers=1, timeout=WAIT))
    with pytest.raises(RuntimeError, match=r"^DataLoader worker \(pid\(s\) \d+\) exited "
                                           r"unexpectedly$"):
        next(it)
    # torch's queue thread drops a batch it cannot pickle, and the main process waits
    it = iter(DataLoader(Unpicklable(), num_workers=1, timeout=WAIT, collate_fn=lambda b: b))
    with pytest.raises(Exception, match="Caught .* in DataLoader worker process 0"):
        next(it)
    del it
    assert no_children_left()


def test_worker_init_fn_errors_reach_the_main_process():
    it = iter(DataLoader(Squares(), num_workers=1, timeout=WAIT, worker_init_fn=init_fails))
    with pytest.raises(ZeroDivisionError, match="Caught ZeroDivisionError in DataLoader worker "
                                                "process 0"):
        next(it)


def init_fails(worker_id):
    1 / 0


def test_persistent_workers_keep_their_processes():
    # children of earlier tests may still be exiting: count only this loader's
    earlier = {p.pid for p in multiprocessing.active_children()}
    loader = DataLoader(Squares(), batch_size=4, timeout=WAIT, num_workers=2,
                        persistent_workers=True)
    first = [b[0].tolist() for b in loader]
    pids = {p.pid for p in multiprocessing.active_children()} - earlier
    second = [b[0].tolist() for b in loader]
    assert first == second and len(first) == 3
    assert len(pids) == 2
    assert {p.pid for p in multiprocessing.active_children()} - earlier == pids
    partial = iter(loader)
    next(partial)  # leave an epoch early: its late batches must not leak into the next
    assert [b[0].tolist() for b in loader] == first
    iterable = DataLoader(Ranges(5), batch_size=2, timeout=WAIT, num_workers=2,
                          persistent_workers=True)
    assert [b.tolist() for b in iterable] == [b.tolist() for b in iterable]
    del loader, partial, iterable
    gc.collect()
    assert no_children_left()


def test_deleting_an_iterator_mid_epoch_stops_the_workers():
    it = iter(DataLoader(Squares(), batch_size=1, timeout=WAIT, num_workers=2,
                         prefetch_factor=3))
    next(it)
    del it
    gc.collect()
    assert no_children_left()


def test_timeout_raises_like_torch():
    it = iter(DataLoader(Slow(), num_workers=1, timeout=0.2))
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.2 seconds$"):
        next(it)
    assert no_children_left()


def test_argument_errors_and_pin_memory_match_torch():
    torch = pytest.importorskip("torch")
    cases = [dict(prefetch_factor=2), dict(persistent_workers=True),
             dict(num_workers=1, prefetch_factor=-1), dict(num_workers=-1)]
    for kwargs in cases:
        with pytest.raises(ValueError) as theirs:
            torch.utils.data.DataLoader([1], **kwargs)
        with pytest.raises(ValueError) as mine:
            DataLoader([1], **kwargs)
        assert str(mine.value) == str(theirs.value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = [b.tolist() for b in DataLoader([5, 6], timeout=WAIT, num_workers=1,
                                              pin_memory=True)]
    assert got == [[5], [6]]
    assert any("'pin_memory' argument is set as true but no accelerator is found" in
               str(w.message) for w in caught)


def test_spawned_workers_and_no_shared_memory_left():
    shm_before = minitorch_shm_files()
    loader = DataLoader(Squares(), batch_size=5, timeout=WAIT, num_workers=2,
                        multiprocessing_context="spawn")
    got = [(b[0][:, 0].tolist(), b[1].tolist()) for b in loader]
    assert got == [([float(i * i) for i in range(5)], [0] * 5),
                   ([float(i * i) for i in range(5, 10)], [1] * 5), ([100.0], [0])]
    assert no_children_left()
    assert minitorch_shm_files() == shm_before


def test_random_sampler_with_replacement_draws_lazily():
    torch = pytest.importorskip("torch")
    for module in (mt, torch):
        sampler = module.utils.data.RandomSampler(range(5), replacement=True,
                                                  num_samples=10 ** 10)
        assert len(sampler) == 10 ** 10
        head = list(itertools.islice(iter(sampler), 100))
        assert len(head) == 100 and set(head) <= set(range(5))
    g = mt.Generator()
    g.manual_seed(0)
    drawn = list(RandomSampler(range(3), replacement=True, num_samples=70, generator=g))
    assert len(drawn) == 70 and set(drawn) == {0, 1, 2}


def test_random_split_fractions_like_torch():
    torch = pytest.importorskip("torch")
    for fractions in ([0.5, 0.5], [0.3, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4], [1.0, 0.0]):
        for n in (10, 11, 7):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mine = random_split(range(n), fractions)
                theirs = torch.utils.data.random_split(range(n), fractions)
            assert [len(s) for s in mine] == [len(s) for s in theirs]
            assert sorted(i for s in mine for i in s) == list(range(n))
    for bad in ([0.5, 0.6], [-0.5, 1.5], [3, 3]):
        with pytest.raises(ValueError) as theirs:
            torch.utils.data.random_split(range(10), bad)
        with pytest.raises(ValueError) as mine:
            random_split(range(10), bad)
        assert str(mine.value) == str(theirs.value)
