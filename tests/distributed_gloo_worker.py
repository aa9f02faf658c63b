"""The program tests/test_distributed_gloo.py starts on every rank the torchrun way.

    python -m minitorch.distributed.run --nproc_per_node N \\
        tests/distributed_gloo_worker.py MODE OUT_DIR [INIT]

Each rank joins with init_process_group("gloo") (INIT picks the init method:
env://, tcp:// with rank and world_size, "cpu:gloo" or backend None) and
writes its checks to OUT_DIR/rank<rank>.txt as tests/distributed_worker.py does;
rank 0 also saves the whole-batch SyncBatchNorm results to OUT_DIR/syncbn.npz,
which the test compares between 1 and N ranks and with torch.
"""
import os
import sys
import time
from datetime import timedelta

import numpy as np

import minitorch as torch
import minitorch.distributed as dist
from distributed_worker import MISMATCHES, check, expect, report

C = 3
ROWS = 7
# the SyncBatchNorm layers checked: input shape, layer arguments, dtype
LAYERS = {"3d": ((ROWS, C, 4), {"momentum": 0.1}, np.float32),
          "4d": ((ROWS, C, 2, 3), {"momentum": None}, np.float32),
          "2d": ((ROWS, C), {"momentum": 0.3, "affine": False}, np.float64)}


def raises(kind, text, fn):
    try:
        fn()
    except kind as e:
        assert text in str(e), str(e)
    else:
        raise AssertionError(f"no {kind.__name__} for {text}")


def shares(world):
    """The rows of the whole batch each rank holds: uneven, the last rank none
    when there are 3 ranks or more."""
    if world == 1:
        return [ROWS]
    if world == 2:
        return [3, 4]
    return [ROWS - (world - 2)] + [1] * (world - 2) + [0]


def syncbn_data(kind):
    """The whole batch, the output weights of the loss, and the affine parameters
    (NumPy, so the test rebuilds them for torch)."""
    shape, _, dtype = LAYERS[kind]
    rs = np.random.RandomState(7)
    x = (rs.randn(*shape) * 2 + 1).astype(dtype)
    g = rs.randn(*shape).astype(dtype)
    w, b = rs.rand(C).astype(dtype) + 0.5, rs.randn(C).astype(dtype)
    return x, g, w, b


# ----------------------------------------------------------------- the checks

def init_checks(rank, world, init):
    def environment():
        env = os.environ
        expect(dist.get_backend() == {"env": "gloo", "tcp": "gloo", "cpu": "cpu:gloo",
                                      "none": "undefined"}[init], dist.get_backend())
        expect(dist.group.WORLD.name() == "gloo", dist.group.WORLD.name())
        for name, want in (("RANK", rank), ("LOCAL_RANK", rank), ("WORLD_SIZE", world),
                           ("LOCAL_WORLD_SIZE", world), ("GROUP_RANK", 0),
                           ("ROLE_RANK", rank), ("GROUP_WORLD_SIZE", 1)):
            expect(env.get(name) == str(want), f"{name}={env.get(name)}")
        expect(dist.is_torchelastic_launched(), "not seen as launched by torchrun")
        ids = [None] * world
        dist.all_gather_object(ids, (env["TORCHELASTIC_RUN_ID"], env["MASTER_ADDR"],
                                     env["MASTER_PORT"]))
        expect(len(set(ids)) == 1, ids)
    check(rank, "init-" + init, environment)


