"""Tensor.share_memory_/is_shared and minitorch.multiprocessing: storages in
shared memory that forked and spawned processes read and write, tensors
sent through queues without copies, and nothing left behind."""
import os
import sys

import numpy as np
import pytest

import minitorch as mt
import minitorch.multiprocessing as mp
from shm_files import minitorch_shm_files

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the fd and /dev/shm checks read Linux's /proc")

TIMEOUT = 30


def open_fds():
    """The descriptors of shared-memory files this process holds."""
    fds = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(("/memfd:", "/dev/shm/")):
            fds.append(target)
    return len(fds)


def test_share_memory_moves_storage_in_place_like_torch():
    torch = pytest.importorskip("torch")
    for lib in (mt, torch):
        x = lib.arange(12.0).reshape(3, 4)
        view = x[1:, ::2]
        assert not x.is_shared() and not view.is_shared()
        assert x.share_memory_() is x
        assert x.is_shared() and view.is_shared()
        assert x.share_memory_() is x  # already shared: a no-op
        assert view.tolist() == [[4.0, 6.0], [8.0, 10.0]]
        view[0, 0] = -1.0
        assert x[1, 0].item() == -1.0
        assert not x.clone().is_shared()


@pytest.mark.parametrize("dtype", [mt.float32, mt.bfloat16, mt.bool, mt.int64])
def test_share_memory_keeps_values_of_every_kind_of_storage(dtype):
    small = mt.ones(3, dtype=dtype)  # the storage shares its block with its header
    big = mt.ones(100000, dtype=dtype)
    empty = mt.ones(0, dtype=dtype)
    foreign = mt.from_numpy(np.ones(7, dtype=np.float64))
    for t in (small, big, empty, foreign):
        before = t.tolist()
        t.share_memory_()
        assert t.is_shared() and t.tolist() == before


def test_share_memory_autograd_and_versions_survive():
    w = mt.ones(3, requires_grad=True)
    w.share_memory_()
    (w * 2).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]


def child_writes(x, q, done):
    x.mul_(10)
    y = mt.arange(6, dtype=mt.int32) + 1
    q.put((y, y[2:]))
    done.wait(TIMEOUT)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_processes_share_memory_both_ways(method):
    ctx = mp.get_context(method)
    x = mt.arange(4.0).share_memory_()
    q, done = ctx.Queue(), ctx.Event()
    p = ctx.Process(target=child_writes, args=(x, q, done))
    p.start()
    try:
        y, tail = q.get(timeout=TIMEOUT)
    finally:
        done.set()
        p.join(TIMEOUT)
    assert p.exitcode == 0
    assert x.tolist() == [0.0, 10.0, 20.0, 30.0]  # the child wrote into our memory
    assert y.tolist() == [1, 2, 3, 4, 5, 6] and y.is_shared()
    assert tail.data_ptr() == y.data_ptr() + 8  # one storage for both views
    tail[0] = 0
    assert y[2].item() == 0


def test_queue_refuses_non_leaf_that_requires_grad_like_torch():
    torch = pytest.importorskip("torch")
    import torch.multiprocessing as tmp
    from multiprocessing.reduction import ForkingPickler
    messages = []
    for lib in (mt, torch):
        y = lib.ones(2, requires_grad=True) * 2
        with pytest.raises(RuntimeError) as info:
            ForkingPickler.dumps(y)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert tmp.get_sharing_strategy() in mp.get_all_sharing_strategies() | {"file_system"}


def test_from_shared_fd_refuses_a_short_file():
    x = mt.arange(4.0).share_memory_()
    fd = os.dup(mt._C._shared_fd(x))
    with pytest.raises(RuntimeError, match="holds 16 bytes, but the storage needs 64"):
        mt._C._from_shared_fd(fd, 64)


def test_nothing_left_behind():
    shm_before = minitorch_shm_files()
    fds_before = open_fds()
    ctx = mp.get_context("fork")
    tensors = [mt.rand(1000).share_memory_() for _ in range(20)]
    assert open_fds() == fds_before + 20
    q, done = ctx.Queue(), ctx.Event()
    p = ctx.Process(target=child_writes, args=(tensors[0], q, done))
    p.start()
    got = q.get(timeout=TIMEOUT)
    done.set()
    p.join(TIMEOUT)
    del tensors, got
    q.close()
    q.join_thread()
    p.close()
    assert open_fds() == fds_before
    assert minitorch_shm_files() == shm_before
