"""The caching allocator behind tensor storage (csrc/core/allocator.c): freed
blocks come back for tensors of their size class, zero-filled requests still
get zeros, the cap and the MINITORCH_ALLOCATOR / MINITORCH_CACHE_BYTES knobs
hold (checked in fresh interpreters, since they are read once), foreign and
shared memory never enters the cache, and data stays right under churn from
several threads. Counters come from the internal _C._allocator_stats()."""
import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minitorch as mt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(mt.__file__)))
stats = mt._C._allocator_stats
CACHING = stats()["enabled"]
needs_cache = pytest.mark.skipif(not CACHING, reason="allocator cache off in this build/env")


def run(code, **env):
    e = dict(os.environ, PYTHONPATH=ROOT)
    e.pop("MINITORCH_ALLOCATOR", None)
    e.pop("MINITORCH_CACHE_BYTES", None)
    e.update(env)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@needs_cache
@pytest.mark.parametrize("n", [100, 1000, 77_777, 1_000_000])
def test_freed_block_is_reused(n):
    a = mt.empty(n)
    del a
    before = stats()
    b = mt.empty(n)
    after = stats()
    assert after["hits"] == before["hits"] + 1
    assert after["misses"] == before["misses"]
    assert after["cached_blocks"] == before["cached_blocks"] - 1
    del b
    assert stats()["cached_blocks"] == before["cached_blocks"]


@needs_cache
def test_a_slightly_smaller_request_reuses_the_block_of_its_class():
    # nothing kept from earlier tests (matmul's pack buffers come from the
    # cache too): the other class below must be a miss
    mt._C._allocator_release()
    a = mt.empty(100_000, dtype=mt.float32)
    del a
    before = stats()
    b = mt.empty(99_000, dtype=mt.float32)  # same quarter-power-of-two class
    assert stats()["hits"] == before["hits"] + 1
    c = mt.empty(300_000, dtype=mt.float32)  # another class: fresh memory
    assert stats()["misses"] == before["misses"] + 1
    del b, c


def garbage(n, dtype):
    return mt.full((n,), 7, dtype=dtype)


ZERO_MAKERS = {
    "zeros": lambda n, d: mt.zeros(n, dtype=d),
    "zeros_like": lambda n, d: mt.zeros_like(mt.empty(1, dtype=d).expand(n)),
    "new_zeros": lambda n, d: mt.empty(0, dtype=d).new_zeros(n),
    "zeros_2d": lambda n, d: mt.zeros(n // 10, 10, dtype=d).reshape(-1),
}


@needs_cache
@pytest.mark.parametrize("maker", sorted(ZERO_MAKERS))
@pytest.mark.parametrize("dtype", [mt.float32, mt.float64, mt.int64, mt.float16, mt.bool])
@pytest.mark.parametrize("n", [70, 1000, 123_450])
def test_zeros_are_zero_after_reuse(maker, dtype, n):
    for _ in range(3):
        g = garbage(n, dtype)
        del g
        hits = stats()["hits"]
        z = ZERO_MAKERS[maker](n, dtype)
        if n * z.element_size() > 256:
            assert stats()["hits"] > hits
        assert z.shape == (n,)
        assert not bool(z.any())


@needs_cache
def test_gradients_are_zero_where_nothing_flows_after_reuse():
    torch = pytest.importorskip("torch")
    n = 50_000
    for _ in range(3):
        g = garbage(n, mt.float32)
        del g
        x = mt.randn(n, requires_grad=True)
        idx = mt.tensor([3, 17, 3])
        x[idx].sum().backward()
        tx = torch.from_numpy(x.detach().numpy()).requires_grad_()
        tx[torch.tensor([3, 17, 3])].sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


@needs_cache
def test_release_empties_the_cache():
    xs = [mt.empty(40_000) for _ in range(4)]
    del xs
    assert stats()["cached_bytes"] > 0
    mt._C._allocator_release()
    s = stats()
    assert s["cached_bytes"] == 0 and s["cached_blocks"] == 0


@needs_cache
def test_cap_is_respected_and_oldest_blocks_go_first():
    r = run("""
import json, minitorch as mt
s = mt._C._allocator_stats
xs = [mt.empty(100_000, dtype=mt.uint8) for _ in range(30)]
del xs
mid = s()
big = mt.empty(2_000_000, dtype=mt.uint8)  # larger than the cap: never kept
del big
after = s()
y = mt.empty(100_000, dtype=mt.uint8)
print(json.dumps({"mid": mid, "after": after, "hit": s()["hits"] - after["hits"]}))
""", MINITORCH_CACHE_BYTES="1M")
    assert r["mid"]["cap_bytes"] == 1 << 20
    assert 0 < r["mid"]["cached_bytes"] <= 1 << 20
    assert r["mid"]["evictions"] > 0
    assert r["after"]["cached_bytes"] == r["mid"]["cached_bytes"]
    assert r["hit"] == 1


@pytest.mark.parametrize("env", [{"MINITORCH_ALLOCATOR": "malloc"},
                                 {"MINITORCH_CACHE_BYTES": "0"}])
def test_knobs_turn_the_cache_off(env):
    r = run("""
import json, minitorch as mt
for _ in range(20):
    z = mt.full((50_000,), 3.0)
    del z
    z = mt.zeros(50_000)
    assert not bool(z.any())
    del z
print(json.dumps(mt._C._allocator_stats()))
""", **env)
    assert r["hits"] == 0 and r["cached_bytes"] == 0
    if "MINITORCH_ALLOCATOR" in env:
        assert r["enabled"] is False


@needs_cache
def test_default_is_on_with_a_bounded_cap():
    r = run("import json, minitorch as mt; print(json.dumps(mt._C._allocator_stats()))")
    assert r["enabled"] is True
    assert 0 < r["cap_bytes"] <= 2 << 30


@needs_cache
def test_shared_memory_never_enters_the_cache():
    x = mt.randn(100_000)
    x.share_memory_()
    assert x.is_shared()
    blocks = stats()["cached_blocks"]
    del x
    assert stats()["cached_blocks"] == blocks


@needs_cache
def test_numpy_memory_never_enters_the_cache():
    a = np.arange(100_000, dtype=np.float32)
    blocks = stats()["cached_blocks"]
    t = mt.from_numpy(a)
    v = t[10:]
    del t, v
    assert stats()["cached_blocks"] == blocks
    np.testing.assert_array_equal(a, np.arange(100_000, dtype=np.float32))


DTYPES = [np.float32, np.float64, np.int32, np.int16]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 40_000), st.integers(0, 1000),
                          st.sampled_from(range(len(DTYPES)))), min_size=1, max_size=40))