def object_checks(rank, world):
    def made(r):
        return {"rank": r, "t": torch.arange(r + 2) * 1.5, "nested": [None, (r, "x" * r)]}

    def same(a, b):
        return (a["rank"] == b["rank"] and torch.equal(a["t"], b["t"])
                and a["nested"] == b["nested"])

    def broadcast():
        for src in range(world):
            objs = [made(rank), rank, "mine"]
            dist.broadcast_object_list(objs, src=src)
            expect(same(objs[0], made(src)) and objs[1:] == [src, "mine"], objs)
    check(rank, "broadcast_object_list", broadcast)

    def all_gather():
        out = [None] * world
        dist.all_gather_object(out, made(rank))
        expect(all(same(out[r], made(r)) for r in range(world)), out)
        raises(IndexError, "list assignment index out of range",
               lambda: dist.all_gather_object([None] * (world - 1), rank))
    check(rank, "all_gather_object", all_gather)

    def gather():
        dst = world - 1
        out = [None] * world if rank == dst else None
        dist.gather_object(made(rank), out, dst=dst)
        if rank == dst:
            expect(all(same(out[r], made(r)) for r in range(world)), out)
        else:
            expect(out is None, out)
        wrong = None if rank == dst else [None] * world
        want = ("must be specified on destination rank" if rank == dst
                else "must NOT be specified on non-destination ranks")
        raises(ValueError, want, lambda: dist.gather_object(1, wrong, dst=dst))
    check(rank, "gather_object", gather)

    def scatter():
        out = [None]
        dist.scatter_object_list(out, [made(r) for r in range(world)] if rank == 0 else None,
                                 src=0)
        expect(same(out[0], made(rank)), out)
        raises(ValueError, "scatter_object_output_list to be a list of size at least 1",
               lambda: dist.scatter_object_list([], [1] * world))
    check(rank, "scatter_object_list", scatter)

    def subgroup():
        """src and dst are global ranks; a rank outside the group is left alone."""
        members = [0, world - 1] if world > 1 else [0]
        g = dist.new_group(members)
        objs, gathered = [f"mine{rank}"], [None] * len(members)
        dist.broadcast_object_list(objs, src=world - 1, group=g)
        dist.all_gather_object(gathered, rank * 10, group=g)
        out = [None] * len(members) if rank == 0 else None
        dist.gather_object(rank, out, dst=0, group=g)
        if rank in members:
            expect(objs == [f"mine{world - 1}"], objs)
            expect(gathered == [m * 10 for m in members], gathered)
            expect(rank != 0 or out == members, out)
            dist.destroy_process_group(g)
        else:
            expect(objs == [f"mine{rank}"] and gathered == [None, None], (objs, gathered))
    check(rank, "object-collectives-subgroup", subgroup)


def a2a_checks(rank, world):
    dtypes = [torch.float32, torch.float64, torch.int64, torch.int16, torch.bool,
              torch.bfloat16]

    def rows_of(r, n):
        """Rank r's input: n rows of 3 whose values name their rank and row."""
        return (np.arange(n * 3).reshape(n, 3) + 100 * r) % 251

    def even():
        for dtype in dtypes:
            mine = torch.tensor(rows_of(rank, 2 * world)).to(dtype)
            out = torch.zeros(3, 2 * world, dtype=dtype).t()  # a strided output
            dist.all_to_all_single(out, mine)
            want = np.concatenate([rows_of(r, 2 * world)[2 * rank:2 * rank + 2]
                                   for r in range(world)])
            expect(np.array_equal(out.to(torch.float64).numpy(),
                                  torch.tensor(want).to(dtype).to(torch.float64).numpy()),
                   f"{dtype}: {out.tolist()}")
    check(rank, "all_to_all_single-even", even)

    def split(r, j):
        return (r + 2 * j) % 3

    def uneven():
        for async_op in (False, True):
            sizes_in = [split(rank, j) for j in range(world)]
            sizes_out = [split(j, rank) for j in range(world)]
            mine = torch.tensor(rows_of(rank, sum(sizes_in)), dtype=torch.float32)
            out = torch.full((sum(sizes_out), 3), -1.0)
            work = dist.all_to_all_single(out, mine, sizes_out, sizes_in, async_op=async_op)
            if async_op:
                work.wait()
            pieces = []
            for j in range(world):
                start = sum(split(j, k) for k in range(rank))
                pieces.append(rows_of(j, sum(split(j, k) for k in range(world)))
                              [start:start + split(j, rank)])
            expect(np.array_equal(out.numpy(), np.concatenate(pieces)), out.tolist())
        two = torch.zeros(2 * world + 1, 3)
        raises(RuntimeError, "Split sizes doesn't match total dim 0 size",
               lambda: dist.all_to_all_single(two, two, [1] * world, [1] * world))
        one_each = torch.zeros(world, 3)
        raises(RuntimeError, "Number of tensor splits not equal to group size",
               lambda: dist.all_to_all_single(one_each, one_each, [1] * (world + 1),
                                              [1] * world))
        if world > 1:
            raises(RuntimeError, "Tensor's dim 0 does not divide equally across group size",
                   lambda: dist.all_to_all_single(two, two))
    check(rank, "all_to_all_single-split-sizes", uneven)

    def lists():
        ins = [torch.full((rank + j + 1, 2), float(10 * rank + j)) for j in range(world)]
        outs = [torch.empty(rank + j + 1, 2) for j in range(world)]
        dist.all_to_all(outs, ins)
        for j in range(world):
            expect(torch.equal(outs[j], torch.full((rank + j + 1, 2), float(10 * j + rank))),
                   f"from {j}: {outs[j].tolist()}")
        raises(RuntimeError, "Number of input tensors are not equal to group size",
               lambda: dist.all_to_all(outs, ins + ins))
    check(rank, "all_to_all", lists)


