"""The program tests/test_distributed.py runs on every rank under mpiexec.

    mpiexec -n N python tests/distributed_worker.py MODE OUT_DIR

Each check computes its expected values with NumPy from inputs every rank can
rebuild (a rank's input depends only on its rank), runs the collective, and
writes one line `<name> ok|FAIL <detail>` to OUT_DIR/rank<rank>.txt; the test
reads the files of all ranks. A failing comparison is reported, not raised, so the ranks
stay in step; modes `raise` and `timeout` test what happens when one does not.
"""
import contextlib
import os
import sys
import time
import traceback
from datetime import timedelta

import numpy as np

import minitorch as torch
import minitorch.distributed as dist
from minitorch.nn.parallel import DistributedDataParallel as DDP
from minitorch.utils.data.distributed import DistributedSampler

R = dist.ReduceOp
DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]
FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
SHAPE = (3, 5)


def report(rank, name, ok, detail=""):
    with open(os.path.join(sys.argv[2], f"rank{rank}.txt"), "a") as f:
        f.write(f"{name} {'ok' if ok else 'FAIL'} {detail}".rstrip() + "\n")


# Mismatches found by expect_equal in the running check. They are collected, not
# raised, so a rank whose values are wrong still runs the check's remaining
# collectives and the ranks stay in step.
MISMATCHES = []


def check(rank, name, fn):
    del MISMATCHES[:]
    try:
        fn()
    except Exception:  # noqa: BLE001 - any failure is reported to rank 0
        report(rank, name, False, traceback.format_exc().replace("\n", " | "))
    else:
        report(rank, name, not MISMATCHES, " | ".join(MISMATCHES))


def values(rank, dtype, shape=SHAPE, salt=0):
    """Rank `rank`'s input as NumPy (float32 for the narrow floats, whose values are
    chosen exactly representable)."""
    rs = np.random.RandomState(1000 * rank + salt + 17)
    if dtype == torch.bool:
        return rs.rand(*shape) < 0.5
    if dtype == torch.uint8:
        return rs.randint(0, 5, shape).astype(np.uint8)
    if dtype in (torch.int8, torch.int16, torch.int32, torch.int64):
        return rs.randint(-4, 5, shape).astype(torch.empty(0, dtype=dtype).numpy().dtype)
    # small integers and halves: exact in every float type and in any summation order
    return (rs.randint(-8, 9, shape) / 2).astype(np.float32 if dtype in (torch.float16,
                                                                         torch.bfloat16)
                                                 else torch.empty(0, dtype=dtype).numpy().dtype)


def expect(ok, what):
    if not ok:
        MISMATCHES.append(str(what))


def to_tensor(a, dtype):
    return torch.tensor(a).to(dtype)


def as_numpy(t):
    if t.dtype in (torch.float16, torch.bfloat16):
        return t.float().numpy()
    return t.numpy()


def expect_equal(t, expected, dtype):
    got = as_numpy(t)
    want = as_numpy(to_tensor(np.asarray(expected), dtype))
    if got.shape != want.shape or not np.array_equal(got, want):
        MISMATCHES.append(f"got {got.tolist()} expected {want.tolist()}")