def test_views_and_keep_alive_under_churn(script):
    """Random allocations and frees (bases dropped while views live), each
    tensor mirrored in NumPy and checked after every step."""
    live = []  # (tensor, numpy mirror)
    rng = np.random.default_rng(len(script))
    for action, n, pick, d in script:
        if action == 0 or not live:
            a = rng.integers(-100, 100, n).astype(DTYPES[d])
            live.append((mt.from_numpy(a.copy()) * 1, a))
        elif action == 1:
            t, a = live.pop(pick % len(live))
            k = pick % max(1, a.size)
            live.append((t[k:], a[k:]))  # the base goes; the view keeps its storage
        elif action == 2:
            live.pop(pick % len(live))
        else:
            t, a = live[pick % len(live)]
            t.add_(1)
            a += 1
        for t, a in live:
            np.testing.assert_array_equal(t.numpy(), a)


def test_thread_churn():
    errors = []
    mt.set_num_threads(2)

    def work(seed):
        rng = np.random.default_rng(seed)
        try:
            for _ in range(150):
                n = int(rng.integers(100, 60_000))
                a = rng.standard_normal(n).astype(np.float32)
                t = mt.from_numpy(a) * 2 + 1
                z = mt.zeros(n)
                np.testing.assert_allclose(t.numpy(), a * 2 + 1, rtol=1e-6)
                assert not bool(z.any())
        except Exception as e:  # noqa: BLE001 - collected from the threads, asserted below
            errors.append(repr(e))

    pool = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert errors == []
    s = stats()
    assert s["cached_bytes"] <= s["cap_bytes"]


@needs_cache
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_starts_with_an_empty_cache():
    r = run("""
import json, os, minitorch as mt
xs = [mt.full((50_000,), 5.0) for _ in range(5)]
del xs
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    s = mt._C._allocator_stats()
    z = mt.zeros(50_000)
    y = mt.full((50_000,), 2.0)
    del y
    y2 = mt.empty(50_000)
    os.write(w, json.dumps({"cached": s["cached_blocks"], "zero": not bool(z.any()),
                            "reused": mt._C._allocator_stats()["hits"] > s["hits"]}).encode())
    os._exit(0)
os.waitpid(pid, 0)
child = json.loads(os.read(r, 4096))
child["parent_cached"] = mt._C._allocator_stats()["cached_blocks"]
print(json.dumps(child))
""")
    assert r == {"cached": 0, "zero": True, "reused": True, "parent_cached": 5}