def monitored_checks(rank, world):
    def passes():
        dist.monitored_barrier()
        dist.monitored_barrier(timeout=timedelta(seconds=30), wait_all_ranks=True)
        raises(TypeError, "Expected timeout argument to be of type datetime.timedelta, got 3",
               lambda: dist.monitored_barrier(timeout=3))
        g = dist.new_group(backend="cpu:gloo")
        expect(dist.get_backend(g) == "cpu:gloo", dist.get_backend(g))
        raises(ValueError, "monitored_barrier is only implemented for GLOO backend.",
               lambda: dist.monitored_barrier(g))
    check(rank, "monitored_barrier", passes)
    if world == 1:
        return

    def late(wait_all):
        """Ranks after 0 (wait_all) or the last rank arrive 1 s late to a 300 ms
        barrier: rank 0 names them; a rank that reached it names rank 0."""
        tardy = range(1, world) if wait_all else [world - 1]
        if rank in tardy:
            time.sleep(1.0)
        try:
            dist.monitored_barrier(timeout=timedelta(milliseconds=300), wait_all_ranks=wait_all)
        except RuntimeError as e:
            if rank == 0:
                names = ", ".join(map(str, tardy))
                want = (f"[Rank 0]: Ranks {names} failed to pass monitoredBarrier in 300 ms"
                        if wait_all else
                        f"[Rank 0]: Rank {world - 1} failed to pass monitoredBarrier in 300 ms")
                expect(str(e).startswith(want), str(e))
            else:
                expect(str(e).startswith(f"Rank {rank} successfully reached monitoredBarrier, "
                                         f"but received errors while waiting for send/recv "
                                         f"from rank 0."), str(e))
        else:
            raise AssertionError("the late barrier passed")
        dist.monitored_barrier(timeout=timedelta(seconds=30))  # in step again
    check(rank, "monitored_barrier-late-rank", lambda: late(False))
    check(rank, "monitored_barrier-late-ranks-wait_all_ranks", lambda: late(True))