def reference(op, arrays, dtype, world):
    stack = np.stack(arrays)
    if dtype == torch.bool:
        return {R.SUM: stack.any(0), R.MAX: stack.any(0), R.BOR: stack.any(0),
                R.PRODUCT: stack.all(0), R.MIN: stack.all(0), R.BAND: stack.all(0),
                R.BXOR: np.logical_xor.reduce(stack, 0)}[op]
    if op == R.SUM:
        return stack.sum(0, dtype=stack.dtype)
    if op == R.PRODUCT:
        return stack.prod(0, dtype=stack.dtype)
    if op == R.MIN:
        return stack.min(0)
    if op == R.MAX:
        return stack.max(0)
    if op == R.BAND:
        return np.bitwise_and.reduce(stack, 0)
    if op == R.BOR:
        return np.bitwise_or.reduce(stack, 0)
    if op == R.BXOR:
        return np.bitwise_xor.reduce(stack, 0)
    total = stack.sum(0, dtype=stack.dtype)
    if dtype in FLOATS:
        return total / np.asarray(world, dtype=total.dtype)
    return np.sign(total) * (np.abs(total) // world)


def ops_for(dtype):
    ops = [R.SUM, R.PRODUCT, R.MIN, R.MAX]
    if dtype != torch.bool:
        ops.append(R.AVG)
    if dtype not in FLOATS:
        ops += [R.BAND, R.BOR, R.BXOR]
    return ops


def layouts(a, dtype):
    """The same values as a contiguous tensor and as a transposed (non-contiguous) view."""
    yield "contig", to_tensor(a, dtype)
    yield "strided", to_tensor(np.ascontiguousarray(a.T), dtype).t()


# ----------------------------------------------------------------- collectives

def collectives(rank, world):
    others = [values(r, torch.float32) for r in range(world)]
    for dtype in DTYPES:
        d = str(dtype).split(".")[-1]
        inputs = [values(r, dtype) for r in range(world)]

        for op in ops_for(dtype):
            for layout, _ in layouts(inputs[rank], dtype):
                def run(op=op, layout=layout):
                    t = dict(layouts(inputs[rank], dtype))[layout]
                    dist.all_reduce(t, op=op)
                    expect_equal(t, reference(op, inputs, dtype, world), dtype)
                check(rank, f"all_reduce-{d}-{op.name}-{layout}", run)

        def async_all_reduce():
            t = to_tensor(inputs[rank], dtype)
            work = dist.all_reduce(t, op=R.MAX, async_op=True)
            work.wait()
            assert work.is_completed() and work.result()[0] is t
            expect_equal(t, reference(R.MAX, inputs, dtype, world), dtype)
        check(rank, f"all_reduce-async-{d}", async_all_reduce)

        def broadcast():
            for src in range(world):
                for layout, t in layouts(inputs[rank], dtype):
                    dist.broadcast(t, src=src)
                    expect_equal(t, inputs[src], dtype)
        check(rank, f"broadcast-{d}", broadcast)

        def reduce():
            for layout, t in layouts(inputs[rank], dtype):
                dst = world - 1
                dist.reduce(t, dst=dst, op=R.MAX)
                expect_equal(t, reference(R.MAX, inputs, dtype, world) if rank == dst
                             else inputs[rank], dtype)
        check(rank, f"reduce-{d}", reduce)

        def all_gather():
            outs = [torch.zeros(SHAPE, dtype=dtype) for _ in range(world)]
            outs[0] = torch.zeros(SHAPE[::-1], dtype=dtype).t()  # a strided output
            dist.all_gather(outs, dict(layouts(inputs[rank], dtype))["strided"])
            for r in range(world):
                expect_equal(outs[r], inputs[r], dtype)
        check(rank, f"all_gather-{d}", all_gather)

        def all_gather_into_tensor():
            cat = torch.zeros((world * SHAPE[0], SHAPE[1]), dtype=dtype)
            dist.all_gather_into_tensor(cat, to_tensor(inputs[rank], dtype))
            expect_equal(cat, np.concatenate(inputs), dtype)
            stacked = torch.zeros((world,) + SHAPE, dtype=dtype)
            dist.all_gather_into_tensor(stacked, to_tensor(inputs[rank], dtype))
            expect_equal(stacked, np.stack(inputs), dtype)
        check(rank, f"all_gather_into_tensor-{d}", all_gather_into_tensor)

        def reduce_scatter():
            big = [values(r, dtype, (world * 2, 3), salt=5) for r in range(world)]
            ops = [R.SUM, R.AVG] if dtype in FLOATS else [R.SUM if dtype != torch.bool
                                                          else R.MAX]
            for op in ops:
                out = torch.zeros((2, 3), dtype=dtype)
                dist.reduce_scatter_tensor(out, to_tensor(big[rank], dtype), op=op)
                full = reference(op, big, dtype, world)
                expect_equal(out, full[2 * rank:2 * rank + 2], dtype)
        check(rank, f"reduce_scatter_tensor-{d}", reduce_scatter)

        def gather():
            dst = world - 1
            mine = dict(layouts(inputs[rank], dtype))["strided"]
            if rank == dst:
                outs = [torch.zeros(SHAPE, dtype=dtype) for _ in range(world)]
                dist.gather(mine, outs, dst=dst)
                for r in range(world):
                    expect_equal(outs[r], inputs[r], dtype)
            else:
                dist.gather(mine, dst=dst)
        check(rank, f"gather-{d}", gather)

        def scatter():
            src = world - 1
            out = torch.zeros(SHAPE[::-1], dtype=dtype).t()
            parts = [to_tensor(values(r, dtype, salt=9), dtype) for r in range(world)]
            dist.scatter(out, parts if rank == src else None, src=src)
            expect_equal(out, values(rank, dtype, salt=9), dtype)
        check(rank, f"scatter-{d}", scatter)

        def send_recv():
            right, left = (rank + 1) % world, (rank - 1) % world
            out = torch.zeros(SHAPE[::-1], dtype=dtype).t()
            if rank % 2 == 0:
                dist.send(to_tensor(inputs[rank], dtype), dst=right)
                sender = dist.recv(out, src=left)
            else:
                sender = dist.recv(out)
                dist.send(to_tensor(inputs[rank], dtype), dst=right)
            expect(sender == left, f"sender {sender}")
            expect_equal(out, inputs[left], dtype)
            out2 = torch.zeros(SHAPE, dtype=dtype)
            works = [dist.isend(to_tensor(inputs[rank], dtype), dst=right, tag=7),
                     dist.irecv(out2, src=left, tag=7)]
            for w in works:
                w.wait()
            expect_equal(out2, inputs[left], dtype)
        check(rank, f"send_recv-{d}", send_recv)

    def widening():
        # 256 + 1 + 1 in bfloat16 one rank at a time rounds to 256 at every step;
        # reduced in float32 and rounded once it is 258, as torch reduces.
        t = torch.tensor([256.0 if rank == 0 else 1.0]).to(torch.bfloat16)
        dist.all_reduce(t)
        want = 256.0 + (world - 1)
        expect(t.float().item() == torch.tensor([want]).to(torch.bfloat16).float().item(), t)
        h = torch.tensor([2048.0 if rank == 0 else 1.0]).half()
        dist.all_reduce(h)
        expect(h.float().item() == torch.tensor([2048.0 + world - 1]).half().float().item(), h)
    check(rank, "all_reduce-narrow-floats-widen", widening)

    def large_float():
        n = 1 << 20
        t = torch.full((n,), float(rank + 1))
        dist.all_reduce(t, op=R.AVG)
        assert torch.equal(t, torch.full((n,), (world + 1) / 2)), t[:4]
    check(rank, "all_reduce-1M-float32-avg", large_float)

    def random_floats():
        a = [np.random.RandomState(r).randn(64).astype(np.float64) for r in range(world)]
        t = torch.tensor(a[rank])
        dist.all_reduce(t)
        np.testing.assert_allclose(t.numpy(), np.sum(a, 0), rtol=1e-12)
    check(rank, "all_reduce-random-float64", random_floats)

    def zero_dim_and_empty():
        t = torch.tensor(float(rank))
        dist.all_reduce(t)
        expect(t.item() == sum(range(world)), t)
        e = torch.empty(0, 3)
        dist.all_reduce(e)
        assert e.shape == (0, 3)
    check(rank, "all_reduce-0d-and-empty", zero_dim_and_empty)

    def barrier():
        dist.barrier()
        work = dist.barrier(async_op=True)
        assert work.wait() is True
    check(rank, "barrier", barrier)

    def groups():
        members = [0, world - 1]
        g = dist.new_group(members)
        if rank in members:
            expect(dist.get_rank(g) == members.index(rank), dist.get_rank(g))
            expect(dist.get_world_size(g) == 2, dist.get_world_size(g))
            expect(dist.get_process_group_ranks(g) == members, dist.get_process_group_ranks(g))
            t = torch.tensor(others[rank])
            dist.all_reduce(t, group=g)
            expect_equal(t, others[0] + others[world - 1], torch.float32)
            b = torch.tensor(others[rank])
            dist.broadcast(b, src=world - 1, group=g)
            expect_equal(b, others[world - 1], torch.float32)
            dist.destroy_process_group(g)
        else:
            assert g == dist.GroupMember.NON_GROUP_MEMBER
            assert dist.get_rank(g) == -1 and dist.get_world_size(g) == -1
            assert dist.all_reduce(torch.ones(2), group=g) is None
    check(rank, "new_group", groups)

    def errors():
        def raises(kind, text, fn):
            try:
                fn()
            except kind as e:
                assert text in str(e), str(e)
            else:
                raise AssertionError(f"no {kind.__name__} for {text}")
        raises(ValueError, "trying to initialize the default process group twice!",
               lambda: dist.init_process_group("mpi"))
        raises(RuntimeError, "invalid root rank: 7", lambda: dist.broadcast(torch.ones(2), 7))
        raises(ValueError, "destination rank should not be the same",
               lambda: dist.send(torch.ones(2), rank))
        raises(RuntimeError, "expected length", lambda: dist.all_gather([torch.ones(2)] *
                                                                       (world + 1), torch.ones(2)))
        raises(RuntimeError, "invalid tensor size", lambda: dist.all_gather(
            [torch.ones(3)] * world, torch.ones(2)))
        raises(RuntimeError, "Cannot use ReduceOp.BAND with non-integral dtype",
               lambda: dist.all_reduce(torch.ones(2), op=R.BAND))
        raises(TypeError, "Expected parameter `tensor` of type torch.Tensor",
               lambda: dist.all_reduce([torch.ones(2)]))
        raises(ValueError, "world_size times input tensor size",
               lambda: dist.all_gather_into_tensor(torch.ones(world + 1), torch.ones(1)))
        raises(ValueError, "gather_list`` must be specified on destination rank",
               lambda: dist.gather(torch.ones(1), None, dst=rank))
        raises(ValueError, "Group 5 is not registered", lambda: dist.get_rank(5))
    check(rank, "errors", errors)

    def sampler():
        n = 23
        parts = [list(DistributedSampler(range(n), world, r, seed=3)) for r in range(world)]
        mine = list(DistributedSampler(range(n), seed=3))
        # every rank draws the same permutation: gather what each rank picked
        outs = [torch.empty(len(mine), dtype=torch.int64) for _ in range(world)]
        dist.all_gather(outs, torch.tensor(mine))
        assert [o.tolist() for o in outs] == parts
        assert mine == parts[rank]
        flat = sorted(i for p in parts for i in p)
        assert set(flat) == set(range(n)) and len(flat) == world * -(-n // world)
        s = DistributedSampler(range(n), world, rank, seed=3)
        s.set_epoch(1)
        assert list(s) != parts[rank] and len(s) == len(parts[rank])
        dropped = [list(DistributedSampler(range(n), world, r, drop_last=True,
                                           shuffle=False)) for r in range(world)]
        assert sum(map(len, dropped)) == n - n % world
    check(rank, "distributed_sampler", sampler)


# ------------------------------------------------------------------------ DDP

def make_model(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 16),
                               torch.nn.Tanh(), torch.nn.Linear(16, 3))


def batch(step, size):
    torch.manual_seed(10_000 + step)
    return torch.randn(size, 6), torch.randint(0, 3, (size,))


def flat_params(model):
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def same_on_all_ranks(t, world):
    outs = [torch.empty_like(t) for _ in range(world)]
    dist.all_gather(outs, t)
    return all(torch.equal(outs[0], o) for o in outs)


def train(world, steps, per_rank, micro=1, rank=None, **ddp_kwargs):
    """SGD on `micro` micro-batches of world * per_rank per step: alone on each whole
    micro-batch (rank None), or DDP on this rank's share, syncing on the last one."""
    model = make_model(seed=0 if rank is None else rank)  # DDP must broadcast rank 0's
    net = model if rank is None else DDP(model, **ddp_kwargs)
    opt = torch.optim.SGD(net.parameters(), lr=0.2, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    for step in range(steps):
        opt.zero_grad()
        x, y = batch(step, world * per_rank * micro)
        for m in range(micro):
            if rank is None:
                lo, size = m * world * per_rank, world * per_rank
            else:
                lo, size = (m * world + rank) * per_rank, per_rank
            local = rank is not None and m < micro - 1
            with net.no_sync() if local else contextlib.nullcontext():
                (loss_fn(net(x[lo:lo + size]), y[lo:lo + size]) / micro).backward()
        opt.step()
    return model


class Branchy(torch.nn.Module):
    """`used_by_0` takes part on rank 0 only; `never` on no rank."""

    def __init__(self, rank):
        super().__init__()
        self.rank = rank
        self.body = torch.nn.Linear(4, 4)
        self.used_by_0 = torch.nn.Linear(4, 4)
        self.never = torch.nn.Linear(4, 4)

    def forward(self, x):
        x = self.body(x)
        return self.used_by_0(x) if self.rank == 0 else x


class TwoHeads(torch.nn.Module):
    """A main head and an auxiliary one, returned in a dict and a list."""

    def __init__(self):
        super().__init__()
        self.main = torch.nn.Linear(4, 3)
        self.aux = torch.nn.Linear(4, 2)

    def forward(self, x):
        return {"main": self.main(x), "aux": [self.aux(x)]}


def ddp_checks(rank, world):
    def broadcast_at_start():
        model = make_model(seed=rank)
        DDP(model)
        ref = flat_params(make_model(seed=0))
        assert torch.equal(flat_params(model), ref)
    check(rank, "ddp-broadcast-at-start", broadcast_at_start)

    for name, kwargs in (("one-bucket", {}), ("many-buckets", {"bucket_cap_mb": 0.0001})):
        def matches_single(kwargs=kwargs):
            model = train(world, steps=4, per_rank=8, rank=rank, **kwargs)
            got = flat_params(model)
            assert same_on_all_ranks(got, world), "parameters differ across ranks"
            ref = flat_params(train(world, steps=4, per_rank=8))
            np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
        check(rank, f"ddp-matches-single-process-{name}", matches_single)

    def bucket_count():
        ddp = DDP(make_model(seed=0), bucket_cap_mb=0.0001)
        assert len(ddp.reducer.buckets) == 3, len(ddp.reducer.buckets)
    check(rank, "ddp-many-buckets-planned", bucket_count)

    def no_sync():
        model = train(world, steps=3, per_rank=4, micro=2, rank=rank)
        got = flat_params(model)
        expect(same_on_all_ranks(got, world), "parameters differ across ranks")
        ref = flat_params(train(world, steps=3, per_rank=4, micro=2))
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
        # inside no_sync the gradients stay local
        ddp = DDP(make_model(seed=0))
        with ddp.no_sync():
            ddp(torch.full((2, 6), float(rank))).sum().backward()
        g = ddp.module[0].weight.grad.clone()
        assert not same_on_all_ranks(g, world)
    check(rank, "ddp-no_sync", no_sync)

    def unused():
        model = Branchy(rank)
        ddp = DDP(model, find_unused_parameters=True)
        ddp(torch.ones(3, 4)).sum().backward()
        expect(model.never.weight.grad is None, "`never` got a gradient")
        g = model.used_by_0.weight.grad.clone()
        expect(same_on_all_ranks(g, world), "used_by_0's gradient differs across ranks")
        expect(same_on_all_ranks(model.body.weight.grad, world), "body's gradient differs")
        # rank 0's gradient, averaged over the group (the others contribute zero)
        local = Branchy(0)
        local.load_state_dict(model.state_dict())
        local(torch.ones(3, 4)).sum().backward()
        np.testing.assert_allclose(g.numpy(), local.used_by_0.weight.grad.numpy() / world,
                                   rtol=1e-6)
        ddp(torch.ones(3, 4)).sum().backward()  # a second iteration works too
        np.testing.assert_allclose(model.used_by_0.weight.grad.numpy(), 2 * g.numpy(),
                                   rtol=1e-6)
    check(rank, "ddp-find_unused_parameters", unused)

    def output_not_in_loss():
        """The loss leaves the auxiliary output out: its head gets no gradient (as
        in torch) and the reduction finishes, iteration after iteration."""
        torch.manual_seed(0)
        model = TwoHeads()
        ddp = DDP(model, find_unused_parameters=True)
        for _ in range(2):
            ddp(torch.full((3, 4), float(rank + 1)))["main"].sum().backward()
        expect(model.aux.weight.grad is None and model.aux.bias.grad is None,
               "the auxiliary head got a gradient")
        alone = TwoHeads()
        alone.load_state_dict(model.state_dict())
        for r in range(world):
            alone(torch.full((3, 4), float(r + 1)))["main"].sum().backward()
        np.testing.assert_allclose(model.main.weight.grad.numpy(),
                                   2 * alone.main.weight.grad.numpy() / world, rtol=1e-6)
        out = ddp(torch.ones(2, 4))
        (out["main"].sum() + out["aux"][0].sum()).backward()
        assert model.aux.weight.grad is not None
        expect(same_on_all_ranks(model.aux.weight.grad, world), "aux gradient differs")
    check(rank, "ddp-find_unused_parameters-output-not-in-loss", output_not_in_loss)

    def buffers():
        torch.manual_seed(rank)
        model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.BatchNorm1d(4))
        ddp = DDP(model)
        ddp(torch.randn(5, 4) + rank)
        # the forward broadcast rank 0's buffers first; each rank then updated its own
        ddp(torch.randn(5, 4))
        stats = model[1].running_mean.clone()
        expect(not same_on_all_ranks(stats, world), "running stats identical after a forward")
        ddp.eval()
        with torch.no_grad():
            ddp(torch.randn(2, 4))
        assert same_on_all_ranks(model[1].running_mean, world)
    check(rank, "ddp-broadcast-buffers", buffers)

    def unfinished():
        model = Branchy(0)  # `never` gets no gradient and nothing finds it
        ddp = DDP(model)
        ddp(torch.ones(2, 4)).sum().backward()
        try:
            ddp(torch.ones(2, 4))
        except RuntimeError as e:
            text = str(e)
            assert text.startswith("Expected to have finished reduction in the prior iteration "
                                   "before starting a new one."), text
            assert "`find_unused_parameters=True` to `torch.nn.parallel.Distributed" in text
            assert (f"\nParameter indices which did not receive grad for rank {rank}: 4 5\n In "
                    f"addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG "
                    f"to either INFO or DETAIL") in text, text
        else:
            raise AssertionError("no error for an unfinished reduction")
        for b in ddp.reducer.buckets:
            if b.work is not None:
                b.work.wait()
    check(rank, "ddp-unfinished-reduction-error", unfinished)


# ---------------------------------------------------------------------- modes

def expect_timeout(rank, name, wait, low, high):
    """Reports whether wait() raised DistBackendError after low to high seconds."""
    started = time.monotonic()
    try:
        wait()
    except dist.DistBackendError as e:
        waited = time.monotonic() - started
        report(rank, name, low < waited < high, f"{waited:.1f}s {e}")
    else:
        report(rank, name, False, "no timeout")


def main(mode):
    timeout = timedelta(seconds=2) if mode == "timeout" else None
    dist.init_process_group("mpi", timeout=timeout)
    rank, world = dist.get_rank(), dist.get_world_size()
    if mode == "collectives":
        collectives(rank, world)
    elif mode == "ddp":
        ddp_checks(rank, world)
    elif mode == "raise":
        if rank == world - 1:
            raise ValueError("rank failed on purpose")
        dist.barrier()  # would wait forever for the rank that died
    elif mode == "timeout":
        if rank == 0:
            work = dist.all_reduce(torch.ones(4), async_op=True)
            expect_timeout(rank, "timeout", work.wait, 1.5, 10)
            work.wait(timeout=timedelta(seconds=60))
            expect_timeout(rank, "barrier-timeout",
                           lambda: dist.barrier(timeout=timedelta(seconds=0.5)), 0.4, 3)
            dist.barrier(timeout=timedelta(seconds=60))
        else:
            time.sleep(4)
            dist.all_reduce(torch.ones(4))
            time.sleep(2)
            dist.barrier()
            dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