def syncbn_checks(rank, world):
    lo = sum(shares(world)[:rank])
    hi = lo + shares(world)[rank]
    gathered = {}

    def run(kind):
        x_all, g_all, w, b = syncbn_data(kind)
        bn = torch.nn.SyncBatchNorm(C, **LAYERS[kind][1])
        if x_all.dtype == np.float64:
            bn.double()
        if bn.weight is not None:
            with torch.no_grad():
                bn.weight.copy_(torch.tensor(w))
                bn.bias.copy_(torch.tensor(b))
        results = {}
        for step in range(2):
            x = torch.tensor(x_all[lo:hi] * (step + 1), requires_grad=True)
            out = bn(x)
            (out * torch.tensor(g_all[lo:hi])).sum().backward()
            results[f"out{step}"] = out.detach().numpy()
            results[f"xgrad{step}"] = x.grad.numpy()
        for name in ("weight", "bias") if bn.weight is not None else ():
            grad = getattr(bn, name).grad.clone()
            dist.all_reduce(grad)  # the whole batch's: each rank holds its share's
            results[f"{name}grad"] = grad.numpy()
        results["running_mean"] = bn.running_mean.numpy().copy()
        results["running_var"] = bn.running_var.numpy().copy()
        expect(bn.num_batches_tracked.item() == 2, bn.num_batches_tracked)
        bn.eval()
        results["eval"] = bn(torch.tensor(x_all[lo:hi])).detach().numpy()
        parts = [None] * world
        dist.all_gather_object(parts, results)
        for name in results:
            if name.startswith(("out", "xgrad", "eval")):
                gathered[f"{kind}-{name}"] = np.concatenate([p[name] for p in parts])
            else:
                gathered[f"{kind}-{name}"] = results[name]
                expect(all(np.array_equal(p[name], results[name]) for p in parts),
                       f"{name} differs across ranks")
    for kind in LAYERS:
        check(rank, f"sync_batchnorm-{kind}", lambda kind=kind: run(kind))

    def errors():
        bn = torch.nn.SyncBatchNorm(C)
        raises(ValueError, "expected at least 2D input (got 1D input)", lambda: bn(torch.ones(3)))
        raises(ValueError, "SyncBatchNorm number of input channels should be non-zero",
               lambda: torch.nn.SyncBatchNorm(0)(torch.ones(2, 0)))
    check(rank, "sync_batchnorm-errors", errors)

    def converted():
        net = torch.nn.Sequential(torch.nn.Linear(4, C), torch.nn.BatchNorm1d(C),
                                  torch.nn.Sequential(torch.nn.BatchNorm1d(C, affine=False)))
        net[1].eval()
        weight = net[1].weight
        sync = torch.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        assert sync is net
        assert type(net[1]) is torch.nn.SyncBatchNorm and net[1].weight is weight
        assert not net[1].training and net[2][0].weight is None
        assert type(net[2][0]) is torch.nn.SyncBatchNorm
    check(rank, "convert_sync_batchnorm", converted)

    def ddp_training():
        """DDP over a converted model on each rank's share of every batch reaches
        the parameters and running statistics of BatchNorm on the whole batch."""
        from minitorch.nn.parallel import DistributedDataParallel as DDP

        def model():
            torch.manual_seed(0)
            return torch.nn.Sequential(torch.nn.Conv2d(C, 4, 1), torch.nn.BatchNorm2d(4),
                                       torch.nn.ReLU(), torch.nn.Flatten(),
                                       torch.nn.Linear(4 * 2 * 3, 2))
        alone = model()
        ddp = DDP(torch.nn.SyncBatchNorm.convert_sync_batchnorm(model()))
        for net, rows in ((alone, slice(0, ROWS)), (ddp, slice(lo, hi))):
            opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
            for step in range(3):
                x, g, _, _ = syncbn_data("4d")
                opt.zero_grad()
                # the sum over the whole batch: a rank's share of it times the
                # world size, since DDP averages the ranks' gradients
                scale = world if net is ddp else 1
                (net(torch.tensor(x[rows] * (step + 1))).sum() * scale).backward()
                opt.step()
        for (name, a), b in zip(alone.state_dict().items(), ddp.module.state_dict().values()):
            np.testing.assert_allclose(b.double().numpy(), a.double().numpy(), rtol=1e-5,
                                       atol=1e-6, err_msg=name)
    check(rank, "ddp-sync_batchnorm", ddp_training)
    if rank == 0:
        np.savez(os.path.join(sys.argv[2], "syncbn.npz"), **gathered)


def main(mode, init):
    if init == "env":
        dist.init_process_group("gloo")
    elif init == "tcp":
        env = os.environ
        dist.init_process_group("gloo", f"tcp://{env['MASTER_ADDR']}:{env['MASTER_PORT']}",
                                rank=int(env["RANK"]), world_size=int(env["WORLD_SIZE"]))
    elif init == "cpu":
        dist.init_process_group("cpu:gloo", timeout=timedelta(seconds=60))
    else:
        dist.init_process_group()
    rank, world = dist.get_rank(), dist.get_world_size()
    init_checks(rank, world, init)
    if mode == "features":
        object_checks(rank, world)
        a2a_checks(rank, world)
        monitored_checks(rank, world)
        syncbn_checks(rank, world)
    dist.destroy_process_group()
    del MISMATCHES[:]
    report(rank, "finished", True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[3] if len(sys.argv) > 3 else "env")
